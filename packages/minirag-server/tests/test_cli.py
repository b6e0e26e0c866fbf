"""The CLI: --json prints exactly its tool's fields, nested ones included, and exit codes follow
the rules."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.mcp import cli


def tool(name: str, args: dict) -> dict:
    async def go() -> dict:
        async with Client(create_app(load_config({}))) as client:
            if name == "sync_status":
                job = (await client.call_tool("sync_start", {})).structured_content
                while True:
                    result = await client.call_tool("sync_status", {"jobId": job["jobId"]})
                    if result.structured_content["state"] != "running":
                        return result.structured_content
                    await asyncio.sleep(0.1)
            return (await client.call_tool(name, args)).structured_content

    return asyncio.run(go())


# Tools whose answer depends only on the index and the arguments (no job ids, no times).
READING_TOOLS = {"list_files", "query_documents", "find_mentions", "read_file", "status"}


def shape(value: Any) -> Any:
    """The keys of a JSON value at every depth (list items in order), without the values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return None


def test_json_output_has_exactly_the_tool_fields(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alpha = str(docs / "alpha.md")
    code, out, err = cli(capsys, "sync", "--json")
    assert code == 0, err
    synced = json.loads(out)
    tool("ingest_data", {"source": "d1", "content": "first memo", "format": "text"})
    tool("ingest_data", {"source": "d2", "content": "second memo", "format": "text"})
    cases = [
        (["sync", "--json"], "sync_status", {}),
        (["status", "--json"], "status", {}),
        (["list", "--json"], "list_files", {}),
        (["query", "alpha port", "--json"], "query_documents", {"query": "alpha port"}),
        (["find", "tomato", "--json"], "find_mentions", {"terms": ["tomato"]}),
        (["find", "zzzq", "--json"], "find_mentions", {"terms": ["zzzq"]}),
        (["read", alpha, "--json"], "read_file", {"filePath": alpha}),
        (
            ["read-neighbors", "--file-path", alpha, "--chunk-index", "0", "--json"],
            "read_chunk_neighbors",
            {"filePath": alpha, "chunkIndex": 0},
        ),
        (["ingest", alpha, "--json"], "ingest_file", {"filePath": alpha}),
        (["delete", "--source", "d1", "--json"], "delete_file", {"source": "d2"}),
    ]
    assert shape(synced) == shape(tool("sync_status", {}))
    for args, name, tool_args in cases:
        code, out, err = cli(capsys, *args)
        assert code == 0, (args, err)
        printed, sent = json.loads(out), tool(name, tool_args)
        assert shape(printed) == shape(sent), args
        if name in READING_TOOLS:  # the same question of the same index: the same answer
            assert printed == sent, args


def test_human_output_and_relative_paths(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(docs)
    code, out, _ = cli(capsys, "query", "anything")
    assert code == 0 and out.startswith("no results") and "empty" in out
    code, out, err = cli(capsys, "ingest", "alpha.md")
    assert code == 0, err
    code, out, _ = cli(capsys, "query", "alpha protocol port", "--top-k", "2")
    assert code == 0
    assert "Sources:\n  alpha.md" in out
    code, out, _ = cli(capsys, "read", "alpha.md")
    assert code == 0 and "E-1234" in out
    code, out, _ = cli(capsys, "find", "--", "-1234")
    assert code == 0


def test_exit_codes(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = cli(capsys, "classify", "try", str(docs / "alpha.md"))
    assert code == 1 and err.strip()
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.strip()
    code, _, err = cli(capsys, "read", str(docs / "alpha.md"))
    assert code == 1 and "not in the index" in err

    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    code, out, err = cli(capsys, "sync")
    assert code == 1
    assert "broken.pdf" in err and err.count("warn:") >= 1
    code, _, err = cli(capsys, "ingest", str(docs / "broken.pdf"))
    assert code == 1 and err.startswith("error:")

    monkeypatch.setenv("BASE_DIRS", "{not json")
    code, out, _ = cli(capsys, "status", "--json")
    assert code == 0
    assert set(json.loads(out)) == {"version", "configError"}
    code, _, err = cli(capsys, "list")
    assert code == 1 and "BASE_DIRS" in err
    # --base-dir replaces the broken variable entirely
    code, _, err = cli(capsys, "list", "--base-dir", str(docs), "--json")
    assert code == 0, err
