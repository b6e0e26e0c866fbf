"""The tools' contract, through the real server over stdio with the official MCP client: what it
advertises, the ranges its schemas publish, errors in the tools' own words, missing places and a
model that cannot load."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from minirag_index import MAX_TOP_K
from testsupport.documents import password_protected_pdf
from testsupport.mcp import stdio_session, stdio_synced


def error_text(result) -> str:
    assert result.is_error, result.structured_content
    return result.content[0].text


def test_tools_are_advertised_and_argument_ranges_are_in_the_schemas(env: dict) -> None:
    async def go() -> None:
        async with stdio_session(env) as (session, init):
            capabilities = init.capabilities
            assert capabilities.tools is not None
            # fastmcp advertises prompts and resources as well (it has no setting to leave them
            # out): their lists are empty
            assert not (await session.list_prompts()).prompts
            assert not (await session.list_resources()).resources
            tools = {tool.name: tool.input_schema for tool in (await session.list_tools()).tools}
            top_k = tools["query_documents"]["properties"]["topK"]
            assert (top_k["minimum"], top_k["maximum"]) == (1, MAX_TOP_K)
            assert tools["find_mentions"]["properties"]["offset"]["minimum"] == 0
            neighbors = tools["read_chunk_neighbors"]["properties"]
            assert [neighbors[name]["minimum"] for name in ("chunkIndex", "before", "after")] == [
                0,
                0,
                0,
            ]
            # More than the cap is a bad guess and is clamped; less than one is refused.
            many = await session.call_tool("query_documents", {"query": "x", "topK": 500})
            assert not many.is_error
            assert (await session.call_tool("query_documents", {"query": "x", "topK": 0})).is_error

    asyncio.run(go())


def test_tool_errors_use_the_tools_words_and_scopes_take_data_ids(env: dict, docs: Path) -> None:
    alpha = str(docs / "alpha.md")
    (docs / "secret.pdf").write_bytes(password_protected_pdf("Quarterly figures", "hunter2"))

    async def go() -> None:
        async with stdio_session(env) as (session, _):
            missing = error_text(await session.call_tool("read_file", {"filePath": alpha}))
            assert "Run sync_start (or ingest_file) first" in missing
            synced = await stdio_synced(session)
            assert synced["counts"]["failed"] == 1
            [error] = synced["errors"]
            assert error["path"] == str(docs / "secret.pdf")
            assert error["reason"] == (
                "the PDF is password-protected: save a copy without the password to index it"
            )
            past = await session.call_tool(
                "read_chunk_neighbors", {"filePath": alpha, "chunkIndex": 40}
            )
            assert "it has 2 chunks, so chunkIndex goes from 0 to 1" in error_text(past)
            for source in ("memo-7", "memo-70"):
                stored = await session.call_tool(
                    "ingest_data", {"source": source, "content": "a memo"}
                )
                assert not stored.is_error
            listed = await session.call_tool("list_files", {"scope": "memo-7"})
            assert not listed.is_error, listed.content[0].text
            assert [row["source"] for row in listed.structured_content["files"]] == ["memo-7"]

    asyncio.run(go())


def test_a_model_that_cannot_load_is_named_counted_and_kept_in_status_until_it_loads(
    env: dict, docs: Path, model_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "model"
    shutil.copytree(model_dir, broken)
    (broken / "model.onnx").rename(tmp_path / "model.onnx.aside")

    async def go() -> None:
        async with stdio_session({**env, "MODEL_NAME": str(broken)}) as (session, _):
            job = await stdio_synced(session)
            assert job["state"] == "failed"
            assert job["counts"]["failed"] == 3 and job["counts"]["ingested"] == 0
            assert str(broken) in job["error"] and "model.onnx is missing" in job["error"]
            assert "network" not in job["error"]
            assert [e["path"] for e in job["errors"]] == [str(broken)]
            status = (await session.call_tool("status", {})).structured_content
            assert status["model"] == "not loaded" and status["modelError"] == job["error"]

            (tmp_path / "model.onnx.aside").rename(broken / "model.onnx")
            fixed = await session.call_tool("ingest_file", {"filePath": str(docs / "alpha.md")})
            assert not fixed.is_error, fixed.content[0].text
            status = (await session.call_tool("status", {})).structured_content
            assert status["model"] == "loaded" and "modelError" not in status

    asyncio.run(go())


def test_a_missing_root_is_refused_by_the_tools_and_nothing_is_created(
    env: dict, tmp_path: Path
) -> None:
    gone = tmp_path / "unmounted" / "docs"

    async def go() -> None:
        async with stdio_session({**env, "BASE_DIR": str(gone)}) as (session, _):
            for name, args in (
                ("sync_start", {}),
                ("query_documents", {"query": "x"}),
                ("find_mentions", {"terms": ["x"]}),
                ("list_files", {}),
                ("ingest_data", {"source": "memo", "content": "text"}),
            ):
                message = error_text(await session.call_tool(name, args))
                assert f"the document root {gone} does not exist" in message, name
            status = await session.call_tool("status", {})
            assert not status.is_error
            assert any("does not exist" in e for e in status.structured_content["errors"])

    asyncio.run(go())
    assert not (tmp_path / "unmounted").exists()
