"""Pictures embedded in office documents, read by the real engine (the bundled ``ch`` model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import require_module
from minirag_ingest.conversion.convert import convert_file
from minirag_ingest.conversion.pictures import MAX_PICTURES
from minirag_ingest.conversion.pool import ConversionPool, PoolLimits
from minirag_ingest.conversion.reading import ReadRequest
from minirag_ingest.settings import DEFAULT_CONVERT_MAX_MEMORY, DEFAULT_CONVERT_TIMEOUT
from testsupport.pictures import Picture, docx_with_pictures, logo_picture, word_picture

pytestmark = pytest.mark.slow

MAX = 50_000_000


@pytest.fixture(autouse=True)
def _needs_rapidocr() -> None:
    require_module("rapidocr_onnxruntime", "ocr")


def test_a_word_drawn_in_a_docx_picture_is_read(ocr_engine: Any, tmp_path: Path) -> None:
    doc = tmp_path / "form.docx"
    doc.write_bytes(
        docx_with_pictures(
            ["The form follows.", Picture(word_picture("KESTREL"), "screenshot"), "End."]
        )
    )
    converted = convert_file(doc, max_file_size=MAX, ocr=ocr_engine)
    assert "screenshot\n\n> [picture text]\n> KESTREL\n" in converted.markdown
    assert converted.ocr_engine == "rapidocr"
    assert (converted.pictures.held, converted.pictures.read) == (1, 1)  # type: ignore[union-attr]


def test_a_logo_only_picture_adds_no_text(ocr_engine: Any, tmp_path: Path) -> None:
    doc = tmp_path / "letterhead.docx"
    doc.write_bytes(docx_with_pictures([Picture(logo_picture(), "company logo"), "Dear all."]))
    converted = convert_file(doc, max_file_size=MAX, ocr=ocr_engine)
    assert converted.markdown == "company logo\n\nDear all.\n"
    assert converted.ocr_engine == ""
    assert converted.pictures is not None and converted.pictures.read == 1  # it was looked at


def test_a_300_picture_document_completes_within_the_conversion_limits(
    ocr_engine: Any, tmp_path: Path
) -> None:
    doc = tmp_path / "album.docx"
    words = [f"ITEM{n:03d}" for n in range(300)]
    doc.write_bytes(docx_with_pictures([Picture(word_picture(w, (260, 80), 40)) for w in words]))
    limits = PoolLimits(
        max_memory=DEFAULT_CONVERT_MAX_MEMORY, timeout=DEFAULT_CONVERT_TIMEOUT, workers=1
    )
    pool = ConversionPool(limits, ocr=ocr_engine)
    try:
        read = pool.read(ReadRequest(str(doc), (str(tmp_path),), MAX))
    finally:
        pool.stop()
    counts = read.converted.pictures
    assert counts is not None and counts.held == 300
    assert 1 <= counts.read <= MAX_PICTURES and counts.read + counts.skipped == 300
    assert "ITEM000" in read.converted.markdown
    assert "ITEM299" not in read.converted.markdown  # past the budget: counted, not read
