"""Cutting Markdown into structural blocks: headings, paragraphs, tables, fenced code.

Everything here works on character offsets into the original string, so the later stages can
slice the document instead of re-assembling text, which is what keeps reconstruction exact.
Every non-blank line of the input belongs to exactly one block.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

# Fence lines, found in the whole document at once (a line's text is without its "\r").
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*\r*$", re.MULTILINE)
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*")
_HEADING_CLOSER = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_TABLE_DELIMITER = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_SLIDE_MARKER = re.compile(r"[ \t]*<!--[ \t]*Slide number:[ \t]*(\d+)[ \t]*-->[ \t]*")


@dataclass(slots=True)
class Line:
    start: int
    end: int  # exclusive, before the newline (a trailing "\r" is included)
    text: str  # the line without its newline and trailing "\r"

    @property
    def blank(self) -> bool:
        return not self.text.strip()


_NEWLINE = re.compile("\n")


class Lines:
    """A document's lines, each made when it is asked for from the offsets where lines start.

    Held as objects, the 3 million lines of an 18 MB code listing took 570 MB (~190 bytes a
    line, the text copied); the offsets take 8 bytes a line, and the text stays in the
    document."""

    __slots__ = ("_doc", "_starts")

    def __init__(self, doc: str) -> None:
        self._doc = doc
        self._starts = array("q", [0])
        self._starts.extend(match.end() for match in _NEWLINE.finditer(doc))

    def __len__(self) -> int:
        return len(self._starts)

    def span(self, index: int) -> tuple[int, int]:
        """Where line ``index`` starts and ends (before its newline)."""
        if index < 0:
            index += len(self._starts)
        start = self._starts[index]
        end = self._starts[index + 1] - 1 if index + 1 < len(self._starts) else len(self._doc)
        return start, end

    def __getitem__(self, index: int) -> Line:
        start, end = self.span(index)
        return Line(start, end, self._doc[start:end].rstrip("\r"))

    def __iter__(self) -> Iterator[Line]:
        doc, starts = self._doc, self._starts
        for start, next_start in pairwise(starts):
            yield Line(start, next_start - 1, doc[start : next_start - 1].rstrip("\r"))
        yield Line(starts[-1], len(doc), doc[starts[-1] :].rstrip("\r"))

    def matching(self, pattern: re.Pattern[str]) -> Iterator[tuple[int, re.Match[str]]]:
        """``(line index, match)`` for each match of ``pattern`` (``^``-anchored, multiline)
        in the document: one regular-expression scan instead of a call per line."""
        for match in pattern.finditer(self._doc):
            yield bisect.bisect_right(self._starts, match.start()) - 1, match


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
    rows: Sequence[tuple[int, int]] = ()  # table body rows (a shared empty tuple elsewhere)


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


def _is_table_start(lines: Lines, i: int) -> bool:
    if i + 1 >= len(lines) or "|" not in lines[i].text:
        return False
    nxt = lines[i + 1].text
    return "|" in nxt and "-" in nxt and _TABLE_DELIMITER.fullmatch(nxt) is not None


class _FenceFinder:
    """Finds the closing line of a fence without rescanning the document per opener."""

    def __init__(self, lines: Lines) -> None:
        self._closers: dict[str, list[tuple[int, int]]] = {"`": [], "~": []}
        for index, match in lines.matching(_FENCE_CLOSE):
            fence = match.group(1)
            self._closers[fence[0]].append((index, len(fence)))
        self._keys = {char: [c[0] for c in closers] for char, closers in self._closers.items()}

    def closing_line(self, opener: int, fence: str) -> int | None:
        closers = self._closers[fence[0]]
        for position in range(bisect.bisect_right(self._keys[fence[0]], opener), len(closers)):
            index, length = closers[position]
            if length >= len(fence):
                return index
        return None


def fenced_code_ranges(lines: Lines) -> list[tuple[int, int]]:
    """Line index ranges ``(open, close)`` of fenced code blocks that have a real closing fence."""
    finder = _FenceFinder(lines)
    ranges: list[tuple[int, int]] = []
    after = 0  # the first line not inside a range found so far
    for index, match in lines.matching(_FENCE_OPEN):
        if index < after or (match.group(1)[0] == "`" and "`" in match.group(2)):
            continue
        close = finder.closing_line(index, match.group(1))
        if close is not None:
            ranges.append((index, close))
            after = close + 1
    return ranges


def _table_rows(
    doc: str, lines: Lines, first: int, code_at: dict[int, int]
) -> list[tuple[int, int]]:
    """The spans of a table's body rows, from line ``first`` on."""
    rows = []
    for index in range(first, len(lines)):
        row = lines[index]
        if index in code_at or row.blank or "|" not in row.text:
            break
        rows.append(strip_span(doc, row.start, row.end))
    return rows


def parse_blocks(doc: str, lines: Lines | None = None) -> list[Block]:
    """The document's blocks in order. Blank lines separate paragraphs."""
    if lines is None:
        lines = Lines(doc)
    code_at = dict(fenced_code_ranges(lines))
    blocks: list[Block] = []
    para: list[int] = []  # where the open paragraph starts and ends: not its lines

    def close_paragraph() -> None:
        if para:
            start, end = strip_span(doc, para[0], para[1])
            blocks.append(Block("paragraph", start, end))
            para.clear()

    after = 0  # the first line not taken by a code block or table already
    for i, line in enumerate(lines):
        if i < after:
            continue
        if line.blank:
            close_paragraph()
            continue
        if i in code_at:
            close_paragraph()
            close = code_at[i]
            start = strip_span(doc, line.start, line.end)[0]  # the opening fence
            end = strip_span(doc, *lines.span(close))[1]  # the closing fence
            blocks.append(Block("code", start, end))
            after = close + 1
            continue
        heading = heading_match(line.text)
        if heading is not None:
            close_paragraph()
            start, end = strip_span(doc, line.start, line.end)
            blocks.append(Block("heading", start, end, level=heading[0], title=heading[1]))
            continue
        number = slide_number(line.text)
        if number is not None:
            close_paragraph()
            start, end = strip_span(doc, line.start, line.end)
            blocks.append(Block("slide", start, end, level=number))
            continue
        if "|" in line.text and _is_table_start(lines, i):
            close_paragraph()
            header = strip_span(doc, line.start, lines[i + 1].end)
            rows = _table_rows(doc, lines, i + 2, code_at)
            after = i + 2 + len(rows)
            end = rows[-1][1] if rows else header[1]
            blocks.append(Block("table", header[0], end, header=header, rows=rows))
            continue
        if para:
            para[1] = line.end
        else:
            para.extend((line.start, line.end))
    close_paragraph()
    return blocks
