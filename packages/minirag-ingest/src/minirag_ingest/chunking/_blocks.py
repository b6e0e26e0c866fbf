"""Cutting Markdown into structural blocks: headings, paragraphs, tables, fenced code.

Everything here works on character offsets into the original string, so the later stages can
slice the document instead of re-assembling text, which is what keeps reconstruction exact.
Every non-blank line of the input belongs to exactly one block.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_HEADING_CLOSER = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_TABLE_DELIMITER = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_SLIDE_MARKER = re.compile(r"[ \t]*<!--[ \t]*Slide number:[ \t]*(\d+)[ \t]*-->[ \t]*")


@dataclass(slots=True)  # a line each: 3 million for an 18 MB code listing
class Line:
    start: int
    end: int  # exclusive, before the newline (a trailing "\r" is included)
    text: str  # the line without its newline and trailing "\r"

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def split_lines(doc: str) -> list[Line]:
    lines: list[Line] = []
    pos = 0
    for raw in doc.split("\n"):
        end = pos + len(raw)
        lines.append(Line(pos, end, raw.rstrip("\r")))
        pos = end + 1
    return lines


def strip_span(doc: str, start: int, end: int) -> tuple[int, int]:
    """Narrow ``[start, end)`` so that it neither starts nor ends with whitespace."""
    while start < end and doc[start].isspace():
        start += 1
    while end > start and doc[end - 1].isspace():
        end -= 1
    return start, end


@dataclass(slots=True)
class Block:
    kind: str  # "heading" | "paragraph" | "table" | "code" | "slide"
    start: int
    end: int
    level: int = 0  # heading level; slide number for "slide"
    title: str = ""  # heading text
    header: tuple[int, int] = (0, 0)  # table: header line + delimiter line
    rows: list[tuple[int, int]] = field(default_factory=list)  # table body rows
    lines: list[tuple[int, int]] = field(default_factory=list)  # code: non-blank line spans


def heading_match(text: str) -> tuple[int, str] | None:
    """``(level, text)`` when ``text`` is an ATX heading line."""
    match = _HEADING.fullmatch(text)
    if match is None:
        return None
    title = _HEADING_CLOSER.sub("", match.group(2) or "").strip()
    return len(match.group(1)), title


def slide_number(text: str) -> int | None:
    match = _SLIDE_MARKER.fullmatch(text)
    return int(match.group(1)) if match else None


def _is_table_start(lines: list[Line], i: int) -> bool:
    if i + 1 >= len(lines) or "|" not in lines[i].text:
        return False
    nxt = lines[i + 1].text
    return "|" in nxt and "-" in nxt and _TABLE_DELIMITER.fullmatch(nxt) is not None


class _FenceFinder:
    """Finds the closing line of a fence without rescanning the document per opener."""

    def __init__(self, lines: list[Line]) -> None:
        self._closers: dict[str, list[tuple[int, int]]] = {"`": [], "~": []}
        for index, line in enumerate(lines):
            match = _FENCE_CLOSE.fullmatch(line.text)
            if match:
                fence = match.group(1)
                self._closers[fence[0]].append((index, len(fence)))
        self._keys = {char: [c[0] for c in closers] for char, closers in self._closers.items()}

    def closing_line(self, opener: int, fence: str) -> int | None:
        closers = self._closers[fence[0]]
        position = bisect.bisect_right(self._keys[fence[0]], opener)
        for index, length in closers[position:]:
            if length >= len(fence):
                return index
        return None


def fenced_code_ranges(lines: list[Line]) -> list[tuple[int, int]]:
    """Line index ranges ``(open, close)`` of fenced code blocks that have a real closing fence."""
    finder = _FenceFinder(lines)
    ranges: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.fullmatch(lines[i].text)
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            close = finder.closing_line(i, match.group(1))
            if close is not None:
                ranges.append((i, close))
                i = close + 1
                continue
        i += 1
    return ranges


def parse_blocks(doc: str, lines: list[Line] | None = None) -> list[Block]:
    """The document's blocks in order. Blank lines separate paragraphs."""
    if lines is None:
        lines = split_lines(doc)
    code_at = dict(fenced_code_ranges(lines))
    blocks: list[Block] = []
    para: list[Line] = []

    def close_paragraph() -> None:
        if para:
            start, end = strip_span(doc, para[0].start, para[-1].end)
            blocks.append(Block("paragraph", start, end))
            para.clear()

    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.blank:
            close_paragraph()
            i += 1
            continue
        if i in code_at:
            close_paragraph()
            close = code_at[i]
            spans = []
            for inner in lines[i : close + 1]:
                if not inner.blank:
                    spans.append(strip_span(doc, inner.start, inner.end))
            start, end = spans[0][0], spans[-1][1]
            blocks.append(Block("code", start, end, lines=spans))
            i = close + 1
            continue
        heading = heading_match(line.text)
        if heading is not None:
            close_paragraph()
            start, end = strip_span(doc, line.start, line.end)
            blocks.append(Block("heading", start, end, level=heading[0], title=heading[1]))
            i += 1
            continue
        number = slide_number(line.text)
        if number is not None:
            close_paragraph()
            start, end = strip_span(doc, line.start, line.end)
            blocks.append(Block("slide", start, end, level=number))
            i += 1
            continue
        if _is_table_start(lines, i):
            close_paragraph()
            header = strip_span(doc, line.start, lines[i + 1].end)
            rows = []
            j = i + 2
            while j < n and not lines[j].blank and "|" in lines[j].text and j not in code_at:
                rows.append(strip_span(doc, lines[j].start, lines[j].end))
                j += 1
            end = rows[-1][1] if rows else header[1]
            blocks.append(Block("table", header[0], end, header=header, rows=rows))
            i = j
            continue
        para.append(line)
        i += 1
    close_paragraph()
    return blocks
