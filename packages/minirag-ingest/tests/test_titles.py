from __future__ import annotations

import pytest

from minirag_ingest.document.titles import (
    choose_title,
    first_h1,
    is_boilerplate_heading,
    is_informative_stem,
    name_title,
    title_prefix_for_chunk,
)


def test_underscores_become_spaces_rest_kept() -> None:
    title = choose_title(
        metadata_title=None, markdown="", file_name="SPEC-112_Warehouse stock.docx"
    )
    assert title == "SPEC-112 Warehouse stock"
    assert name_title("/a/b/И-112_ЗПС_Хранение ТМЗ.docx") == "И-112 ЗПС Хранение ТМЗ"


def test_metadata_title_wins() -> None:
    title = choose_title(
        metadata_title="  Quarterly   report ", markdown="# Heading\n", file_name="x_report.html"
    )
    assert title == "Quarterly report"


def test_real_h1_wins_over_filename() -> None:
    md = "Some preface\n\n# Warehouse stock policy\n\ntext"
    assert choose_title(metadata_title=None, markdown=md, file_name="SPEC-112.docx") == (
        "Warehouse stock policy"
    )


@pytest.mark.parametrize(
    "heading",
    [
        "1. Общие положения",
        "Introduction",
        "1.1 Introduction",
        "Change log",
        "Table of contents",
        "1. General provisions",
        "Лист изменений",
        "Содержание",
        "Оглавление",
        "Введение",
        "2. История изменений:",
        "**Revision history**",
    ],
)
def test_boilerplate_h1_steps_aside_for_informative_name(heading: str) -> None:
    md = f"# {heading}\n\nBody text."
    assert is_boilerplate_heading(heading)
    title = choose_title(metadata_title=None, markdown=md, file_name="И-112_ЗПС_Хранение ТМЗ.docx")
    assert title == "И-112 ЗПС Хранение ТМЗ"


@pytest.mark.parametrize(
    "name", ["Untitled-1.docx", "IMG_20260807_123456.pdf", "Copy of document (2).docx"]
)
def test_machine_names_are_not_informative(name: str) -> None:
    assert not is_informative_stem(name_title(name))
    # a boilerplate H1 still beats a generic name ...
    md = "# 1. General provisions\n\ntext"
    assert choose_title(metadata_title=None, markdown=md, file_name=name) == "1. General provisions"
    # ... and with no H1 at all the stem is all there is
    assert choose_title(metadata_title=None, markdown="text", file_name=name) == name_title(name)


@pytest.mark.parametrize(
    "stem",
    ["Без имени 1", "Новый документ (3)", "Копия документа", "Скан 0001", "Dokument1", "DSC01234",
     "Screenshot 2026-08-07 at 12.34.56", "Снимок экрана 2026-08-07 в 12.34.56", "abc",
     "Sin título", "Sans titre 2", "Unbenannt", "2026-08-07"],
)  # fmt: skip
def test_more_generic_names(stem: str) -> None:
    assert not is_informative_stem(stem)


@pytest.mark.parametrize(
    "stem",
    ["Copy of contract Romashka", "Протокол совещания", "Scan of invoice 4471", "Q3 plan",
     "SPEC-112 Warehouse stock", "Новый регламент склада"],
)  # fmt: skip
def test_real_names_that_contain_generic_words(stem: str) -> None:
    assert is_informative_stem(stem)


def test_picture_only_heading_is_ignored() -> None:
    md = "# ![](media/logo.png)\n\nBody"
    assert is_boilerplate_heading("![](media/logo.png)")
    assert choose_title(metadata_title=None, markdown=md, file_name="Supply contract.docx") == (
        "Supply contract"
    )
    assert choose_title(metadata_title=None, markdown=md, file_name="scan.pdf") == "scan"


def test_h1_in_code_fence_is_not_a_heading() -> None:
    md = "```bash\n# install things\n```\n\n# Real title\n"
    assert first_h1(md) == "Real title"
    assert first_h1("## Only h2\n#hashtag\n") is None


def test_heading_markup_is_removed() -> None:
    assert first_h1(r"# **Stock** policy for [SPEC\_112](x.md) #") == "Stock policy for SPEC_112"


def test_data_and_url_sources_have_no_file_name() -> None:
    assert choose_title(metadata_title=None, markdown="no heading", file_name=None) == ""
    assert choose_title(metadata_title=None, markdown="# Introduction\n", file_name=None) == (
        "Introduction"
    )


def test_title_prefix_is_idempotent() -> None:
    chunk = "First paragraph of the document."
    prefix = title_prefix_for_chunk("SPEC-112 Warehouse stock", chunk)
    assert prefix == "# SPEC-112 Warehouse stock\n\n"
    assert title_prefix_for_chunk("SPEC-112 Warehouse stock", prefix + chunk) is None
    assert title_prefix_for_chunk("Warehouse stock", "# warehouse  stock\n\nbody") is None
    assert title_prefix_for_chunk("", chunk) is None
    # another heading does not count as the title
    assert title_prefix_for_chunk("Stock", "# Introduction\n\nbody") == "# Stock\n\n"
