"""Reading the document category off the converted Markdown."""

from __future__ import annotations

import re

from ._blocks import Line, fenced_code_ranges, heading_match, slide_number, split_lines
from ._model import TRANSCRIPT_LINE_SHARE, Category

_TS = r"(?:(\d{1,2}):)?(\d{1,3}):(\d{2})(?:[.,]\d{1,3})?"
_SPEAKER = r"(?:\*\*[^*\n]{1,80}\*\*|\[[^\]\n]{1,80}\]|[^\W\d_][^\n:|]{0,79}?)"

# "**Anna** 01:02", "Anna Smith 00:01:02", "[Anna] 10:32:03", "Anna (01:02)", or a bare "0:05".
_SPEAKER_THEN_TIME = re.compile(
    rf"[ \t]*(?:{_SPEAKER}[ \t]*[-–—,:]?[ \t]+)?([\[(])?{_TS}(?(1)[\])])[ \t]*"
)
# "[00:01:02] Anna: words", "(01:02) words"
_BRACKETED_TIME_FIRST = re.compile(rf"[ \t]*[\[(]{_TS}[\])](?:[ \t].*)?")
# "00:01:02 Anna: words", "01:02 - Anna: words"
_TIME_THEN_SPEAKER = re.compile(
    rf"[ \t]*{_TS}[ \t]+(?:[-–—][ \t]*)?[^\W\d_][^\n:|]{{0,60}}:(?:[ \t].*)?"
)


def timestamp_seconds(text: str) -> int | None:
    """Seconds into the recording when ``text`` is a transcript timestamp line, else None."""
    if ":" not in text:
        return None
    if len(text) > 400:
        match = _BRACKETED_TIME_FIRST.fullmatch(text[:400])
        if match is None:
            return None
    else:
        match = (
            _SPEAKER_THEN_TIME.fullmatch(text)
            or _BRACKETED_TIME_FIRST.fullmatch(text)
            or _TIME_THEN_SPEAKER.fullmatch(text)
        )
        if match is None:
            return None
    groups = [g for g in match.groups() if g is None or g.isdigit()]
    hours, minutes, seconds = groups[-3], groups[-2], groups[-1]
    if int(seconds) >= 60:
        return None
    total = int(minutes) * 60 + int(seconds)
    if hours is not None:
        if int(minutes) >= 60:
            return None
        total += int(hours) * 3600
    return total


def _lines_outside_code(lines: list[Line]) -> list[Line]:
    ranges = fenced_code_ranges(lines)
    if not ranges:
        return lines
    inside: set[int] = set()
    for first, last in ranges:
        inside.update(range(first, last + 1))
    return [line for index, line in enumerate(lines) if index not in inside]


def detect_category(markdown: str, lines: list[Line] | None = None) -> Category:
    """transcript, slides, headings or generic; anything unclear is generic."""
    if lines is None:
        lines = split_lines(markdown)
    outside = [line for line in _lines_outside_code(lines) if not line.blank]
    if not outside:
        return "generic"
    stamps = sum(1 for line in outside if timestamp_seconds(line.text) is not None)
    # One stamp is enough only when it opens the document (a one-turn call transcript).
    enough = stamps >= 2 or (stamps == 1 and timestamp_seconds(outside[0].text) is not None)
    if enough and stamps / len(outside) >= TRANSCRIPT_LINE_SHARE:
        return "transcript"
    if any(slide_number(line.text) is not None for line in outside):
        return "slides"
    headings = 0
    for line in outside:
        if "#" in line.text[:4] and heading_match(line.text) is not None:
            headings += 1
            if headings >= 2:
                return "headings"
    return "generic"
