"""A document's date, found without a model: header, then file name, then file time.

Only the header is read. The body of a letter cites the dates of the contracts and letters it
answers, and those are not the date of the document itself.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

HEADER_CHARS = 1500
FIRST_LINE_MAX_CHARS = 200
_YEARS = range(1970, 2100)

DateSource = Literal["document", "name", "file"]


@dataclass(frozen=True)
class DocDate:
    date: dt.date
    source: DateSource


_MONTHS: dict[str, int] = {}
for _number, _names in enumerate(
    (
        ("january", "jan", "января", "январь"),
        ("february", "feb", "февраля", "февраль"),
        ("march", "mar", "марта", "март"),
        ("april", "apr", "апреля", "апрель"),
        ("may", "мая", "май"),
        ("june", "jun", "июня", "июнь"),
        ("july", "jul", "июля", "июль"),
        ("august", "aug", "августа", "август"),
        ("september", "sep", "sept", "сентября", "сентябрь"),
        ("october", "oct", "октября", "октябрь"),
        ("november", "nov", "ноября", "ноябрь"),
        ("december", "dec", "декабря", "декабрь"),
    ),
    start=1,
):
    for _name in _names:
        _MONTHS[_name] = _number

_MONTH = "(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAYS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    "mon|tue|tues|wed|thu|thurs|fri|sat|sun|"
    "понедельник|вторник|среда|четверг|пятница|суббота|воскресенье"
)

# Every pattern names its groups year, month and day.
_TEXT_DATES = (
    # 2026-08-12
    re.compile(r"(?<!\d)(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})(?!\d)"),
    # 12.08.2026, 12/08/2026
    re.compile(r"(?<![\d.])(?P<day>\d{1,2})[./](?P<month>\d{1,2})[./](?P<year>\d{4})(?!\d)"),
    # 5 August 2026, «12» августа 2026 г.
    re.compile(
        r"(?<!\w)[«\"']?(?P<day>\d{1,2})(?:st|nd|rd|th)?[»\"']?\s+(?:of\s+)?"
        + _MONTH
        + r",?\s+(?P<year>\d{4})(?!\d)",
        re.I,
    ),
    # August 5, 2026
    re.compile(
        r"(?<!\w)" + _MONTH + r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})(?!\d)",
        re.I,
    ),
)

_FIELD = re.compile(
    r"^[\s>*_|#-]*(?:date|sent|дата|отправлено|datum|gesendet|fecha|enviado)(?![^\W_])[\s*_]*:",
    re.I | re.M,
)
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?"
_OUTGOING = re.compile(r"(?<!\w)исх(?:одящий|\.)?\s*(?:№|n|no\.?)?[^\n]{0,60}?\sот\s+", re.I)
_WEEKDAY_LINE = re.compile(rf"^[\s>*_#|-]*(?:{_WEEKDAYS})\.?,?\s+", re.I)


def document_date(markdown: str, file_name: str | None, file_mtime: float | None) -> DocDate | None:
    """The first date found in the header, else in the file name, else the file time."""
    found = header_date(markdown)
    if found is not None:
        return DocDate(found, "document")
    found = name_date(file_name) if file_name else None
    if found is not None:
        return DocDate(found, "name")
    if file_mtime is not None:
        return DocDate(dt.date.fromtimestamp(file_mtime), "file")
    return None


def header_date(markdown: str) -> dt.date | None:
    """A date from the opening of a document, by the field and line forms letters use."""
    header = markdown[:HEADER_CHARS]
    lines = header.splitlines()
    for finder in (_field_date, _recording_date, _weekday_date, _outgoing_date):
        found = finder(header, lines)
        if found is not None:
            return found
    return _first_line_date(lines)


def _field_date(header: str, lines: list[str]) -> dt.date | None:
    for match in _FIELD.finditer(header):
        line_end = header.find("\n", match.end())
        found = first_date(header[match.end() : None if line_end < 0 else line_end])
        if found is not None:
            return found
    return None


def _recording_date(header: str, lines: list[str]) -> dt.date | None:
    """A line that is only a date and a time, as a Teams recording transcript starts."""
    for line in lines:
        text = _strip_markup(line)
        if len(text) > 60:
            continue
        for pattern in _TEXT_DATES:
            match = pattern.match(text)
            if match and re.fullmatch(rf",?\s*(?:г\.,?\s*)?{_TIME}", text[match.end() :], re.I):
                found = _make_date(match)
                if found is not None:
                    return found
    return None


def _weekday_date(header: str, lines: list[str]) -> dt.date | None:
    for line in lines:
        if len(line) > 100:
            continue
        match = _WEEKDAY_LINE.match(line)
        if match:
            found = _date_at(line[match.end() :])
            if found is not None:
                return found
    return None


def _outgoing_date(header: str, lines: list[str]) -> dt.date | None:
    for match in _OUTGOING.finditer(header):
        found = _date_at(header[match.end() : match.end() + 40])
        if found is not None:
            return found
    return None


def _first_line_date(lines: list[str]) -> dt.date | None:
    first = next((line for line in lines if line.strip()), "")
    if len(first.strip()) > FIRST_LINE_MAX_CHARS:
        return None
    return first_date(first)


def first_date(text: str) -> dt.date | None:
    """The leftmost valid date in ``text`` in any of the supported written forms."""
    candidates: list[tuple[int, dt.date]] = []
    for pattern in _TEXT_DATES:
        for match in pattern.finditer(text):
            found = _make_date(match)
            if found is not None:
                candidates.append((match.start(), found))
                break
    return min(candidates)[1] if candidates else None


def _date_at(text: str) -> dt.date | None:
    """A date right at the start of ``text``."""
    for pattern in _TEXT_DATES:
        match = pattern.match(text.lstrip())
        if match:
            found = _make_date(match)
            if found is not None:
                return found
    return None


def _make_date(match: re.Match[str]) -> dt.date | None:
    month = match.group("month")
    number = int(month) if month.isdigit() else _MONTHS.get(month.lower().rstrip("."))
    if number is None:
        return None
    return _valid(int(match.group("year")), number, int(match.group("day")))


def _valid(year: int, month: int, day: int) -> dt.date | None:
    if year not in _YEARS:
        return None
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def _strip_markup(line: str) -> str:
    return line.strip().strip("*_#>| \t").strip()


# --- file names ----------------------------------------------------------------------------

_NAME_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<!\d)(\d{4})[-_.](\d{2})[-_.](\d{2})(?!\d)"), "ymd"),
    (re.compile(r"(?<!\d)(\d{4})(\d{2})(\d{2})(?!\d)"), "ymd"),
    (re.compile(r"(?<!\d)(\d{2})(\d{2})(\d{4})(?!\d)"), "dmy"),
    (re.compile(r"(?<!\d)(\d{1,2})-(\d{1,2})-(\d{4})(?!\d)"), "dmy"),
    (re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4}|\d{2})(?![\d.]*\d)"), "dmy"),
    (re.compile(r"(?<!\d)(\d{2})-(\d{2})-(\d{2})(?!\d)"), "ymd"),
    (re.compile(r"^(\d{2})(\d{2})(\d{2})(?!\d)"), "dmy"),
)


def name_date(file_name: str) -> dt.date | None:
    """A plausible date written in a file name (folders and extension are ignored)."""
    stem = PurePath(PurePath(file_name).name).stem
    for pattern, order in _NAME_PATTERNS:
        for match in pattern.finditer(stem):
            found = _name_match_date(match.groups(), order)
            if found is not None:
                return found
    return None


def _name_match_date(parts: tuple[str, ...], order: str) -> dt.date | None:
    first, second, third = parts
    if order == "ymd":
        year, month, day = first, second, third
    else:
        day, month, year = first, second, third
    return _valid(_full_year(year), int(month), int(day))


def _full_year(year: str) -> int:
    """Two-digit years are read as 1970-2069."""
    value = int(year)
    if len(year) == 2:
        return value + (1900 if value >= 70 else 2000)
    return value
