"""Carving a document into sections, one way per category, and capping section size."""

from __future__ import annotations

import re

from ._blocks import Block, Lines, parse_blocks, strip_span
from ._detect import timestamp_seconds
from ._measure import Measure
from ._model import SECTION_CHAR_CAP, TRANSCRIPT_WINDOW_SECONDS
from ._spans import (
    LEVEL_ITEMS,
    LEVEL_LINE,
    LEVEL_SENTENCES,
    item_spans,
    paragraph_spans,
    sentence_spans,
)
from ._units import SectionPlan, Unit, content_anchor

# A section at least half the cap ends before a unit whose hash picks it (one in this many), so
# where a long run of prose is cut into sections depends on the text at each cut.
_SECTION_ANCHOR_ONE_IN = 2

# A one-line paragraph that does not end a sentence (a title, a label, "Results:") reads as the
# start of what follows it, and is packed with it.
_LEAD_IN_MAX_CHARS = 160
_SENTENCE_ENDED = re.compile(r"[.!?…。！？][\"'”’»)\]]*$")


def _is_lead_in(doc: str, block: Block) -> bool:
    text = doc[block.start : block.end]
    return len(text) <= _LEAD_IN_MAX_CHARS and "\n" not in text and not _SENTENCE_ENDED.search(text)


def _units(blocks: list[Block], measure: Measure) -> list[Unit]:
    units: list[Unit] = []
    for index, block in enumerate(blocks):
        if block.kind == "paragraph":
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            lead_in = (
                following is not None
                and following.kind != "heading"
                and _is_lead_in(measure.doc, block)
                and not (following.kind == "paragraph" and _is_lead_in(measure.doc, following))
            )
            units.append(
                Unit(block.start, block.end, "text", level=LEVEL_ITEMS, keep_with_next=lead_in)
            )
        elif block.kind == "table":
            header_start, header_end = block.header
            units.append(Unit(header_start, header_end, "thead", keep_with_next=True))
            if block.rows:
                lead = measure.table_lead(header_start, header_end)
                opens = measure.doc[header_start:header_end] + "\n"
                for row_start, row_end in block.rows:
                    units.append(
                        Unit(row_start, row_end, "row", lead=lead, block_start=False, opens=opens)
                    )
        elif block.kind == "code":
            units.append(Unit(block.start, block.end, "code"))
        else:  # heading or slide marker: one line, the start of what follows it
            units.append(
                Unit(block.start, block.end, "text", level=LEVEL_LINE, keep_with_next=True)
            )
    return units


# ----- the 4,000-character cap ----------------------------------------------------------------


def _refine(unit: Unit, measure: Measure) -> list[Unit]:
    """Cut an over-cap unit at its next natural boundaries (never inside a table row)."""
    doc = measure.doc
    if unit.kind == "code":
        return _code_lines(unit, measure)
    if unit.kind == "turn":
        head = Unit(unit.start, unit.head_end, "text", level=LEVEL_SENTENCES)
        body_start, body_end = strip_span(doc, unit.head_end, unit.end)
        pieces = [head]
        if body_start < body_end:
            for start, end in paragraph_spans(doc, body_start, body_end):
                pieces.append(Unit(start, end, "text", lead=unit.lead, block_start=False))
        return [p for piece in pieces for p in _refine_if_over(piece, measure)]
    if unit.kind != "text":
        return [unit]  # a table row or header over the cap stays whole: the cap is soft here
    spans: list[tuple[int, int]] = []
    level = unit.level
    while level <= LEVEL_SENTENCES and len(spans) <= 1:
        spans = (item_spans if level == LEVEL_ITEMS else sentence_spans)(doc, unit.start, unit.end)
        level += 1
    if len(spans) <= 1:
        return [unit]  # one sentence over the cap stays whole
    pieces = [
        Unit(start, end, "text", lead=unit.lead, level=level, block_start=False)
        for start, end in spans
    ]
    pieces[0].block_start = unit.block_start
    return [p for piece in pieces for p in _refine_if_over(piece, measure)]


def _code_lines(unit: Unit, measure: Measure) -> list[Unit]:
    """A fenced block over the cap, as its lines: a section cut inside it closes the block
    with its closing fence and the next reopens it with the same opening fence."""
    doc = measure.doc
    group = measure.new_group()
    spans = []
    pos = unit.start
    for raw in doc[unit.start : unit.end].split("\n"):
        start, end = strip_span(doc, pos, pos + len(raw))
        if start < end:
            spans.append((start, end))
        pos += len(raw) + 1
    fence_open = doc[spans[0][0] : spans[0][1]] + "\n"
    fence_close = "\n" + doc[spans[-1][0] : spans[-1][1]]
    lines = [
        Unit(start, end, "codeline", group=group, block_start=False, opens=fence_open)
        for start, end in spans
    ]
    lines[0].opens = ""
    lines[0].keep_with_next = True
    lines[-1].keep_with_previous = True
    for line in lines[:-1]:
        line.closes = fence_close
    return lines


def _refine_if_over(unit: Unit, measure: Measure) -> list[Unit]:
    if unit.end - unit.start > SECTION_CHAR_CAP:
        return _refine(unit, measure)
    return [unit]


def cap_sections(plan: SectionPlan, measure: Measure) -> list[SectionPlan]:
    """Split a section longer than the cap into consecutive sections below it.

    A section ends before a unit that would take it over the cap, or, once it holds half the
    cap, before a unit (a paragraph; a sentence, row or line of one over the cap) whose hash
    picks it (:func:`content_anchor`): each cut depends on the text around it, not on the
    length of the whole, so an edit moves the cuts near it only.
    """
    total = plan.end - plan.start
    if total <= SECTION_CHAR_CAP:
        return [plan]
    units = [piece for unit in plan.units for piece in _refine_if_over(unit, measure)]
    doc = measure.doc
    groups: list[list[Unit]] = []
    current: list[Unit] = []
    for unit in units:
        if current and not unit.keep_with_previous:
            framed = len(current[0].opens) + len(unit.closes)  # the frame counts too
            too_long = unit.end - current[0].start + framed > SECTION_CHAR_CAP
            full = 2 * (current[-1].end - current[0].start) >= SECTION_CHAR_CAP and (
                content_anchor(doc[unit.start : unit.end], _SECTION_ANCHOR_ONE_IN)
            )
            if too_long or full:
                carried: list[Unit] = []
                while len(current) > 1 and current[-1].keep_with_next:
                    carried.insert(0, current.pop())
                groups.append(current)
                current = carried
        current.append(unit)
    groups.append(current)
    return [
        SectionPlan(
            group,
            plan.ctx_first if index == 0 else plan.ctx_rest,
            plan.ctx_rest,
            opening=plan.opening if index == 0 else _opening(group[0], measure.doc),
            closing=plan.closing if index == len(groups) - 1 else group[-1].closes,
            continued=plan.continued or index > 0,
        )
        for index, group in enumerate(groups)
    ]


def _opening(unit: Unit, doc: str) -> str:
    """What a section starting at ``unit`` opens with, ending in the indentation of the unit's
    own line so the first line reads as it does in the document."""
    if not unit.opens:
        return ""
    line_start = doc.rfind("\n", 0, unit.start) + 1
    indent = doc[line_start : unit.start]
    return unit.opens + (indent if not indent.strip() else "")


# ----- per category ---------------------------------------------------------------------------


def carve_headings(doc: str, lines: Lines, measure: Measure) -> list[SectionPlan]:
    blocks = parse_blocks(doc, lines)
    plans: list[SectionPlan] = []
    index = 0
    while index < len(blocks) and blocks[index].kind != "heading":
        index += 1
    if index:
        plans.append(SectionPlan(_units(blocks[:index], measure), "", ""))
    stack: list[tuple[int, str]] = []
    pending: list[Block] = []  # headings with no text of their own, carried into the next one
    pending_ancestors: list[str] = []
    while index < len(blocks):
        heading = blocks[index]
        index += 1
        content_start = index
        while index < len(blocks) and blocks[index].kind != "heading":
            index += 1
        content = blocks[content_start:index]
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        if not pending:
            pending_ancestors = [title for _, title in stack]
        stack.append((heading.level, heading.title))
        pending.append(heading)
        nested_next = index < len(blocks) and blocks[index].level > heading.level
        if not content and nested_next:
            continue
        units = [
            Unit(h.start, h.end, "text", level=LEVEL_LINE, keep_with_next=True) for h in pending
        ]
        units += _units(content, measure)
        opening = measure.breadcrumb(pending_ancestors)
        headings = doc[pending[0].start : content[0].start] if content else ""
        titles = [title for _, title in stack]
        plans.append(
            SectionPlan(units, opening, measure.heading_context(opening, headings, titles))
        )
        pending = []
    return plans


def carve_generic(doc: str, lines: Lines, measure: Measure) -> list[SectionPlan]:
    plans: list[SectionPlan] = []
    prose: list[Block] = []
    for block in parse_blocks(doc, lines):
        if block.kind in ("table", "code"):
            if prose:
                plans.append(SectionPlan(_units(prose, measure), "", ""))
                prose = []
            plans.append(SectionPlan(_units([block], measure), "", ""))
        else:
            prose.append(block)
    if prose:
        plans.append(SectionPlan(_units(prose, measure), "", ""))
    return plans


def carve_slides(doc: str, lines: Lines, measure: Measure) -> list[SectionPlan]:
    plans: list[SectionPlan] = []
    current: list[Block] = []

    def flush() -> None:
        if not current:
            return
        ctx = ""
        if current[0].kind == "slide":
            label = f"Slide {current[0].level}"
            title = next((b.title for b in current if b.kind == "heading" and b.title), "")
            ctx = measure.fit_line(f"{label}: {title}" if title else label)
        plans.append(SectionPlan(_units(current, measure), "", ctx))
        current.clear()

    for block in parse_blocks(doc, lines):
        if block.kind == "slide":
            flush()
        current.append(block)
    flush()
    return plans


def _clock(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes:02d}:{secs:02d}"


def window_label(seconds: int) -> str:
    start = seconds // TRANSCRIPT_WINDOW_SECONDS * TRANSCRIPT_WINDOW_SECONDS
    return f"[{_clock(start)}–{_clock(start + TRANSCRIPT_WINDOW_SECONDS)}]"


def carve_transcript(doc: str, lines: Lines, measure: Measure, title: str) -> list[SectionPlan]:
    turns: list[tuple[int, int, int, int, str]] = []  # start, head_end, end, seconds, head
    preamble_end = None
    for line in lines:
        if line.blank:
            continue
        seconds = timestamp_seconds(line.text)
        if seconds is None:
            continue
        start, head_end = strip_span(doc, line.start, line.end)
        if preamble_end is None:
            preamble_end = line.start
        turns.append((start, head_end, 0, seconds, line.text.strip()))
    plans: list[SectionPlan] = []
    if preamble_end is None:  # not reachable through detection, but stay total
        preamble_end = len(doc)
    pre_start, pre_end = strip_span(doc, 0, preamble_end)
    if pre_start < pre_end:
        units = [
            Unit(start, end, "text", level=LEVEL_ITEMS)
            for start, end in paragraph_spans(doc, pre_start, pre_end)
        ]
        plans.append(SectionPlan(units, "", ""))
    window_units: list[Unit] = []
    window = None
    for number, (start, head_end, _, seconds, head) in enumerate(turns):
        next_start = turns[number + 1][0] if number + 1 < len(turns) else len(doc)
        _, end = strip_span(doc, start, next_start)
        unit = Unit(start, end, "turn", lead=measure.fit_line(head), head_end=head_end)
        this_window = seconds // TRANSCRIPT_WINDOW_SECONDS
        if window_units and this_window != window:
            plans.append(_window_plan(window_units, window, title, measure))
            window_units = []
        window = this_window
        window_units.append(unit)
    if window_units:
        plans.append(_window_plan(window_units, window, title, measure))
    return plans


def _window_plan(
    units: list[Unit], window: int | None, title: str, measure: Measure
) -> SectionPlan:
    label = window_label((window or 0) * TRANSCRIPT_WINDOW_SECONDS)
    title = " ".join(title.split())
    ctx = measure.fit_line(f"{label} {title}" if title else label)
    return SectionPlan(units, ctx, ctx)
