"""Real recognition on generated scans with the model bundled in rapidocr-onnxruntime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex
from minirag_ingest.conversion.convert import convert_file
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.extras.ocr import IMAGE_EXTENSIONS, OcrEngine
from minirag_ingest.files.roots import Roots
from minirag_ingest.settings import load_settings
from minirag_ocr.engine import layout_text
from testsupport.documents import page_image, pdf_with_pages

pytestmark = pytest.mark.slow

MAX = 50_000_000
REPORT = [
    "Quarterly maintenance report",
    "The pump station at Riverside was inspected",
    "on 12 March by Alice Morgan.",
]


def squashed(text: str) -> str:
    """Lower case without whitespace, so a dropped space between words does not matter."""
    return "".join(text.split()).lower()


def assert_reads(text: str, *phrases: str) -> None:
    for phrase in phrases:
        assert squashed(phrase) in squashed(text), f"{phrase!r} not recognised in {text!r}"


def test_engine_satisfies_the_interface(ocr_engine: Any) -> None:
    assert isinstance(ocr_engine, OcrEngine)
    assert ocr_engine.name == "rapidocr"
    assert ocr_engine.image_extensions == IMAGE_EXTENSIONS


def test_png_page_is_read(ocr_engine: Any, tmp_path: Path) -> None:
    path = tmp_path / "report.png"
    page_image([*REPORT, "", "", "Invoice 48213 totals 1290 dollars."]).save(path)
    [text] = ocr_engine.recognise_image(path)
    assert_reads(text, *REPORT, "Invoice 48213")
    # Lines in reading order; the blank gap starts a new paragraph.
    assert squashed(text).index("quarterly") < squashed(text).index("riverside")
    assert "\n\n" in text


def test_transparent_png_is_read_on_white(ocr_engine: Any, tmp_path: Path) -> None:
    image = page_image(["Transparent background label"]).convert("LA")
    alpha = image.getchannel("L").point(lambda v: 255 - v)  # text opaque, paper transparent
    image.putalpha(alpha)
    path = tmp_path / "label.png"
    image.save(path)
    assert_reads(ocr_engine.recognise_image(path)[0], "Transparent background label")


def test_three_page_tiff_is_read_page_by_page(ocr_engine: Any, tmp_path: Path) -> None:
    pages = [
        page_image(["First page of the fax", "Delivery note 7781"], size=(1000, 740)),
        page_image(["Second page lists the pallets"], size=(1000, 740)),
        page_image(["Third page carries the signature"], size=(1000, 740)),
    ]
    path = tmp_path / "fax.tiff"
    pages[0].save(path, save_all=True, append_images=pages[1:], compression="tiff_deflate")
    texts = ocr_engine.recognise_image(path)
    assert len(texts) == 3
    assert_reads(texts[0], "First page of the fax", "7781")
    assert_reads(texts[1], "Second page lists the pallets")
    assert_reads(texts[2], "Third page carries the signature")

    converted = convert_file(path, max_file_size=MAX, ocr=ocr_engine)
    assert converted.ocr_engine == "rapidocr"
    assert converted.pages is None
    body = squashed(converted.markdown)
    assert body.index("firstpage") < body.index("secondpage") < body.index("thirdpage")


def test_image_without_text_gives_no_text(ocr_engine: Any, tmp_path: Path) -> None:
    path = tmp_path / "blank.jpg"
    page_image([], size=(400, 300)).save(path)
    assert ocr_engine.recognise_image(path) == [""]


def test_unreadable_image_is_a_per_file_error(ocr_engine: Any, tmp_path: Path) -> None:
    from minirag_ingest.conversion.convert import ConversionError

    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(ConversionError, match=r"broken\.png: OCR failed: cannot read the image"):
        convert_file(path, max_file_size=MAX, ocr=ocr_engine)


def test_recognition_out_of_memory_is_a_memory_error_not_a_recognition_failure(
    tmp_path: Path,
) -> None:
    """onnxruntime reports a failed allocation as a runtime error ("std::bad_alloc"); in a
    conversion worker a MemoryError becomes "needs more than 1 GB to convert", which names the
    setting that helps, where "text recognition failed" would not."""
    from minirag_ocr.engine import RapidOcrEngine

    def exhausted(image: object) -> tuple[list, float]:
        raise RuntimeError("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : std::bad_alloc")

    engine = RapidOcrEngine("ch", tmp_path / "cache")
    engine._ocr = exhausted  # what the model would do with the address space used up
    path = tmp_path / "page.png"
    page_image(["A page"], size=(400, 300)).save(path)
    with pytest.raises(MemoryError, match="ran out of memory"):
        engine.recognise_image(path)


SCANNED = [
    "Scanned appendix about the boiler",
    "Pressure was measured at 14 bar",
    "and the valve was replaced in May.",
]


def test_pdf_second_page_is_recognised(ocr_engine: Any, tmp_path: Path) -> None:
    pdf = tmp_path / "inspection.pdf"
    typed = "Inspection summary written on a computer, with a real text layer."
    pdf.write_bytes(pdf_with_pages([typed, page_image(SCANNED, size=(1275, 1650), text_px=40)]))
    converted = convert_file(pdf, max_file_size=MAX, ocr=ocr_engine)
    assert converted.ocr_engine == "rapidocr"
    assert converted.markdown.startswith("Inspection summary")
    assert_reads(converted.markdown, *SCANNED)
    assert converted.pages is not None and len(converted.pages) == 2
    assert_reads(converted.pages[1], *SCANNED)
    assert "boiler" not in converted.pages[0].lower()


def test_pdf_page_numbers_through_the_pipeline(
    ocr_engine: Any, tmp_path: Path, model_dir: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    typed = "Inspection summary written on a computer, with a real text layer."
    pdf = docs / "inspection.pdf"
    pdf.write_bytes(pdf_with_pages([typed, page_image(SCANNED, size=(1275, 1650), text_px=40)]))
    embedder = Embedder(str(model_dir), tmp_path / "cache")
    settings = IndexSettings(
        DB_PATH=tmp_path / "db",
        MODEL_NAME=embedder.model_name,
        CACHE_DIR=embedder.cache_dir,
    )
    # Small chunks, so the recognised lines get chunks of their own.
    ingest = load_settings(chunk_token_budget=16)
    pipeline = Pipeline(
        MiniragIndex(settings, embedder=embedder), Roots([docs]), ingest, ocr=ocr_engine
    )
    prepared = pipeline.prepare_file(pdf)
    assert prepared.doc.ocr_engine == "rapidocr"
    pages = {c.text[c.context_chars :]: c.pages for c in prepared.chunks}
    boiler = [p for body, p in pages.items() if "boiler" in body.lower()]
    assert boiler and all(p in ("2", "1-2") for p in boiler)
    assert "2" in pages.values()


def test_layout_groups_lines_and_paragraphs() -> None:
    def box(x: float, y: float, w: float = 100, h: float = 20) -> list[list[float]]:
        return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]

    result = [
        [box(300, 102), "right", 0.9],
        [box(10, 100), "left", 0.9],
        [box(10, 130), "second line", 0.9],
        [box(10, 220), "# new paragraph", 0.9],
        [box(10, 400), "   ", 0.9],
    ]
    assert layout_text(result) == "left right\nsecond line\n\n\\# new paragraph"
    assert layout_text([]) == ""
