"""The real thing: `minirag-mcp` as a subprocess, driven by the official MCP stdio client."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

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
