"""OCR as the MCP tools and the CLI show it: without the [ocr] extra, and with the real one.

"Without" is simulated by registering no OCR plug-in (``plugins.REGISTERED``), so those tests
mean the same in the base session and in a development environment that has minirag-ocr
installed. Documents an earlier install read with OCR are injected through a pipeline holding a
fake engine. The tests with the real extra skip when minirag-ocr is not installed.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from minirag_index.settings import ConfigError
from minirag_ingest.conversion.pages import PAGES_SINCE_SCHEME
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.extras import plugins
from minirag_ingest.extras.install import install_hint
from minirag_ingest.files.formats import IMAGE_EXTENSIONS
from minirag_ingest.sync.run import sync
from minirag_mcp.config import ConfigProblem, load_config
from minirag_mcp.context import AppContext
from minirag_mcp.server import create_app
from testsupport.documents import blank_pdf, page_image, pdf_with_pages
from testsupport.mcp import call, cli, error_of, synced

pytestmark = pytest.mark.ocr

INSTALL = install_hint("ocr")  # the command for this install (a clone: uv sync)
PHOTO_TEXT = "Whiteboard photo listing the quarterly budget for the cafeteria"
PAGE_TEXT = "Recognised scan about turbine blades and their replacement schedule"
HAS_OCR_EXTRA = importlib.util.find_spec("minirag_ocr") is not None
needs_ocr_extra = pytest.mark.skipif(
    not HAS_OCR_EXTRA,
    reason=f"needs the [ocr] extra (minirag-ocr): {INSTALL}",
)


# -- helpers -------------------------------------------------------------------------------------


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class FakeEngine:
    """Stands in for rapidocr: canned text for every PDF page and image asked about."""

    name = "rapidocr"
    image_extensions = IMAGE_EXTENSIONS

    def recognise_image(self, path: Path) -> list[str]:
        return [PHOTO_TEXT]

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        return {n: f"{PAGE_TEXT} on page {n}" for n in page_numbers}


class FakePlugin:
    """An OCR plug-in whose engine reads RAG_OCR_LANG and knows only eslav."""

    name = "rapidocr"

    def create_engine(self, cache_dir: Path) -> FakeEngine:
        lang = os.environ.get("RAG_OCR_LANG", "eslav")
        if lang != "eslav":
            raise ConfigError(
                f"RAG_OCR_LANG={lang!r} is not valid; use one of: eslav, en",
                variable="RAG_OCR_LANG",
            )
        return FakeEngine()


def squashed(text: str) -> str:
    """Lower case without whitespace, so a dropped space between words does not matter."""
    return "".join(text.split()).lower()


# -- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _ocr_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RAG_OCR_LANG", "RAG_OCR_MIN_CHARS_PER_PAGE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def no_ocr_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if minirag-ocr were not installed: no OCR plug-in."""
    monkeypatch.setitem(plugins.REGISTERED, plugins.OCR.group, None)


def index_with_fake_ocr(docs: Path) -> tuple[Path, Path]:
    """Index ``docs`` as an install with the extra did: a photo and a scanned PDF read with OCR,
    the PDF from before page numbers. Returns (photo, scan)."""
    photo = docs / "Budget_whiteboard.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n")
    scan = docs / "scan.pdf"
    scan.write_bytes(blank_pdf(2))
    ctx = AppContext(load_config({}))
    pipeline = Pipeline(ctx.index, ctx.roots, ctx.config.ingest, ocr=FakeEngine())
    report = sync(pipeline)
    assert report.failed == 0 and report.ingested == 5, report.errors
    ctx.index.store.update_source_fields(
        str(scan), {"scheme": PAGES_SINCE_SCHEME - 1, "pages": None}
    )
    return photo, scan


# -- without the extra ---------------------------------------------------------------------------


def test_status_names_the_install_command(env: dict, no_ocr_extra: None) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            health = await call(client, "status")
            assert health["ocr"] == "unavailable"
            assert INSTALL in health["ocrHint"]

    run(go())


def test_a_scanned_pdf_is_one_failed_file_naming_the_install_command(
    env: dict, docs: Path, no_ocr_extra: None
) -> None:
    scan = docs / "invoice-scan.pdf"
    scan.write_bytes(blank_pdf(3))
    (docs / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            result = await synced(client)
            assert result["state"] == "failed"
            counts = result["counts"]
            assert (counts["scanned"], counts["ingested"], counts["failed"]) == (4, 3, 1)
            assert counts["unreadable"] == 0
            [error] = result["errors"]
            assert error["path"] == str(scan) and INSTALL in error["reason"]
            listed = {
                row["displayPath"]: row for row in (await call(client, "list_files"))["files"]
            }
            assert listed["invoice-scan.pdf"]["state"] == "not_indexed"
            assert "diagram.png" not in listed  # images are not scanned at all
            indexed = [row for row in listed.values() if row["state"] == "indexed"]
            assert len(indexed) == 3 and {row["ocrEngine"] for row in indexed} == {""}
            found = await call(client, "find_mentions", {"terms": ["tomatoes"]})
            assert len(found["documents"]) == 1  # the rest of the sync went on

    run(go())


def test_documents_read_with_ocr_are_kept_as_unreadable(
    env: dict, docs: Path, no_ocr_extra: None, capsys: pytest.CaptureFixture[str]
) -> None:
    photo, scan = index_with_fake_ocr(docs)
    (docs / "illustration.jpg").write_bytes(b"\xff\xd8")  # never indexed: stays silent

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            result = await synced(client)
            assert result["state"] == "succeeded", result
            counts = result["counts"]
            assert (counts["unreadable"], counts["deleted"], counts["failed"]) == (2, 0, 0)
            assert sorted(result["unreadableFiles"]) == sorted([str(photo), str(scan)])
            listed = {
                row["displayPath"]: row for row in (await call(client, "list_files"))["files"]
            }
            assert "illustration.jpg" not in listed
            for name in ("Budget_whiteboard.png", "scan.pdf"):
                assert listed[name]["state"] == "unreadable", listed[name]
                assert listed[name]["ocrEngine"] == "rapidocr"
            assert listed["alpha.md"]["ocrEngine"] == ""
            found = await call(client, "find_mentions", {"terms": ["cafeteria"]})
            assert [d["source"] for d in found["documents"]] == [str(photo)]
            text = await call(client, "read_file", {"filePath": str(scan)})
            assert PAGE_TEXT in text["text"]

    run(go())

    code, out, err = cli(capsys, "list")
    assert code == 0, err
    lines = {line.split()[2]: line for line in out.splitlines()}
    assert lines["Budget_whiteboard.png"].endswith("Budget_whiteboard.png [ocr:rapidocr]")
    assert lines["scan.pdf"].startswith("unreadable")
    assert lines["scan.pdf"].endswith("scan.pdf [ocr:rapidocr]")
    assert "[ocr:" not in lines["alpha.md"]
    code, out, err = cli(capsys, "sync")
    assert code == 0, err
    assert "unreadable 2" in out
    assert str(photo) in err and str(scan) in err and "[ocr] extra" in err


def test_a_bad_ocr_setting_is_a_configuration_error(
    env: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(plugins.REGISTERED, plugins.OCR.group, FakePlugin())
    monkeypatch.setenv("RAG_OCR_LANG", "klingon")
    config = load_config({})
    assert isinstance(config, ConfigProblem) and "RAG_OCR_LANG" in config.error

    async def go() -> None:
        async with Client(create_app(config)) as client:
            health = await call(client, "status")
            assert set(health) == {"version", "configError"}
            assert "klingon" in health["configError"] and "eslav" in health["configError"]
            message = await error_of(client, "list_files")
            assert "klingon" in message
            message = await error_of(client, "sync_start")
            assert "klingon" in message

    run(go())


# -- with the real extra -------------------------------------------------------------------------


@needs_ocr_extra
def test_an_unknown_language_names_the_valid_ids(
    env: dict, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAG_OCR_LANG", "klingon")
    code, out, err = cli(capsys, "status", "--json")
    assert code == 0, err
    health = json.loads(out)
    assert set(health) == {"version", "configError"}
    assert "RAG_OCR_LANG" in health["configError"] and "eslav" in health["configError"]
    code, _, err = cli(capsys, "list")
    assert code == 1 and "RAG_OCR_LANG" in err


@needs_ocr_extra
@pytest.mark.slow
def test_scans_are_found_through_the_tools(
    env: dict, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_OCR_LANG", "ch")  # the model bundled in the wheel reads English
    memo = docs / "Maintenance_memo.png"
    page_image(
        ["Quarterly maintenance report", "The pump station at Riverside", "was inspected in March."]
    ).save(memo)
    report = docs / "invoice.pdf"
    scanned_page = page_image(["Invoice 48213 for conveyor belts", "Delivered to Harbourview"])
    report.write_bytes(pdf_with_pages(["Cover letter from the purchasing office", scanned_page]))
    fax = docs / "fax.tiff"  # a three-page TIFF, as a fax gateway writes it
    frames = [
        page_image(["Fax cover sheet", "Nine pages follow"]),
        page_image(["Second page lists the pallets"]),
        page_image(["Third page carries the Lindqvist signature"]),
    ]
    frames[0].save(fax, save_all=True, append_images=frames[1:])

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            health = await call(client, "status")
            assert health["ocr"] == "rapidocr" and "ocrHint" not in health
            result = await synced(client)
            assert result["state"] == "succeeded", result
            assert result["counts"]["ingested"] == 6 and result["counts"]["failed"] == 0

            listed = {
                row["displayPath"]: row for row in (await call(client, "list_files"))["files"]
            }
            assert listed["Maintenance_memo.png"]["state"] == "indexed"
            assert listed["Maintenance_memo.png"]["ocrEngine"] == "rapidocr"
            assert listed["Maintenance_memo.png"]["title"] == "Maintenance memo"
            assert listed["invoice.pdf"]["ocrEngine"] == "rapidocr"
            assert listed["alpha.md"]["ocrEngine"] == ""
            assert listed["fax.tiff"]["ocrEngine"] == "rapidocr"

            # Every page of the TIFF is read, not just the first; images carry no pages.
            found = await call(client, "find_mentions", {"terms": ["Lindqvist"]})
            assert [d["source"] for d in found["documents"]] == [str(fax)]
            assert "pages" not in found["documents"][0]["firstMatch"]
            hits = await call(client, "query_documents", {"query": "pallets on the second page"})
            assert str(fax) in [s["source"] for s in hits["sources"]]

            found = await call(client, "find_mentions", {"terms": ["Riverside"]})
            assert [d["source"] for d in found["documents"]] == [str(memo)]
            assert "pages" not in found["documents"][0]["firstMatch"]  # an image has none
            found = await call(client, "find_mentions", {"terms": ["Harbourview"]})
            assert [d["source"] for d in found["documents"]] == [str(report)]
            assert found["documents"][0]["firstMatch"]["pages"] == "1-2"

            hits = await call(client, "query_documents", {"query": "pump station inspection"})
            assert hits["sources"][0]["source"] == str(memo)
            hits = await call(client, "query_documents", {"query": "invoice for conveyor belts"})
            assert hits["sources"][0]["source"] == str(report)
            top = next(h for h in hits["hits"] if h["source"] == str(report))
            # Cover text and the recognised second page share one short chunk.
            assert top["pages"] == "1-2"
            assert "48213" in top["text"] and "coverletter" in squashed(top["text"])
            text = (await call(client, "read_file", {"filePath": str(report)}))["text"]
            assert squashed(text).index("coverletter") < squashed(text).index("conveyor")

    run(go())


def test_a_pdf_from_before_page_numbers_is_listed_as_stale_pages_until_synced(
    env: dict, docs: Path
) -> None:
    report = docs / "report.pdf"
    pages = [
        "Quarterly report: sales grew in every region this quarter.",
        "Outlook: steady demand is expected for the coming year.",
    ]
    report.write_bytes(pdf_with_pages(pages))  # a text layer on every page: no OCR needed
    ctx = AppContext(load_config({}))
    assert sync(Pipeline(ctx.index, ctx.roots, ctx.config.ingest)).failed == 0
    ctx.index.store.update_source_fields(
        str(report), {"scheme": PAGES_SINCE_SCHEME - 1, "pages": None}
    )

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            listed = {r["displayPath"]: r for r in (await call(client, "list_files"))["files"]}
            assert listed["report.pdf"]["state"] == "stale_pages"
            assert listed["garden/tomatoes.md"]["state"] == "indexed"  # the rest is untouched
            assert (await call(client, "status"))["unpagedSourceCount"] == 1
            result = await synced(client)
            assert result["counts"]["ingested"] == 1, result
            listed = {r["displayPath"]: r for r in (await call(client, "list_files"))["files"]}
            assert listed["report.pdf"]["state"] == "indexed"
            found = await call(client, "query_documents", {"query": "quarterly sales report"})
            top = found["hits"][0]
            assert top["source"] == str(report) and top["pages"]

    run(go())
