"""Cutting a stretch of a document into smaller spans, coarsest first: list items, sentences,
runs of a few words, single words (the split levels), plus lines and paragraphs."""

from __future__ import annotations

import re

from ._blocks import strip_span

_ITEM_BREAK = re.compile(r"\n[ \t]*(?=(?:[-*+•]|\d{1,9}[.)])[ \t]|>|\|)")
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’»)\]]*(\s+)")
_WORD = re.compile(r"\S+")
_LINE = re.compile(r"[^\n]+")
_BLANK_LINES = re.compile(r"\n[ \t\r]*\n\s*")

# Split levels, coarsest first: list items, sentences, runs of a few words, single words, and
# as the last resort characters.
LEVEL_ITEMS, LEVEL_SENTENCES, LEVEL_RUNS, LEVEL_WORDS, LEVEL_CHARS = range(5)
LEVEL_LINE = LEVEL_RUNS  # where a single line (heading, table row, code line) starts


def _spans_between(
    doc: str, start: int, end: int, cuts: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Spans of ``doc[start:end]`` left between the separator spans ``cuts``, each stripped."""
    spans = []
    pos = start
    for cut_start, cut_end in [*cuts, (end, end)]:
        piece = strip_span(doc, pos, cut_start)
        if piece[0] < piece[1]:
            spans.append(piece)
        pos = cut_end
    return spans


def item_spans(doc: str, start: int, end: int, _: int = 0) -> list[tuple[int, int]]:
    """Cut before lines that start a list item, a quote line or a pipe row."""
    cuts = [(m.start(), m.end()) for m in _ITEM_BREAK.finditer(doc, start, end)]
    return _spans_between(doc, start, end, cuts)


def sentence_spans(doc: str, start: int, end: int, _: int = 0) -> list[tuple[int, int]]:
    cuts = []
    for match in _SENTENCE_END.finditer(doc, start, end):
        if match.end(1) < end:
            cuts.append((match.start(1), match.end(1)))
    return _spans_between(doc, start, end, cuts)


def run_spans(doc: str, start: int, end: int, max_chars: int = 0) -> list[tuple[int, int]]:
    """Consecutive words grouped into runs of at most ``max_chars`` (a longer word: alone)."""
    runs: list[tuple[int, int]] = []
    run_start = run_end = -1
    for match in _WORD.finditer(doc, start, end):
        if run_start < 0:
            run_start, run_end = match.start(), match.end()
        elif match.end() - run_start <= max_chars:
            run_end = match.end()
        else:
            runs.append((run_start, run_end))
            run_start, run_end = match.start(), match.end()
    if run_start >= 0:
        runs.append((run_start, run_end))
    return runs


def word_spans(doc: str, start: int, end: int, _: int = 0) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(doc, start, end)]


SPLITTERS = {
    LEVEL_ITEMS: item_spans,
    LEVEL_SENTENCES: sentence_spans,
    LEVEL_RUNS: run_spans,
    LEVEL_WORDS: word_spans,
}


def line_spans(doc: str, start: int, end: int) -> list[tuple[int, int]]:
    """Non-blank lines of ``doc[start:end]``, each stripped."""
    spans = []
    for match in _LINE.finditer(doc, start, end):
        span = strip_span(doc, match.start(), match.end())
        if span[0] < span[1]:
            spans.append(span)
    return spans


def paragraph_spans(doc: str, start: int, end: int) -> list[tuple[int, int]]:
    """Stretches of ``doc[start:end]`` separated by blank lines, each stripped."""
    cuts = [(m.start(), m.end()) for m in _BLANK_LINES.finditer(doc, start, end)]
    return _spans_between(doc, start, end, cuts)
