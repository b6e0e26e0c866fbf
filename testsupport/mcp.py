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


def cli_process(*args: str, cwd: Any = None, timeout: float = 600, env: Any = None) -> Any:
    """Run the real ``minirag-mcp`` command in a child process, with ``env`` (by default this
    process's environment): a CompletedProcess with text stdout and stderr."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "minirag_mcp", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def stdio_session(env: dict, cwd: Any = None) -> Any:
    """``async with stdio_session(env) as (session, init)``: the real server as a child process
    (``python -m minirag_mcp``), driven by the official MCP client over stdio."""
    import sys
    from contextlib import asynccontextmanager

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "minirag_mcp"],
        env={**env, "FASTMCP_CHECK_FOR_UPDATES": "off", "HF_HUB_OFFLINE": "1"},
        cwd=None if cwd is None else str(cwd),
    )

    @asynccontextmanager
    async def session() -> Any:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as client,
        ):
            yield client, await client.initialize()

    return session()


async def stdio_synced(session: Any) -> dict:
    """sync_start, then sync_status until the job is no longer running (over stdio)."""
    job = await session.call_tool("sync_start", {})
    assert not job.is_error, job.content[0].text
    for _ in range(SYNC_POLLS):
        result = await session.call_tool("sync_status", {"jobId": job.structured_content["jobId"]})
        if result.structured_content["state"] != "running":
            return result.structured_content
        await asyncio.sleep(0.1)
    raise AssertionError("sync did not finish")
