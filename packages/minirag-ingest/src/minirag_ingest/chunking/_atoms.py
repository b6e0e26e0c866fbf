"""Splitting a section's units into atoms: spans that each fit the chunk budget on their own,
numbered with the paragraph they belong to. Each span is counted about once, however it ends
up being cut."""

from __future__ import annotations

from ._blocks import strip_span
from ._measure import SKIP_COUNT_CHARS_PER_TOKEN, Measure
from ._model import CODE_BUDGET_FACTOR, CODE_SPLIT_MARKER
from ._spans import (
    LEVEL_CHARS,
    LEVEL_ITEMS,
    LEVEL_LINE,
    LEVEL_SENTENCES,
    SPLITTERS,
    line_spans,
    paragraph_spans,
)
from ._units import Atom, SectionPlan, Unit

# A span predicted (from the document's own characters-per-token ratio) to need more than this
# share of the room is split before it is counted: its pieces are counted instead, and merged
# back should their sum fit after all. The prediction only ever decides what is counted when,
# never what a chunk may hold.
_PREDICTED_FIT = 1.3

# Short paragraphs that open a section (a title, a byline, a date line), up to this many
# characters together, are packed with the paragraph after them, not in a chunk of their own.
_OPENING_CHARS = 300


def atoms(measure: Measure, plan: SectionPlan) -> list[Atom]:
    """The section's atoms, each numbered with the paragraph it belongs to: a new one at
    every unit that starts a block, except after a unit kept with the next (a heading, a
    table header) or one of the short paragraphs that open the section, and at every split
    code block."""
    out: list[Atom] = []
    paragraph = -1
    previous: Unit | None = None
    glued = False  # the previous unit starts the paragraph of this one
    opening = -1 if plan.continued else 0  # characters of the short paragraphs that
    # open the section (not a part the cap cut off: where the cap cuts moves with edits)
    for unit in plan.units:
        kind = unit.kind
        mark = len(out)
        if kind == "code":
            _code_atoms(measure, plan, unit, out)
        elif kind == "codeline":
            lead = CODE_SPLIT_MARKER + "\n"
            _split(measure, plan, unit.start, unit.end, LEVEL_LINE, lead, lead, out, unit.group)
        elif kind == "turn":
            _turn_atoms(measure, plan, unit, out)
        elif kind in ("row", "thead"):
            _split(measure, plan, unit.start, unit.end, LEVEL_LINE, unit.lead, unit.lead, out)
        else:
            _split(measure, plan, unit.start, unit.end, unit.level, unit.lead, unit.lead, out)
        if previous is None or ((unit.block_start or unit.group != previous.group) and not glued):
            paragraph += 1
        for atom in out[mark:]:
            atom.paragraph = paragraph
        if opening >= 0 and unit.kind == "text" and unit.block_start:
            opening += unit.end - unit.start
        else:
            opening = -1
        glued = unit.keep_with_next or 0 <= opening <= _OPENING_CHARS
        previous = unit
    return out


def _code_atoms(measure: Measure, plan: SectionPlan, unit: Unit, out: list[Atom]) -> None:
    avail = measure.avail(plan, "")
    ceiling = avail + (CODE_BUDGET_FACTOR - 1) * measure.budget  # four budgets, context included
    if unit.end - unit.start <= ceiling * SKIP_COUNT_CHARS_PER_TOKEN:
        tokens = measure.tokens(unit.start, unit.end)
        if tokens <= avail:
            out.append(Atom(unit.start, unit.end, tokens))
            return
        if tokens <= ceiling:
            out.append(Atom(unit.start, unit.end, tokens, solo=True))
            return
    group = measure.new_group()
    lead = CODE_SPLIT_MARKER + "\n"
    for line_start, line_end in line_spans(measure.doc, unit.start, unit.end):
        _split(measure, plan, line_start, line_end, LEVEL_LINE, lead, lead, out, group)


def _turn_atoms(measure: Measure, plan: SectionPlan, unit: Unit, out: list[Atom]) -> None:
    avail = measure.avail(plan, "")
    if unit.end - unit.start <= avail * _PREDICTED_FIT * measure.chars_per_token():
        tokens = measure.tokens(unit.start, unit.end)
        if tokens <= avail:
            out.append(Atom(unit.start, unit.end, tokens, level=LEVEL_ITEMS))
            return
    _split(measure, plan, unit.start, unit.head_end, LEVEL_SENTENCES, "", unit.lead, out)
    body_start, body_end = strip_span(measure.doc, unit.head_end, unit.end)
    for para_start, para_end in paragraph_spans(measure.doc, body_start, body_end):
        _split(measure, plan, para_start, para_end, LEVEL_ITEMS, unit.lead, unit.lead, out)


def _split(
    measure: Measure,
    plan: SectionPlan,
    start: int,
    end: int,
    level: int,
    lead_first: str,
    lead_rest: str,
    out: list[Atom],
    group: int = 0,
) -> None:
    """Append atoms covering ``[start, end)``, each fitting the budget on its own.

    A span long enough that it probably does not fit is not counted whole: its pieces are
    counted instead and, should their sum fit after all, merged back into one atom. That
    way every character is counted about once however the span ends up being cut.
    """
    avail = measure.avail(plan, lead_first)
    ratio = measure.chars_per_token()
    tokens = None
    if end - start <= avail * _PREDICTED_FIT * ratio:
        tokens = measure.tokens(start, end)
        if tokens <= avail:
            out.append(Atom(start, end, tokens, lead_first, group, level=level))
            return
    spans: list[tuple[int, int]] = []
    run_chars = max(1, int(avail * ratio / 4))  # runs a quarter of a chunk long
    while level < LEVEL_CHARS:
        spans = SPLITTERS[level](measure.doc, start, end, run_chars)
        level += 1
        if len(spans) > 1:
            break
    if len(spans) <= 1:  # a single word: count it, and cut it only if it must be
        if tokens is None:
            tokens = measure.tokens(start, end)
            if tokens <= avail:
                out.append(Atom(start, end, tokens, lead_first, group, level=level))
                return
        _hard_split(measure, plan, start, end, tokens, lead_first, lead_rest, out, group)
        return
    mark = len(out)
    for index, (piece_start, piece_end) in enumerate(spans):
        lead = lead_first if index == 0 else lead_rest
        _split(measure, plan, piece_start, piece_end, level, lead, lead_rest, out, group)
    if tokens is None:
        total = sum(atom.tokens for atom in out[mark:])
        if total <= avail:
            out[mark:] = [Atom(start, end, total, lead_first, group, level=level - 1)]


def _hard_split(
    measure: Measure,
    plan: SectionPlan,
    start: int,
    end: int,
    tokens: int | None,
    lead_first: str,
    lead_rest: str,
    out: list[Atom],
    group: int,
) -> None:
    """Cut one unbroken run of characters into pieces that fit: the last resort.

    Piece lengths come from the run's own characters-per-token ratio, corrected by at most
    a few real counts per piece, so a long run costs a few passes, never one per character.
    """
    if tokens is None:
        tokens = measure.tokens(start, end)
    chars_per_token = (end - start) / max(1, tokens)
    pos = start
    lead = lead_first
    while pos < end:
        room = measure.avail(plan, lead)
        remaining = end - pos
        step = min(remaining, max(1, int(room * chars_per_token * 0.9)))
        piece = measure.tokens(pos, pos + step)
        while piece > room and step > 1:
            step = max(1, min(step - 1, step * room // piece))
            piece = measure.tokens(pos, pos + step)
        for _ in range(2):  # grow toward the room, so pieces are not needlessly small
            if pos + step >= end or piece >= room:
                break
            bigger = min(remaining, max(step + 1, step * room // max(1, piece)))
            bigger_tokens = measure.tokens(pos, pos + bigger)
            if bigger_tokens > room:
                break
            step, piece = bigger, bigger_tokens
        out.append(Atom(pos, pos + step, piece, lead, group, level=LEVEL_CHARS))
        pos += step
        lead = lead_rest
