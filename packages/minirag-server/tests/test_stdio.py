"""The real thing: `minirag-mcp` as a subprocess, driven by the official MCP stdio client."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def test_stdio_server(env: dict, docs: Path, tmp_path: Path) -> None:
    wire = tmp_path / "stdout.log"
    command = f"{shlex.quote(sys.executable)} -m minirag_mcp | tee {shlex.quote(str(wire))}"
    params = StdioServerParameters(
        command="sh",
        args=["-c", command],
        env={**env, "FASTMCP_CHECK_FOR_UPDATES": "off", "HF_HUB_OFFLINE": "1"},
        cwd=str(tmp_path),
    )

    async def go() -> None:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            assert "Sources" in (init.instructions or "")
            tools = await session.list_tools()
            assert len(tools.tools) == 12
            status = await session.call_tool("status", {})
            assert not status.is_error
            job = await session.call_tool("sync_start", {})
            job_id = job.structured_content["jobId"]
            for _ in range(600):
                result = await session.call_tool("sync_status", {"jobId": job_id})
                if result.structured_content["state"] != "running":
                    break
                await asyncio.sleep(0.1)
            assert result.structured_content["state"] == "succeeded"
            found = await session.call_tool("query_documents", {"query": "tomatoes sun"})
            sources = [s["displayPath"] for s in found.structured_content["sources"]]
            assert "garden/tomatoes.md" in sources
            bad = await session.call_tool("read_file", {"filePath": "relative.md"})
            assert bad.is_error

    asyncio.run(go())
    lines = [line for line in wire.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines, "nothing reached stdout"
    for line in lines:
        message = json.loads(line)
        assert message.get("jsonrpc") == "2.0", line[:200]


def _server_pid() -> int | None:
    """The `python -m minirag_mcp` child of this process (Linux /proc)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == os.getpid() and b"minirag_mcp" in cmdline:
            return int(entry.name)
    return None


def _mapped(pid: int, needle: str) -> bool:
    return needle in Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc")
@pytest.mark.parametrize("lists_tools", [True, False], ids=["after-tools-list", "no-tools-list"])
def test_index_libraries_are_imported_after_initialize_without_a_tool_call(
    env: dict, lists_tools: bool
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "minirag_mcp"],
        env={**env, "FASTMCP_CHECK_FOR_UPDATES": "off", "HF_HUB_OFFLINE": "1"},
    )

    async def go() -> None:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            if lists_tools:
                await session.list_tools()
            pid = _server_pid()
            assert pid is not None
            for _ in range(1200):  # 0.1 s apart: a bound against a hang, not a speed claim
                if _mapped(pid, "_lancedb") and _mapped(pid, "onnxruntime"):
                    break
                await asyncio.sleep(0.1)
            assert _mapped(pid, "_lancedb"), "LanceDB was not imported ahead of use"
            assert _mapped(pid, "onnxruntime"), "onnxruntime was not imported ahead of use"
            status = await session.call_tool("status", {})
            assert status.structured_content["model"] == "not loaded"  # imported, not loaded

    asyncio.run(go())
