"""Driving the server in tests: tool calls through fastmcp's in-process client, and the CLI."""

from __future__ import annotations

import asyncio
from typing import Any

SYNC_POLLS = 3000  # 0.1 s apart: an upper bound against a hang, not a speed claim


async def call(client: Any, name: str, args: dict | None = None) -> dict:
    """A tool's structured result; a tool error raises."""
    return (await client.call_tool(name, args or {})).structured_content


async def error_of(client: Any, name: str, args: dict | None = None) -> str:
    """The message of a tool call that must fail."""
    result = await client.call_tool(name, args or {}, raise_on_error=False)
    assert result.is_error, f"{name} should have failed"
    return result.content[0].text


async def synced(client: Any) -> dict:
    """Start a sync and poll sync_status until it is no longer running."""
    job = await call(client, "sync_start")
    for _ in range(SYNC_POLLS):
        status = await call(client, "sync_status", {"jobId": job["jobId"]})
        if status["state"] != "running":
            return status
        await asyncio.sleep(0.1)
    raise AssertionError("sync did not finish")


def cli(capsys: Any, *args: str) -> tuple[int, str, str]:
    """Run the minirag-mcp CLI in-process: (exit code, stdout, stderr)."""
    from minirag_mcp.cli import main

    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err
