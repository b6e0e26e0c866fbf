"""Reading the document category off the converted Markdown."""

from __future__ import annotations

import re

from ._blocks import Lines, fenced_code_ranges, heading_match, slide_number
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


def detect_category(markdown: str, lines: Lines | None = None) -> Category:
    """transcript, slides, headings or generic; anything unclear is generic.

    Only lines that are not blank and not inside a fenced code block count."""
    if lines is None:
        lines = Lines(markdown)
    fences = iter(fenced_code_ranges(lines))
    fence = next(fences, None)
    outside = stamps = headings = 0
    first_is_stamp = slides = False
    for index, line in enumerate(lines):
        while fence is not None and fence[1] < index:
            fence = next(fences, None)
        text = line.text  # isspace, not strip: a 50 MB line is not copied to be judged blank
        if (fence is not None and index >= fence[0]) or not text or text.isspace():
            continue
        stamp = timestamp_seconds(text) is not None
        first_is_stamp = first_is_stamp or (stamp and outside == 0)
        outside += 1
        stamps += stamp
        slides = slides or ("<!--" in text and slide_number(text) is not None)
        if "#" in text[:4] and heading_match(text) is not None:
            headings += 1
    if not outside:
        return "generic"
    # One stamp is enough only when it opens the document (a one-turn call transcript).
    enough = stamps >= 2 or (stamps == 1 and first_is_stamp)
    if enough and stamps / outside >= TRANSCRIPT_LINE_SHARE:
        return "transcript"
    if slides:
        return "slides"
    return "headings" if headings >= 2 else "generic"
