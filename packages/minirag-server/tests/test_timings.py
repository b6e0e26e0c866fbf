"""MINIRAG_TIMINGS=1: the stdio server reports where each tool call's time went, on stderr."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from testsupport.mcp import stdio_synced

PARTS = ("decode", "dispatch", "search", "payload", "convert", "respond", "encode", "bytes")


def run_server(env: dict, tmp_path: Path, **extra: str) -> tuple[list[str], dict]:
    """Sync and ask one question over stdio; the server's stderr lines and the answer."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "minirag_mcp"],
        env={**env, "FASTMCP_CHECK_FOR_UPDATES": "off", "HF_HUB_OFFLINE": "1", **extra},
        cwd=str(tmp_path),
    )
    stderr = tmp_path / "stderr.log"

    async def go() -> dict:
        with open(stderr, "w", encoding="utf-8") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                assert (await stdio_synced(session))["state"] == "succeeded"
                found = await session.call_tool("query_documents", {"query": "tomatoes sun"})
                return found.structured_content

    answer = asyncio.run(go())
    return stderr.read_text(encoding="utf-8").splitlines(), answer


@pytest.mark.parametrize("setting", ["1", ""])
def test_timings_are_written_only_when_asked(
    env: dict, docs: Path, tmp_path: Path, setting: str
) -> None:
    lines, answer = run_server(env, tmp_path, MINIRAG_TIMINGS=setting)
    assert "garden/tomatoes.md" in [s["displayPath"] for s in answer["sources"]]
    timed = [line for line in lines if line.startswith("minirag-timings ")]
    if not setting:
        assert timed == []
        return
    queries = [line for line in timed if " tool=query_documents " in line]
    assert len(queries) == 1
    fields = dict(item.split("=", 1) for item in queries[0].split()[2:])
    assert set(fields) == set(PARTS)
    assert all(float(value) >= 0 for value in fields.values())
    assert float(fields["search"]) > 0 and int(fields["bytes"]) > 100
    assert any(" tool=sync_start " in line for line in timed)
