"""Text inside embedded pictures as the tools show it: found with the [ocr] extra, absent
without it, counted in the sync report, and named in status.

"Without" registers no OCR plug-in (``plugins.REGISTERED``), so it means the same in every
environment; the test with the real extra skips when rapidocr is not installed.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from conftest import require_module
from minirag_ingest.extras import plugins
from minirag_ingest.extras.install import install_hint
from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.mcp import call, cli, synced
from testsupport.pictures import (
    Picture,
    docx_with_pictures,
    icon_picture,
    pptx_with_pictures,
    word_picture,
)

pytestmark = pytest.mark.ocr


def write_documents(docs: Path) -> tuple[Path, Path]:
    """A .docx whose screenshot holds a form code, and a slide whose picture names a valve;
    neither word is anywhere else in the corpus."""
    form = docs / "Order form.docx"
    form.write_bytes(
        docx_with_pictures(
            [
                "Orders are entered on the form shown in the screenshot.",
                Picture(word_picture("KESTREL"), "screenshot of the order form"),
                Picture(icon_picture(), "printer icon"),
            ]
        )
    )
    deck = docs / "Pump room.pptx"
    deck.write_bytes(
        pptx_with_pictures([("Pump room layout", [Picture(word_picture("MARIGOLD"), "valve")])])
    )
    return form, deck


def test_without_the_extra_picture_text_is_absent_and_status_says_so(
    env: dict, docs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(plugins.REGISTERED, plugins.OCR.group, None)
    form, _ = write_documents(docs)

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            health = await call(client, "status")
            assert health["pictures"].startswith("not read")
            assert install_hint("ocr") in health["pictures"]
            result = await synced(client)
            assert result["state"] == "succeeded", result
            assert "pictures" not in result  # nothing was read, nothing to count
            found = await call(client, "find_mentions", {"terms": ["KESTREL"]})
            assert found["documents"] == []
            text = (await call(client, "read_file", {"filePath": str(form)}))["text"]
            assert "screenshot of the order form" in text and "[picture text]" not in text

    asyncio.run(go())
    code, out, err = cli(capsys, "status", "--json")
    assert code == 0, err
    assert json.loads(out)["pictures"].startswith("not read")


@pytest.mark.slow
def test_with_the_extra_a_word_only_in_a_picture_is_found(
    env: dict, docs: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    require_module("rapidocr_onnxruntime", "ocr")
    monkeypatch.setenv("RAG_OCR_LANG", "ch")  # the model bundled in the wheel reads English
    form, deck = write_documents(docs)

    async def go() -> Any:
        async with Client(create_app(load_config({}))) as client:
            assert (await call(client, "status"))["pictures"] == "read by rapidocr"
            result = await synced(client)
            assert result["state"] == "succeeded", result
            # the screenshot and the slide's picture read, the icon skipped
            assert result["pictures"] == {"held": 3, "read": 2, "skipped": 1}

            for word, path in (("KESTREL", form), ("MARIGOLD", deck)):
                found = await call(client, "find_mentions", {"terms": [word]})
                assert [d["source"] for d in found["documents"]] == [str(path)], word
                hits = await call(client, "query_documents", {"query": word})
                assert str(path) in [s["source"] for s in hits["sources"]], word

            text = (await call(client, "read_file", {"filePath": str(form)}))["text"]
            assert "screenshot of the order form\n\n> [picture text]\n> KESTREL" in text
            assert "printer icon" in text
            listed = {r["displayPath"]: r for r in (await call(client, "list_files"))["files"]}
            assert listed[form.name]["ocrEngine"] == "rapidocr"

            again = await synced(client)  # unchanged files are not read again
            assert again["counts"]["skipped"] >= 2 and "pictures" not in again

    asyncio.run(go())
    (docs / "archive").mkdir()
    deck.rename(docs / "archive" / deck.name)  # a moved file is not read again either
    code, out, err = cli(capsys, "sync")
    assert code == 0, err
    assert "moved 1" in out and "pictures:" not in out
