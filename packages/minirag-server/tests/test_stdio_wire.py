"""The stdio server's writer: messages whole on the real stdout, anything else on stderr."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROGRAM = r"""
import os, sys
import anyio
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCNotification
from minirag_mcp.stdio_wire import stdio_server

async def main():
    async with stdio_server() as (read_stream, write_stream):
        print("stray print", flush=True)
        os.write(1, b"stray write\n")
        for size in (10, 5_000_000):
            params = {"text": "\u00e9" * size}
            note = JSONRPCNotification(jsonrpc="2.0", method="note", params=params)
            await write_stream.send(SessionMessage(note))
        await write_stream.aclose()
        await anyio.sleep(0.5)

anyio.run(main)
print("after the server", flush=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the SDK's own writer is kept on Windows")
def test_messages_go_to_stdout_whole_and_stray_output_to_stderr() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    lines = done.stdout.decode("utf-8").splitlines()
    assert lines[-1] == "after the server", "stdout is given back when the server ends"
    messages = [json.loads(line) for line in lines[:-1]]
    assert [len(m["params"]["text"]) for m in messages] == [10, 5_000_000]
    assert all(set(m["params"]["text"]) == {"\u00e9"} for m in messages)
    stderr = done.stderr.decode(errors="replace")
    assert "stray print" in stderr and "stray write" in stderr
