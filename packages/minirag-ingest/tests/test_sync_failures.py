"""A file that failed to convert is not read again by a sync until it, or what decided the
failure, changes; it is still reported as failed every time (real malformed files)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from minirag_index import ChunkInput, SourceDoc
from minirag_ingest.document import pipeline as pipeline_module
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.extras.ocr import OcrError
from minirag_ingest.sync.failures import FILE_NAME
from minirag_ingest.sync.run import sync
from testsupport.documents import blank_pdf

FILES = Path(__file__).parent / "files"
BROKEN = [
    ("webvtt-py", "invalid.vtt"),
    ("webvtt-py", "no_captions.vtt"),
    ("python-docx", "doc-default.docx"),
]


@pytest.fixture
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file the pipeline converts, in order."""
    seen: list[Path] = []
    original = pipeline_module.read_contained  # opens, converts and hashes one file

    def counting(request, *args, **kwargs):
        seen.append(Path(request.path))
        return original(request, *args, **kwargs)

    monkeypatch.setattr(pipeline_module, "read_contained", counting)
    return seen


@pytest.fixture
def broken(docs: Path) -> list[Path]:
    paths = []
    for folder, name in BROKEN:
        shutil.copy(FILES / folder / name, docs / name)
        paths.append(docs / name)
    (docs / "note.md").write_text("# Note\n\nThe shelf holds seven crates.\n", encoding="utf-8")
    return paths


def reasons(report) -> dict[str, str]:
    return {Path(e["path"]).name: e["reason"] for e in report.errors}


def test_a_no_op_sync_reads_none_of_the_files_that_failed(pipeline, broken, conversions):
    first = sync(pipeline)
    assert (first.ingested, first.failed) == (1, 3)
    assert len(conversions) == 4
    conversions.clear()

    again = sync(pipeline)
    assert conversions == []  # nothing converted, nothing read
    assert (again.ingested, again.skipped, again.failed) == (0, 1, 3)
    assert reasons(again) == reasons(first)  # each reported again with its own reason
    assert not again.ok  # so `minirag-mcp sync` still exits 1
    assert reasons(again)["no_captions.vtt"] == "the WebVTT file contains no readable cues"
    assert reasons(again)["doc-default.docx"].startswith("converted to no text")


def test_a_changed_file_is_read_again_and_a_touched_one_is_not(pipeline, broken, conversions):
    sync(pipeline)
    invalid, no_captions, _ = broken
    conversions.clear()
    stat = no_captions.stat()
    os.utime(no_captions, (stat.st_atime, stat.st_mtime + 60))  # same bytes, new mtime
    invalid.write_text("WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nNow it has a caption.\n")

    report = sync(pipeline)
    assert conversions == [invalid]
    assert (report.ingested, report.failed) == (1, 2)
    conversions.clear()
    assert sync(pipeline).failed == 2 and conversions == []


def test_raising_max_file_size_or_installing_ocr_reads_failures_again(
    make_pipeline, docs, broken, conversions
):
    scan = docs / "scan.pdf"
    scan.write_bytes(blank_pdf(1))
    base = make_pipeline(docs)
    assert sync(base).failed == 4
    conversions.clear()
    assert sync(base).failed == 4 and conversions == []

    bigger = make_pipeline(docs, max_file_size=10 * 1024 * 1024)
    assert sync(bigger).failed == 4
    assert sorted(p.name for p in conversions) == sorted([*(p.name for p in broken), "scan.pdf"])
    conversions.clear()

    with_ocr = Pipeline(bigger.index, bigger.roots, bigger.settings, ocr=_OcrStandIn())
    report = sync(with_ocr)
    assert len(conversions) == 4  # every remembered failure, the scan among them
    assert "scan.pdf" not in reasons(report) and report.failed == 3


def test_a_deleted_failure_is_forgotten(pipeline, broken, docs):
    sync(pipeline)
    memory = docs.parent / "db" / FILE_NAME
    assert len(json.loads(memory.read_text())["files"]) == 3
    broken[0].unlink()
    assert sync(pipeline).failed == 2
    assert str(broken[0]) not in json.loads(memory.read_text())["files"]


def test_an_old_title_only_entry_is_removed_when_the_file_converts_to_no_text(
    pipeline, docs, broken
):
    blank = broken[2]
    stat = blank.stat()
    pipeline.index.add_source(
        SourceDoc(str(blank), title="doc-default", size=stat.st_size, mtime=stat.st_mtime),
        [ChunkInput("# doc-default")],  # what an index from before the rule holds for it
    )
    report = sync(pipeline)
    assert reasons(report)["doc-default.docx"].startswith("converted to no text")
    assert pipeline.index.read_document(str(blank)) is None


def test_an_ocr_engine_failure_is_tried_again_next_time(make_pipeline, docs, conversions):
    scan = docs / "scan.pdf"
    scan.write_bytes(blank_pdf(1))
    base = make_pipeline(docs)
    offline = Pipeline(base.index, base.roots, base.settings, ocr=_OcrOffline())
    first = sync(offline)
    assert reasons(first)["scan.pdf"].startswith("OCR failed: could not download")
    conversions.clear()
    assert sync(offline).failed == 1
    assert conversions == [scan]  # a download may work next time: not remembered


class _OcrOffline:
    name = "rapidocr"
    image_extensions = frozenset({".png"})

    def recognise_image(self, path: Path) -> list[str]:
        raise OcrError("could not download the OCR model")

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        raise OcrError("could not download the OCR model")


class _OcrStandIn:
    """An OCR engine that reads the word "recognised" on every page it is asked about."""

    name = "rapidocr"
    image_extensions = frozenset({".png"})

    def recognise_image(self, path: Path) -> list[str]:
        return ["recognised image text"]

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        return {n: f"recognised text of page {n}" for n in page_numbers}
