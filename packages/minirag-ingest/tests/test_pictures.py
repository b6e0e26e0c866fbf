"""Embedded pictures with an OCR engine: where their text goes, which are skipped, the budget.

The engine here is a stand-in that "recognises" the word a generated PNG carries in a text
chunk, so these tests need no OCR model; packages/minirag-ocr/tests/test_pictures_ocr.py reads
drawn words with the real one.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError, convert_file
from minirag_ingest.conversion.pictures import MAX_PICTURES, PictureCounts, read_pictures, too_small
from minirag_ingest.extras.ocr import OcrError
from minirag_ingest.files.formats import IMAGE_EXTENSIONS
from testsupport.pictures import (
    Picture,
    docx_with_pictures,
    html_with_pictures,
    icon_picture,
    pptx_with_pictures,
    rule_picture,
)

MAX = 50_000_000


def tagged_picture(word: str, size: tuple[int, int] = (300, 120)) -> bytes:
    """A PNG that the stand-in engine reads as ``word``."""
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("word", word)
    buffer = io.BytesIO()
    Image.new("RGB", size, (250, 250, 250)).save(buffer, format="PNG", pnginfo=info)
    return buffer.getvalue()


class TagEngine:
    """Reads the ``word`` text chunk of a PNG; records how many pictures it was asked about."""

    name = "tagocr"
    image_extensions = IMAGE_EXTENSIONS

    def __init__(self) -> None:
        self.calls = 0

    def recognise_image(self, path: Path) -> list[str]:
        from PIL import Image

        self.calls += 1
        with Image.open(path) as image:
            return [str(image.info.get("word", ""))]

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        return {}


class BrokenEngine(TagEngine):
    def recognise_image(self, path: Path) -> list[str]:
        raise OcrError("cannot load the OCR model for RAG_OCR_LANG=eslav: download failed")


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def write(path: Path, data: bytes | str) -> Path:
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def test_a_docx_picture_is_read_where_it_stood_after_its_alt_text(tmp_path: Path) -> None:
    doc = write(
        tmp_path / "form.docx",
        docx_with_pictures(
            [
                "The order form is shown below.",
                Picture(tagged_picture("KESTREL-4821"), "screenshot of the order form"),
                "Fill it in before Friday.",
            ]
        ),
    )
    converted = convert_file(doc, max_file_size=MAX, ocr=TagEngine())
    text = converted.markdown
    assert "KESTREL-4821" in text
    assert text.index("shown below") < text.index("screenshot of the order form")
    assert text.index("screenshot of the order form") < text.index("[picture text]")
    assert text.index("KESTREL-4821") < text.index("before Friday")
    assert "> [picture text]\n> KESTREL-4821\n" in text
    assert "base64" not in text
    assert converted.ocr_engine == "tagocr"
    assert converted.pictures == PictureCounts(held=1, read=1, skipped=0)

    plain = convert_file(doc, max_file_size=MAX)  # no engine: alt text only, as before
    assert "KESTREL" not in plain.markdown and "[picture text]" not in plain.markdown
    assert "screenshot of the order form" in plain.markdown
    assert plain.pictures is None and plain.ocr_engine == ""


def test_pptx_and_html_pictures_are_read(tmp_path: Path) -> None:
    deck = write(
        tmp_path / "deck.pptx",
        pptx_with_pictures([("Pump room", [Picture(tagged_picture("VALVE-77B"), "valve")])]),
    )
    page = write(
        tmp_path / "page.html",
        html_with_pictures(["Welcome", Picture(tagged_picture("MARIGOLD"), "banner")]),
    )
    for path, word, alt in ((deck, "VALVE-77B", "valve"), (page, "MARIGOLD", "banner")):
        converted = convert_file(path, max_file_size=MAX, ocr=TagEngine())
        assert f"{alt}\n\n> [picture text]\n> {word}" in converted.markdown, converted.markdown
        assert converted.pictures == PictureCounts(held=1, read=1, skipped=0)


def test_icons_rules_and_pictures_without_text_add_nothing(tmp_path: Path) -> None:
    engine = TagEngine()
    doc = write(
        tmp_path / "letter.docx",
        docx_with_pictures(
            [
                "Dear customer,",
                Picture(icon_picture(), "phone icon"),
                Picture(rule_picture(), ""),
                Picture(tagged_picture(""), "company logo"),  # recognises to nothing
                Picture(tagged_picture("7"), "seal"),  # too little to be text
                "Regards.",
            ]
        ),
    )
    converted = convert_file(doc, max_file_size=MAX, ocr=engine)
    plain = convert_file(doc, max_file_size=MAX).markdown
    assert converted.markdown.split() == plain.split()  # the same words as without OCR
    assert "[picture text]" not in converted.markdown
    assert "company logo" in converted.markdown and "phone icon" in converted.markdown
    assert converted.ocr_engine == ""  # nothing recognised was added
    assert converted.pictures == PictureCounts(held=4, read=2, skipped=2)
    assert engine.calls == 2  # the icon and the rule were never sent to the engine


@pytest.mark.parametrize(
    ("size", "small"),
    [
        ((32, 32), True),  # an icon
        ((64, 48), True),  # a bullet or a small icon
        ((600, 4), True),  # a rule
        ((1200, 30), True),  # a border strip, 40 times as long as it is high
        ((300, 17), True),  # too thin for a line of text
        ((300, 20), False),  # one line of text
        ((220, 220), False),  # a logo: read (it may hold the company's name)
        ((1024, 640), False),  # a screenshot
    ],
)
def test_size_rule(size: tuple[int, int], small: bool) -> None:
    assert too_small(*size) is small
    assert too_small(*reversed(size)) is small


def test_the_budget_bounds_the_pictures_read(tmp_path: Path) -> None:
    engine = TagEngine()
    count = MAX_PICTURES + 12
    doc = write(
        tmp_path / "album.docx",
        docx_with_pictures([Picture(tagged_picture(f"WORD{n:03d}")) for n in range(count)]),
    )
    converted = convert_file(doc, max_file_size=MAX, ocr=engine)
    assert converted.pictures == PictureCounts(held=count, read=MAX_PICTURES, skipped=12)
    assert engine.calls == MAX_PICTURES
    assert f"WORD{MAX_PICTURES - 1:03d}" in converted.markdown
    assert f"WORD{MAX_PICTURES:03d}" not in converted.markdown  # in document order


def test_no_time_left_skips_the_rest() -> None:
    markdown = f"![a]({data_uri(tagged_picture('ALPHA'))})\n"
    engine = TagEngine()
    text, counts, added = read_pictures(markdown, engine, seconds=0)
    assert (text, counts, added) == ("a\n", PictureCounts(held=1, read=0, skipped=1), False)
    assert engine.calls == 0


def test_a_repeated_picture_is_read_once_and_its_text_put_once() -> None:
    uri = data_uri(tagged_picture("HEADER-LOGO"))
    markdown = f"Slide one\n\n![logo]({uri})\n\nSlide two\n\n![logo]({uri})\n"
    engine = TagEngine()
    text, counts, _ = read_pictures(markdown, engine)
    assert text.count("HEADER-LOGO") == 1 and engine.calls == 1
    assert counts == PictureCounts(held=2, read=1, skipped=1)


def test_a_picture_in_a_table_row_keeps_the_row_whole() -> None:
    uri = data_uri(tagged_picture("STAMP-9"))
    markdown = f"| item | proof |\n| --- | --- |\n| boiler | ![stamp]({uri}) |\n"
    text, _, _ = read_pictures(markdown, TagEngine())
    assert text.splitlines()[2] == "| boiler | stamp [picture text: STAMP-9] |"


def test_fenced_code_and_undecodable_pictures_are_left_alone() -> None:
    uri = data_uri(tagged_picture("INSIDE"))
    svg = "data:image/svg+xml;base64," + base64.b64encode(b"<svg/>").decode()
    broken = "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\nbroken").decode()
    markdown = f"```\n![code]({uri})\n```\n\n![vector]({svg})\n\n![torn]({broken})\n"
    engine = TagEngine()
    text, counts, added = read_pictures(markdown, engine)
    assert text.startswith(f"```\n![code]({uri})\n```\n")  # code stays as written
    assert "vector" in text and "torn" in text and "data:" not in text.split("```")[2]
    assert counts == PictureCounts(held=2, read=0, skipped=2) and not added
    assert engine.calls == 0


def test_an_engine_failure_fails_the_document_naming_it(tmp_path: Path) -> None:
    doc = write(tmp_path / "form.docx", docx_with_pictures([Picture(tagged_picture("X-1"))]))
    with pytest.raises(ConversionError) as caught:
        convert_file(doc, max_file_size=MAX, ocr=BrokenEngine())
    assert "form.docx" in str(caught.value)
    assert "OCR of an embedded picture failed" in caught.value.reason
    assert isinstance(caught.value.__cause__, OcrError)  # may pass next time: not remembered


def xlsx_with_picture(path: Path, png: bytes) -> Path:
    from openpyxl import Workbook
    from openpyxl.drawing.image import Image

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Stock"
    sheet.append(["item", "quantity"])
    sheet.append(["bolt", 4])
    sheet.add_image(Image(io.BytesIO(png)), "D2")
    book.save(path)
    return path


def test_a_workbook_picture_is_read_after_its_sheet_table(tmp_path: Path) -> None:
    book = xlsx_with_picture(tmp_path / "stock.xlsx", tagged_picture("OSPREY"))
    converted = convert_file(book, max_file_size=MAX, ocr=TagEngine())
    text = converted.markdown
    assert text.index("| bolt | 4 |") < text.index("> [picture text]\n> OSPREY")
    assert converted.pictures == PictureCounts(held=1, read=1, skipped=0)
    assert "OSPREY" not in convert_file(book, max_file_size=MAX).markdown

    blank = xlsx_with_picture(tmp_path / "blank.xlsx", tagged_picture(""))
    with_ocr = convert_file(blank, max_file_size=MAX, ocr=TagEngine()).markdown
    assert with_ocr == convert_file(blank, max_file_size=MAX).markdown  # no empty heading


def test_picture_text_chunks_within_budget_and_rebuilds_exactly(
    tmp_path: Path, token_counter: Callable[[str], int]
) -> None:
    from minirag_index import rebuild_document
    from minirag_ingest.chunking import chunk_markdown

    long_text = "\n".join(
        f"Field {n}: customer code CX-{1000 + n} approved by the regional office" for n in range(40)
    )
    paragraphs = [f"Paragraph {n} describes step {n} of the ordering process." for n in range(30)]
    doc = write(
        tmp_path / "spec.docx",
        docx_with_pictures(
            [*paragraphs[:15], Picture(tagged_picture(long_text), "form"), *paragraphs[15:]]
        ),
    )
    with_ocr = convert_file(doc, max_file_size=MAX, ocr=TagEngine()).markdown
    without = convert_file(doc, max_file_size=MAX).markdown
    # nothing dropped: without the picture block, the same words in the same order
    kept = [w for line in with_ocr.splitlines() if not line.startswith(">") for w in line.split()]
    assert kept == without.split()
    chunked = chunk_markdown(with_ocr, count_tokens=token_counter, budget=110)
    assert all(token_counter(chunk.text) <= 110 for chunk in chunked.chunks)
    assert rebuild_document(chunked.chunks) == with_ocr.strip()
    bodies = " ".join(chunk.body for chunk in chunked.chunks)
    assert all(f"CX-{1000 + n}" in bodies for n in range(40))
