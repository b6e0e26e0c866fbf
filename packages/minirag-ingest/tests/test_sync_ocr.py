"""Sync on an install without the [ocr] extra, and with one that goes away.

"Not installed" is simulated by registering no OCR plug-in (``plugins.REGISTERED``), so these
tests mean the same in the base session and in a development environment that has minirag-ocr.
Documents read with OCR earlier come from a pipeline holding a fake engine that returns canned
text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.conversion.pages import PAGES_SINCE_SCHEME
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.extras import plugins
from minirag_ingest.extras.install import install_hint
from minirag_ingest.extras.ocr import IMAGE_EXTENSIONS, load_ocr_engine, ocr_engine_name
from minirag_ingest.sync.run import SyncReport, sync
from testsupport.documents import blank_pdf

PAGE_TEXT = "Recognised scan about turbine blades and their replacement schedule"
PHOTO_TEXT = "Whiteboard photo listing the quarterly budget for the cafeteria"


class FakeEngine:
    """Stands in for rapidocr: canned text for every PDF page and image asked about."""

    name = "rapidocr"
    image_extensions = IMAGE_EXTENSIONS

    def recognise_image(self, path: Path) -> list[str]:
        return [PHOTO_TEXT]

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        return {n: f"{PAGE_TEXT} on page {n}" for n in page_numbers}


def write_note(folder: Path, name: str = "note.md") -> Path:
    path = folder / name
    path.write_text("# Shelf note\n\nThe warehouse shelf holds seven crates.\n", encoding="utf-8")
    return path


@pytest.fixture
def no_ocr_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if minirag-ocr were not installed: no OCR plug-in."""
    monkeypatch.setitem(plugins.REGISTERED, plugins.OCR.group, None)


@pytest.fixture
def base(no_ocr_extra: None, pipeline: Pipeline, tmp_path: Path) -> Pipeline:
    """The pipeline a base install builds: whatever OCR discovery finds, which is nothing."""
    engine = load_ocr_engine(tmp_path / "cache")
    assert engine is None and ocr_engine_name() is None
    return Pipeline(pipeline.index, pipeline.roots, pipeline.settings, ocr=engine)


@pytest.fixture
def with_ocr(pipeline: Pipeline) -> Pipeline:
    """The same index and roots as ``base``, on an install that had the extra."""
    return Pipeline(pipeline.index, pipeline.roots, pipeline.settings, ocr=FakeEngine())


def counts(report: SyncReport) -> dict[str, int]:
    return {k: v for k, v in report.counts().items() if v and k != "signed"}


# -- a base install ------------------------------------------------------------------------------


def test_a_scanned_pdf_fails_loudly_and_the_sync_goes_on(base: Pipeline, docs: Path) -> None:
    note = write_note(docs)
    scan = docs / "invoice-scan.pdf"
    scan.write_bytes(blank_pdf(3))
    report = sync(base)
    assert counts(report) == {"scanned": 2, "ingested": 1, "failed": 1}
    [error] = report.errors
    assert error["path"] == str(scan)
    assert install_hint("ocr") in error["reason"]
    assert set(base.index.sources()) == {str(note)}
    # Still one failed file, not an empty document, the next time round.
    again = sync(base)
    assert counts(again) == {"scanned": 2, "skipped": 1, "failed": 1}


def test_a_pdf_with_a_short_text_layer_is_kept_as_converted(
    base: Pipeline, docs: Path, make_pdf: Callable[[list[str]], bytes]
) -> None:
    cert = docs / "certificate.pdf"
    cert.write_bytes(make_pdf(["Certificate", "Signed"]))
    report = sync(base)
    assert counts(report) == {"scanned": 1, "ingested": 1}
    info = base.index.sources()[str(cert)]
    assert info.ocr_engine == ""
    assert "Certificate" in base.index.read_document(str(cert))


def test_images_are_not_scanned_at_all(base: Pipeline, docs: Path) -> None:
    note = write_note(docs)
    for name in ("diagram.png", "photo.JPG", "fax.tiff", "logo.webp"):
        (docs / name).write_bytes(b"not really an image")
    report = sync(base)
    assert counts(report) == {"scanned": 1, "ingested": 1}
    assert report.errors == [] and report.unreadable_files == []
    assert set(base.index.sources()) == {str(note)}


def test_images_indexed_with_the_extra_are_kept_as_unreadable(
    base: Pipeline, with_ocr: Pipeline, docs: Path
) -> None:
    write_note(docs)
    photo = docs / "Budget_whiteboard.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n")
    first = sync(with_ocr)
    assert counts(first) == {"scanned": 2, "ingested": 2}
    assert with_ocr.index.sources()[str(photo)].ocr_engine == "rapidocr"

    report = sync(base)
    assert counts(report) == {"scanned": 1, "skipped": 1, "unreadable": 1}
    assert report.unreadable_files == [str(photo)]
    assert PHOTO_TEXT in base.index.read_document(str(photo))
    # Gone from disk, it goes from the index as any file does.
    photo.unlink()
    gone = sync(base)
    assert counts(gone) == {"scanned": 1, "skipped": 1, "deleted": 1}


def make_stale(pipeline: Pipeline, source: str) -> None:
    """Rewrite a source as an index from before page numbers would hold it."""
    pipeline.index.store.update_source_fields(
        source, {"scheme": PAGES_SINCE_SCHEME - 1, "pages": None}
    )


def test_a_pdf_read_with_ocr_is_not_read_again_without_it(
    base: Pipeline,
    with_ocr: Pipeline,
    docs: Path,
    make_pdf: Callable[[list[str]], bytes],
) -> None:
    from minirag_ingest.conversion.pages import lacks_pages

    scan = docs / "scan.pdf"
    scan.write_bytes(blank_pdf(2))
    plain = docs / "plain.pdf"
    plain.write_bytes(make_pdf(["A typed page with a real text layer of some length"]))
    assert counts(sync(with_ocr)) == {"scanned": 2, "ingested": 2}
    assert with_ocr.index.sources()[str(scan)].ocr_engine == "rapidocr"
    before = base.index.read_document(str(scan))
    assert PAGE_TEXT in before

    make_stale(base, str(scan))
    make_stale(base, str(plain))
    assert lacks_pages(base.index.sources()[str(scan)])
    report = sync(base)
    # The plain PDF is read again as usual; the scanned one is kept as it is.
    assert counts(report) == {"scanned": 2, "ingested": 1, "unreadable": 1}
    assert report.unreadable_files == [str(scan)]
    info = base.index.sources()[str(scan)]
    assert info.ocr_engine == "rapidocr" and info.scheme < SCHEME_VERSION
    assert base.index.read_document(str(scan)) == before

    # With the extra back, it is read again (with OCR) and has its pages.
    again = sync(with_ocr)
    assert counts(again) == {"scanned": 2, "ingested": 1, "skipped": 1}
    assert not lacks_pages(with_ocr.index.sources()[str(scan)])


def test_a_pdf_read_with_ocr_whose_bytes_changed_is_read_again(
    base: Pipeline, with_ocr: Pipeline, docs: Path, make_pdf: Callable[[list[str]], bytes]
) -> None:
    scan = docs / "scan.pdf"
    scan.write_bytes(blank_pdf(1))
    sync(with_ocr)
    make_stale(base, str(scan))
    # Someone gave it a text layer since (ocrmypdf, a re-export): it no longer needs OCR.
    scan.write_bytes(make_pdf(["Now with a text layer about turbine blade maintenance"]))
    report = sync(base)
    assert counts(report) == {"scanned": 1, "ingested": 1}
    info = base.index.sources()[str(scan)]
    assert info.ocr_engine == "" and info.scheme == SCHEME_VERSION
