from __future__ import annotations

import json
from pathlib import Path

import pytest

from minirag_ingest.conversion import convert as convert_module
from minirag_ingest.conversion import markitdown_run
from minirag_ingest.conversion.convert import (
    ConversionError,
    Converted,
    convert_content,
    convert_file,
    strip_inline_images,
)
from minirag_ingest.conversion.pages import chunk_pages
from minirag_ingest.extras.install import install_hint
from testsupport.documents import docx_bytes, zip_bytes

BIG = 10 * 1024 * 1024
PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="  # noqa: E501


# --- small real files, written by hand -----------------------------------------------------


# A minimal .docx and a zip of text files (shared with the fuzz set in testsupport).
_docx = docx_bytes
_zip = zip_bytes


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


# --- formats ---------------------------------------------------------------------------------


def test_docx(tmp_path: Path) -> None:
    data = _docx([("Heading1", "Warehouse stock"), (None, "Stock is counted monthly.")])
    result = convert_file(
        _write(tmp_path, "SPEC-112_Warehouse stock.docx", data), max_file_size=BIG
    )
    assert isinstance(result, Converted)
    assert result.kind == "docx"
    assert "# Warehouse stock" in result.markdown
    assert "Stock is counted monthly." in result.markdown
    assert result.metadata_title is None
    assert result.pages is None


def test_pptx(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly results"
    slide.placeholders[1].text = "Revenue grew in every region"
    path = tmp_path / "deck.pptx"
    deck.save(path)
    result = convert_file(path, max_file_size=BIG)
    assert result.kind == "pptx"
    assert "Quarterly results" in result.markdown
    assert "Revenue grew in every region" in result.markdown


def test_xlsx(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["Item", "Qty"])
    sheet.append(["Bolts", 100])
    path = tmp_path / "stock.xlsx"
    book.save(path)
    result = convert_file(path, max_file_size=BIG)
    assert result.kind == "xlsx"
    assert "## Stock" in result.markdown
    assert "Bolts" in result.markdown and "100" in result.markdown


def test_pdf_pages(make_pdf, tmp_path: Path) -> None:
    path = _write(tmp_path, "policy.pdf", make_pdf(["Scope of the stock policy", "Counting rules"]))
    result = convert_file(path, max_file_size=BIG)
    assert result.kind == "pdf"
    assert "Scope of the stock policy" in result.markdown
    assert "\f" not in result.markdown
    assert result.pages is not None and len(result.pages) == 2
    assert chunk_pages("Counting rules", result.pages) == "2"
    assert chunk_pages("Scope of the stock policy", result.pages) == "1"


def test_pdf_without_text_layer_is_a_scan(make_pdf, tmp_path: Path) -> None:
    path = _write(tmp_path, "scan0001.pdf", make_pdf(["", ""]))
    with pytest.raises(ConversionError) as info:
        convert_file(path, max_file_size=BIG)
    message = str(info.value)
    assert "scan0001.pdf" in message
    assert "scan" in message
    assert install_hint("ocr") in message
    assert "\n" not in message


def test_html_title_and_images(tmp_path: Path) -> None:
    html = (
        "<html><head><title>Stock  policy</title></head><body><h1>Intro</h1>"
        f'<p>Text <img alt="company logo" src="{PNG}"> and '
        '<img alt="chart" src="images/chart.png"></p></body></html>'
    )
    result = convert_file(_write(tmp_path, "page.htm", html), max_file_size=BIG)
    assert result.kind == "htm"
    assert result.metadata_title == "Stock policy"
    assert "data:" not in result.markdown
    assert "company logo" in result.markdown
    assert "![chart](images/chart.png)" in result.markdown


def test_csv_markdown_text(tmp_path: Path) -> None:
    csv = convert_file(_write(tmp_path, "t.csv", "name,qty\nbolts,100\n"), max_file_size=BIG)
    assert "| name | qty |" in csv.markdown and "bolts" in csv.markdown
    md = convert_file(_write(tmp_path, "n.markdown", "# Title\n\nBody\n"), max_file_size=BIG)
    assert md.markdown.startswith("# Title") and md.kind == "markdown"
    txt = convert_file(_write(tmp_path, "n.txt", "Привет, мир\n"), max_file_size=BIG)
    assert "Привет, мир" in txt.markdown


def test_ipynb(tmp_path: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "Some notes"]},
            {
                "cell_type": "code",
                "metadata": {},
                "source": ["print('hi')"],
                "outputs": [],
                "execution_count": None,
            },
        ],
        "metadata": {"title": "Stock analysis"},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    result = convert_file(_write(tmp_path, "a.ipynb", json.dumps(notebook)), max_file_size=BIG)
    assert "# Analysis" in result.markdown and "print('hi')" in result.markdown
    assert result.metadata_title == "Stock analysis"


def test_epub(tmp_path: Path) -> None:
    files = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": (
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>"
        ),
        "OEBPS/content.opf": (
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">'
            '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Stock Book'
            "</dc:title></metadata><manifest>"
            '<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
            '<spine><itemref idref="c1"/></spine></package>'
        ),
        "OEBPS/c1.xhtml": (
            '<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Chapter one</h1>'
            "<p>Bolts and nuts.</p></body></html>"
        ),
    }
    result = convert_file(_write(tmp_path, "book.epub", _zip(files)), max_file_size=BIG)
    assert result.metadata_title == "The Stock Book"
    assert "Bolts and nuts." in result.markdown


def test_vtt_goes_through_our_reader(tmp_path: Path) -> None:
    vtt = "WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v Anna>Hello</v>\n"
    result = convert_file(_write(tmp_path, "call.vtt", vtt), max_file_size=BIG)
    assert result.markdown == "**Anna** 00:01\nHello\n"
    assert result.kind == "vtt"


# --- failures --------------------------------------------------------------------------------


def test_size_limit_is_checked_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: object) -> None:
        raise AssertionError("markitdown must not be reached")

    monkeypatch.setattr(markitdown_run, "shared_markitdown", explode)
    monkeypatch.setattr(markitdown_run, "binary_converter", explode)
    monkeypatch.setattr(markitdown_run, "run_markitdown", explode)
    monkeypatch.setattr(convert_module, "run_markitdown", explode)
    path = _write(tmp_path, "huge.docx", b"x" * 2048)
    with pytest.raises(ConversionError) as info:
        convert_file(path, max_file_size=1024)
    message = str(info.value)
    assert "huge.docx" in message
    assert "2048" in message and "1024" in message
    assert "MAX_FILE_SIZE" in message


def test_corrupt_docx_is_a_one_line_failure(tmp_path: Path) -> None:
    for name, data in [
        ("broken.docx", b"PK\x03\x04 this is not really a zip file"),
        ("zip.docx", _zip({"a.txt": "not a word document"})),
        ("broken.pdf", b"%PDF-1.4 truncated garbage"),
        ("broken.xlsx", b"not a workbook"),
    ]:
        with pytest.raises(ConversionError) as info:
            convert_file(_write(tmp_path, name, data), max_file_size=BIG)
        message = str(info.value)
        assert message.startswith(f"{name}: ")
        assert "\n" not in message


def test_unsupported_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(ConversionError, match="unsupported"):
        convert_file(_write(tmp_path, "a.exe", b"MZ"), max_file_size=BIG)
    with pytest.raises(ConversionError, match="cannot read"):
        convert_file(tmp_path / "missing.pdf", max_file_size=BIG)


# --- handed-in content -----------------------------------------------------------------------


def test_convert_content() -> None:
    assert convert_content("plain ![x](data:image/png;base64,AAA)", "text").markdown == (
        "plain ![x](data:image/png;base64,AAA)"
    )
    md = convert_content("# T\n\n![logo](data:image/png;base64,AAA)", "markdown")
    assert md.markdown == "# T\n\nlogo"
    html = convert_content("<title>Doc</title><h1>Heading</h1><p>Body</p>", "html")
    assert html.metadata_title == "Doc"
    assert "# Heading" in html.markdown and html.kind == "html"


# --- inline images ---------------------------------------------------------------------------


def test_data_images_replaced_outside_code_fences_only() -> None:
    md = (
        "Intro ![Org chart](data:image/png;base64...) end\n"
        "![](data:image/jpeg;base64,/9j/4AAQ)\n"
        "```html\n![kept](data:image/png;base64,AAA)\n```\n"
        "~~~~\n```\n![kept too](data:image/png;base64,BBB)\n~~~~\n"
        "![photo](images/photo.png) ![remote](https://example.com/a.png)\n"
    )
    assert strip_inline_images(md) == (
        "Intro Org chart end\n"
        "\n"
        "```html\n![kept](data:image/png;base64,AAA)\n```\n"
        "~~~~\n```\n![kept too](data:image/png;base64,BBB)\n~~~~\n"
        "![photo](images/photo.png) ![remote](https://example.com/a.png)\n"
    )


def test_docx_embedded_picture_keeps_only_alt(tmp_path: Path) -> None:
    html = f'<p>Before <img alt="Signature stamp" src="{PNG}"> after</p>'
    result = convert_content(html, "html")
    assert "data:" not in result.markdown
    assert "Signature stamp" in result.markdown
