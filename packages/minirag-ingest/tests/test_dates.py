from __future__ import annotations

import datetime as dt

import pytest

from minirag_ingest.document.dates import DocDate, document_date, header_date, name_date

D = dt.date(2026, 8, 12)


@pytest.mark.parametrize(
    "header",
    [
        "Date: 12.08.2026\nTo: all staff",
        "**Date:** 2026-08-12\n",
        "__Date__: 12/08/2026",
        "| Date: | 12 August 2026 |",
        "From: Anna\nSent: Wednesday, August 12, 2026 10:32 AM\nTo: John",
        "Дата: 12.08.2026",
        "**Дата:** 12 августа 2026 г.",
        "От: Анна\nОтправлено: среда, 12 августа 2026 г. 10:32\nКому: Иван",
    ],
)
def test_header_fields(header: str) -> None:
    assert header_date("Some memo title\n\n" + header + "\n\nBody.") == D


def test_teams_recording_header() -> None:
    md = "Weekly warehouse sync\nAugust 12, 2026, 10:32AM\n\n42m 10s\n\nAnna Petrova 0:03\nHello"
    assert header_date(md) == D
    assert header_date("Еженедельная планёрка\n12 августа 2026 г., 10:32\n\nтекст") == D


@pytest.mark.parametrize(
    "line",
    [
        "Wednesday, 12 August 2026",
        "Wednesday, August 12, 2026",
        "**Wednesday, 12 August 2026**",
        "среда, 12 августа 2026 г.",
    ],
)
def test_printed_weekday_line(line: str) -> None:
    assert header_date("Minutes of the board meeting\n\n" + line + "\n\nPresent: ...") == D


def test_russian_outgoing_number() -> None:
    md = "ООО «Ромашка»\nг. Москва\n\nИсх. № 123/45 от 12.08.2026\n\nГенеральному директору"
    assert header_date(md) == D
    assert header_date("ООО «Ромашка»\nисх. №7 от «12» августа 2026 г.\n") == D


@pytest.mark.parametrize(
    "first_line",
    [
        "Protocol 2026-08-12",
        "Protocol of 12.08.2026",
        "Protocol of 12/08/2026",
        "Report, 12 August 2026",
        "Report, August 12, 2026",
        "Протокол совещания от 12 августа 2026 г.",
    ],
)
def test_date_in_short_first_line(first_line: str) -> None:
    assert header_date(f"{first_line}\n\nBody without dates.") == D


def test_long_first_line_is_prose() -> None:
    line = "As agreed in the contract of 12.08.2026, " + "the supplier delivers goods. " * 8
    assert len(line) > 200
    assert header_date(line + "\n\nMore.") is None


def test_invalid_dates_are_ignored() -> None:
    assert header_date("Date: 31.02.2026\n") is None
    assert header_date("Protocol 31.02.2026 / 12.08.2026\n") == D


def test_cover_letter_keeps_header_date() -> None:
    md = (
        "Исх. № 15/08 от 12.08.2026\n\n"
        "Уважаемый Иван Иванович!\n\n"
        "Направляем дополнительное соглашение к договору поставки № 44 от 03.02.2021 "
        "и акт сверки на 01.07.2026.\n"
    )
    assert document_date(md, "letter 01.01.2020.docx", 0.0) == DocDate(D, "document")
    md_en = (
        "Date: 12 August 2026\n\nDear John,\n\n"
        "Further to our contract dated 3 February 2021 and the amendment of 2024-05-01, ...\n"
    )
    assert document_date(md_en, None, None) == DocDate(D, "document")


def test_body_dates_are_never_used() -> None:
    md = "Dear John,\n\n" + "Filler text without any dates. " * 60 + "\nSigned on 12.08.2026.\n"
    assert md.index("12.08.2026") > 1500
    assert header_date(md) is None
    assert document_date(md, "letter.docx", None) is None
    # a date inside the first 1,500 characters but in running prose is ignored too
    assert (
        header_date("Dear John,\n\nWe refer to the contract of 03.02.2021 signed by...\n") is None
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("2026-08-12 weekly sync.md", D),
        ("minutes_20260812.docx", D),
        ("scan 12082026.pdf", D),
        ("12-08-2026 act.pdf", D),
        ("act 12.08.26.pdf", D),
        ("act 12.08.2026.pdf", D),
        ("26-08-12 notes.md", D),
        ("120826 notes.md", D),
        ("IMG_20260812_123456.jpg", D),
        ("/docs/2025/SPEC-112_Warehouse stock.docx", None),
        ("v1.2.3 release.txt", None),
        ("123456 report.md", None),
        ("99999999.pdf", None),
        ("31.02.2026 act.pdf", None),
    ],
)
def test_file_name_dates(name: str, expected: dt.date | None) -> None:
    assert name_date(name) == expected


def test_source_order() -> None:
    mtime = dt.datetime(2024, 1, 2, 12, 0).timestamp()
    assert document_date("Date: 12.08.2026", "2025-01-01.md", mtime) == DocDate(D, "document")
    assert document_date("no date", "2026-08-12.md", mtime) == DocDate(D, "name")
    assert document_date("no date", "notes.md", mtime) == DocDate(dt.date(2024, 1, 2), "file")
    assert document_date("no date", "notes.md", None) is None
