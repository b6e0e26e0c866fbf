"""The stdio server's output side, written without a second encoded copy of each message.

The MCP SDK's stdio transport hands every message, as one string, to a text file that encodes
it whole before writing: for ``read_file`` of a 50 MB document, a 100 MB message (the text
travels as structured content and as JSON text) is held a third time as bytes. Here the
SDK's transport is given a writer that encodes and writes a slice at a time, and fd 1 is
pointed at stderr while serving, as the SDK's own claim of stdout does, so that nothing else
the process prints lands on the wire.

Installed by :func:`use_lean_writer` for fastmcp's stdio transport; on Windows, where the SDK
also rebinds the standard handles, the SDK's transport is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

SLICE = 1 << 20  # characters encoded and written at a time


class WireWriter:
    """What the SDK's writer asks of its stdout (``await write(text)``, ``await flush()``)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, text: str) -> None:
        import anyio

        await anyio.to_thread.run_sync(self._write, text)

    async def flush(self) -> None:
        """Nothing is buffered: each write went to the descriptor whole."""

    def _write(self, text: str) -> None:
        from minirag_mcp.early_front import write_all

        for start in range(0, len(text), SLICE):
            write_all(self.fd, text[start : start + SLICE].encode("utf-8"))


@contextlib.asynccontextmanager
async def stdio_server() -> AsyncIterator[Any]:
    """The SDK's stdio transport, writing through :class:`WireWriter` on the real stdout."""
    from mcp.server import stdio

    sys.stdout.flush()
    wire = os.dup(1)
    os.dup2(2, 1)
    try:
        async with stdio.stdio_server(stdout=WireWriter(wire)) as streams:  # type: ignore[arg-type]
            yield streams
    finally:
        sys.stdout.flush()
        os.dup2(wire, 1)
        # ``wire`` stays open: a write thread may still be blocked on it, and a closed number
        # could be reused under it.


def use_lean_writer() -> None:
    """Make fastmcp's stdio transport use :func:`stdio_server` (where fastmcp still looks it
    up by that name; otherwise its own stays)."""
    if sys.platform == "win32":
        return
    from fastmcp.server.mixins import transport

    if hasattr(transport, "stdio_server"):
        transport.stdio_server = stdio_server
