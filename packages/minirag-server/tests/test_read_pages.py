"""read_file answers a page at a time: every response is bounded, and the pages, followed by
their nextOffset, give back the document character for character (the CLI joins them)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.tools import Tool
from mcp.types import CallToolResult

from minirag_mcp import paging
from minirag_mcp.config import load_config
from minirag_mcp.results import DocumentText
from minirag_mcp.server import create_app
from testsupport.mcp import call, cli, error_of, synced


def test_pages_join_to_the_text_and_end_at_line_breaks_when_they_can() -> None:
    text = "".join(f"line {n} of the report, with ü and 😀 in it\n" for n in range(2000))
    pages, offset = [], 0
    while True:
        page = paging.page_of(text, offset, 5000)
        assert len(page.text) <= 5000 and page.total_chars == len(text)
        pages.append(page.text)
        if page.next_offset is None:
            break
        assert page.text.endswith("\n")  # a line break in the page's second half was there
        offset = page.next_offset
    assert "".join(pages) == text and len(pages) > 10


def test_a_text_without_line_breaks_is_cut_at_the_page_size() -> None:
    text = "x" * 12_001
    first = paging.page_of(text, 0, 5000)
    assert (len(first.text), first.next_offset) == (5000, 5000)
    last = paging.page_of(text, 10_000, 5000)
    assert (last.text, last.next_offset) == ("x" * 2001, None)
    with pytest.raises(ValueError, match="past the end"):
        paging.page_of(text, 12_002, 5000)


@pytest.mark.parametrize("character", ["\x01", '"', "\\", "😀", "x"])
def test_a_full_page_stays_under_4_mb_on_the_wire_whatever_its_characters(character: str) -> None:
    """The read_file answer as the server sends it: fastmcp's conversion of the page (structured
    content, and its JSON as text) inside the MCP result, encoded as the SDK writes it."""

    def read_file() -> DocumentText:
        raise NotImplementedError

    page = DocumentText(
        source="/docs/big.txt",
        title="big",
        text=character * paging.PAGE_CHARS,
        offset=0,
        next_offset=paging.PAGE_CHARS,
        total_chars=50_000_000,
    )
    converted = Tool.from_function(read_file).convert_result(page)
    sent = CallToolResult(
        content=converted.content, structured_content=converted.structured_content
    )
    assert len(sent.model_dump_json(by_alias=True, exclude_none=True).encode()) <= 4_000_000


@pytest.fixture
def long_document(docs: Path) -> str:
    text = "# Long report\n\n" + "".join(
        f"Paragraph {n}: the depot at gate {n} shipped {n * 7} crates.\n\n" for n in range(300)
    )
    (docs / "long.md").write_text(text, encoding="utf-8")
    return str(docs / "long.md")


def test_a_long_document_comes_in_pages_that_rebuild_it(
    env: dict, long_document: str, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setattr(paging, "PAGE_CHARS", 2000)

    async def go() -> tuple[str, list[dict]]:
        async with Client(create_app(load_config({}))) as client:
            assert (await synced(client))["state"] == "succeeded"
            pages = [await call(client, "read_file", {"filePath": long_document})]
            while "nextOffset" in pages[-1]:
                args = {"filePath": long_document, "offset": pages[-1]["nextOffset"]}
                pages.append(await call(client, "read_file", args))
            past = {"filePath": long_document, "offset": pages[0]["totalChars"] + 1}
            assert "past the end" in await error_of(client, "read_file", past)
            return "".join(p["text"] for p in pages), pages

    text, pages = asyncio.run(go())
    assert len(pages) > 5
    assert all(len(p["text"]) <= 2000 for p in pages)
    assert [p["offset"] for p in pages[1:]] == [p["nextOffset"] for p in pages[:-1]]
    assert len(text) == pages[0]["totalChars"]
    code, out, _ = cli(capsys, "read", long_document, "--json")
    assert code == 0
    whole = json.loads(out)
    assert whole["text"] == text and "nextOffset" not in whole
    assert "Paragraph 299: the depot at gate 299 shipped 2093 crates." in text
