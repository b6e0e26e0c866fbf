"""The OCR plug-in interface as the base install sees it, with no OCR package needed.

The plug-in is a fake registered through the plug-in seam (:mod:`minirag_ingest.extras.plugins`,
whose discovery test_plugins.py covers), and conversion runs on a fake engine that returns
canned text, so these tests pass with or without the [ocr] extra installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from minirag_index import IndexSettings, MiniragIndex
from minirag_ingest.conversion.convert import ConversionError, convert_file
from minirag_ingest.conversion.pages import PageIndex
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.extras import plugins
from minirag_ingest.extras.install import install_hint
from minirag_ingest.extras.ocr import (
    IMAGE_EXTENSIONS,
    OcrEngine,
    OcrError,
    load_ocr_engine,
    ocr_engine_name,
    ocr_missing,
)
from minirag_ingest.files.roots import Roots
from minirag_ingest.settings import ConfigError, load_settings
from testsupport.documents import blank_pdf

MAX = 10_000_000
SCANNED_TEXT = "Recognised invoice paragraph about turbine blades and their replacement schedule"


class FakeEngine:
    """Returns canned text and records what it was asked for."""

    name = "fake"
    image_extensions = IMAGE_EXTENSIONS

    def __init__(self, pages: dict[int, str] | None = None, frames: list[str] | None = None):
        self.pages = pages or {}
        self.frames = frames or []
        self.asked: list[list[int]] = []
        self.images: list[Path] = []
        self.fail: str | None = None

    def recognise_image(self, path: Path) -> list[str]:
        self.images.append(path)
        if self.fail:
            raise OcrError(self.fail)
        return list(self.frames)

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        self.asked.append(list(page_numbers))
        if self.fail:
            raise OcrError(self.fail)
        return {n: self.pages.get(n, "") for n in page_numbers}


class FakePlugin:
    """An OCR plug-in whose engine is made by ``make(cache_dir)``."""

    name = "rapidocr"

    def __init__(self, make: object) -> None:
        self.make = make

    def create_engine(self, cache_dir: Path) -> object:
        return self.make(cache_dir)  # type: ignore[operator]


def use_plugin(monkeypatch: pytest.MonkeyPatch, plugin: object | None) -> None:
    monkeypatch.setitem(plugins.REGISTERED, plugins.OCR.group, plugin)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


# -- without the extra --------------------------------------------------------------------------


def test_scanned_pdf_fails_naming_the_install_command(tmp_path: Path) -> None:
    pdf = write(tmp_path / "scan.pdf", blank_pdf(3))
    with pytest.raises(ConversionError) as caught:
        convert_file(pdf, max_file_size=MAX)
    assert install_hint("ocr") in str(caught.value)
    assert "scan.pdf" in str(caught.value)


def test_short_text_layer_is_kept_without_the_extra(tmp_path: Path, make_pdf) -> None:
    pdf = write(tmp_path / "cert.pdf", make_pdf(["Certificate", "Signed"]))
    converted = convert_file(pdf, max_file_size=MAX)
    assert "Certificate" in converted.markdown
    assert converted.ocr_engine == ""
    assert converted.pages is not None and len(converted.pages) == 2


def test_images_need_the_extra(tmp_path: Path) -> None:
    image = write(tmp_path / "photo.png", b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ConversionError) as caught:
        convert_file(image, max_file_size=MAX)
    assert install_hint("ocr") in str(caught.value)


def test_no_engine_without_the_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    use_plugin(monkeypatch, None)
    assert ocr_engine_name() is None
    assert load_ocr_engine(tmp_path) is None
    assert ocr_missing() == plugins.missing_extra(plugins.OCR)


def test_an_engine_missing_a_library_counts_as_absent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def missing_library(cache_dir: Path) -> FakeEngine:
        raise ImportError("No module named 'onnxruntime'")

    use_plugin(monkeypatch, FakePlugin(missing_library))
    assert ocr_engine_name() == "rapidocr"  # installed, as status sees it
    assert load_ocr_engine(tmp_path) is None


def test_the_engine_comes_from_the_plugin_with_the_cache_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: list[Path] = []

    def make(cache_dir: Path) -> FakeEngine:
        seen.append(cache_dir)
        return FakeEngine()

    use_plugin(monkeypatch, FakePlugin(make))
    engine = load_ocr_engine(tmp_path)
    assert isinstance(engine, OcrEngine)
    assert seen == [tmp_path]
    assert ocr_missing() is None


def test_an_engine_config_error_propagates(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def bad_language(cache_dir: Path) -> FakeEngine:
        raise ConfigError("RAG_OCR_LANG='xx' is not valid; use one of: eslav", "RAG_OCR_LANG")

    use_plugin(monkeypatch, FakePlugin(bad_language))
    with pytest.raises(ConfigError) as caught:
        load_ocr_engine(tmp_path)
    assert caught.value.variable == "RAG_OCR_LANG"


# -- conversion with an engine ------------------------------------------------------------------


def test_only_short_pages_are_recognised_and_appended(tmp_path: Path, make_pdf) -> None:
    text = "Typed cover sheet with enough characters to count as real text"
    pdf = write(tmp_path / "mixed.pdf", make_pdf([text, "", "7", text]))
    engine = FakeEngine(pages={2: SCANNED_TEXT, 3: "Third page words from the scanner"})
    converted = convert_file(pdf, max_file_size=MAX, ocr=engine)
    assert engine.asked == [[2, 3]]
    markdown = converted.markdown
    # The converted document comes first, untouched; recognised text follows in page order.
    assert markdown.index(text) < markdown.index(SCANNED_TEXT) < markdown.index("Third page")
    assert markdown.rindex(text) < markdown.index(SCANNED_TEXT)
    assert converted.ocr_engine == "fake"
    pages = converted.pages
    assert pages is not None and len(pages) == 4
    index = PageIndex(pages)
    assert index.pages_for(SCANNED_TEXT) == "2"
    assert index.pages_for("Third page words from the scanner") == "3"
    assert index.pages_for(text) is None  # on pages 1 and 4: not certain


def test_fully_scanned_pdf_becomes_a_document(tmp_path: Path) -> None:
    pdf = write(tmp_path / "scan.pdf", blank_pdf(2))
    engine = FakeEngine(pages={1: "First scanned page", 2: SCANNED_TEXT})
    converted = convert_file(pdf, max_file_size=MAX, ocr=engine)
    assert converted.markdown.startswith("First scanned page")
    assert PageIndex(converted.pages or []).pages_for(SCANNED_TEXT) == "2"


def test_min_chars_threshold_is_a_setting(tmp_path: Path, make_pdf) -> None:
    pdf = write(tmp_path / "short.pdf", make_pdf(["Short title page", "Another"]))
    engine = FakeEngine(pages={1: SCANNED_TEXT})
    assert (
        convert_file(pdf, max_file_size=MAX, ocr=engine, ocr_min_chars_per_page=5).ocr_engine == ""
    )
    assert engine.asked == []
    converted = convert_file(pdf, max_file_size=MAX, ocr=engine, ocr_min_chars_per_page=50)
    assert engine.asked == [[1, 2]]
    assert converted.ocr_engine == "fake"


def test_zero_min_chars_turns_pdf_ocr_off(tmp_path: Path, make_pdf) -> None:
    engine = FakeEngine(pages={1: SCANNED_TEXT})
    short = write(tmp_path / "short.pdf", make_pdf(["Hi"]))
    assert (
        "Hi"
        in convert_file(short, max_file_size=MAX, ocr=engine, ocr_min_chars_per_page=0).markdown
    )
    scan = write(tmp_path / "scan.pdf", blank_pdf(1))
    with pytest.raises(ConversionError) as caught:
        convert_file(scan, max_file_size=MAX, ocr=engine, ocr_min_chars_per_page=0)
    assert "RAG_OCR_MIN_CHARS_PER_PAGE=0" in str(caught.value)
    assert engine.asked == []


def test_scan_with_no_recognised_text_fails(tmp_path: Path) -> None:
    pdf = write(tmp_path / "scan.pdf", blank_pdf(2))
    with pytest.raises(ConversionError) as caught:
        convert_file(pdf, max_file_size=MAX, ocr=FakeEngine())
    assert "found no text" in str(caught.value)


def test_recognition_failure_is_a_per_file_error(tmp_path: Path) -> None:
    pdf = write(tmp_path / "scan.pdf", blank_pdf(1))
    engine = FakeEngine(pages={1: SCANNED_TEXT})
    engine.fail = "could not download the OCR model from http://x/m.onnx: HTTP 404"
    with pytest.raises(ConversionError) as caught:
        convert_file(pdf, max_file_size=MAX, ocr=engine)
    assert "HTTP 404" in str(caught.value) and "scan.pdf" in str(caught.value)


def test_image_files_are_read_by_the_engine(tmp_path: Path) -> None:
    image = write(tmp_path / "fax.tiff", b"II*\x00")
    engine = FakeEngine(frames=["Page one of the fax", "", "Page three of the fax"])
    converted = convert_file(image, max_file_size=MAX, ocr=engine)
    assert converted.markdown == "Page one of the fax\n\nPage three of the fax\n"
    assert (converted.pages, converted.kind, converted.ocr_engine) == (None, "tiff", "fake")


def test_oversized_image_is_refused_before_recognition(tmp_path: Path) -> None:
    image = write(tmp_path / "big.png", b"\0" * 100)
    engine = FakeEngine(frames=["x"])
    with pytest.raises(ConversionError, match="MAX_FILE_SIZE"):
        convert_file(image, max_file_size=10, ocr=engine)
    assert engine.images == []


# -- the pipeline -------------------------------------------------------------------------------


@pytest.fixture
def ocr_pipeline(tmp_path: Path, embedder) -> Pipeline:  # type: ignore[no-untyped-def]
    docs = tmp_path / "docs"
    docs.mkdir()
    settings = IndexSettings(
        DB_PATH=tmp_path / "db", MODEL_NAME=embedder.model_name, CACHE_DIR=embedder.cache_dir
    )
    engine = FakeEngine(pages={2: SCANNED_TEXT}, frames=["A whiteboard photo about budgets"])
    return Pipeline(
        MiniragIndex(settings, embedder=embedder), Roots([docs]), load_settings(), ocr=engine
    )


def test_pipeline_records_the_engine_and_pages(
    ocr_pipeline: Pipeline, tmp_path: Path, make_pdf
) -> None:
    docs = tmp_path / "docs"
    assert ocr_pipeline.extensions >= IMAGE_EXTENSIONS
    text = "Typed cover sheet with enough characters to count as real text"
    prepared = ocr_pipeline.prepare_file(write(docs / "report.pdf", make_pdf([text, ""])))
    assert prepared.doc.ocr_engine == "fake"
    # A short document is one chunk: cover text then recognised text, pages 1 to 2.
    [chunk] = prepared.chunks
    assert chunk.text.index(text) < chunk.text.index(SCANNED_TEXT)
    assert chunk.pages == "1-2"

    plain = ocr_pipeline.prepare_file(write(docs / "plain.pdf", make_pdf([text])))
    assert plain.doc.ocr_engine == ""

    photo = ocr_pipeline.prepare_file(write(docs / "Budget_whiteboard.jpg", b"\xff\xd8"))
    assert photo.doc.ocr_engine == "fake"
    assert photo.doc.title == "Budget whiteboard"
    assert "budgets" in photo.chunks[0].text


def test_pipeline_without_engine_has_no_image_extensions(make_pipeline) -> None:  # type: ignore[no-untyped-def]
    pipeline = make_pipeline()
    assert not IMAGE_EXTENSIONS & pipeline.extensions
