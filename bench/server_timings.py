"""Where a tool call's time goes inside the server, for bench/mcp_query.py.

    python bench/server_timings.py     # the stdio server, as `minirag-mcp` with no arguments

starts the stdio server with timing hooks added; it writes one line to stderr per tool call,
after the response is encoded::

    minirag-timings tool=query_documents decode=0.09 dispatch=0.21 search=9.80 payload=0.40
    convert=1.10 respond=0.30 encode=0.35 bytes=18233

in milliseconds: ``decode`` the request line parsed as JSON-RPC; ``dispatch`` from there to the
tool call reaching the middleware; ``search`` ``MiniragIndex.search``; ``payload`` the rest of
building the result (sources, look-alikes, the result model; ``query_documents`` only);
``convert`` fastmcp turning the arguments and the result into the call result (the tool's
thread hand-off included); ``respond`` from there to the response being encoded; ``encode``
the response serialised to JSON; ``bytes`` its length. What a client measures beyond these is
the pipes, the writes and its own parsing.

The hooks wrap library functions (the JSON-RPC adapter, the response model, the search): a
measuring tool's liberty, which is why this lives in bench/ and the product never runs it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from fastmcp.server.middleware import Middleware

PREFIX = "minirag-timings"


class _Recorder:
    """The current call's marks: the server answers the bench's calls one at a time."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self.decoded_at = 0.0
        self.decode_ms = 0.0
        self.call: dict[str, Any] | None = None

    def decoded(self, started: float) -> None:
        self.decoded_at = time.perf_counter()
        self.decode_ms = (self.decoded_at - started) * 1000

    def begin(self, tool: str) -> None:
        now = time.perf_counter()
        self.call = {
            "tool": tool,
            "decode": self.decode_ms,
            "dispatch": (now - self.decoded_at) * 1000 if self.decoded_at else 0.0,
            "entered": now,
            "search": 0.0,
            "body": 0.0,
        }

    def add(self, part: str, ms: float) -> None:
        if self.call is not None:
            self.call[part] += ms

    def handled(self) -> None:
        if self.call is not None:
            now = time.perf_counter()
            self.call["handled"] = now
            self.call["convert"] = (now - self.call["entered"]) * 1000 - self.call["body"]

    def encoded(self, started: float, size: int) -> None:
        call, self.call = self.call, None
        if call is None or "handled" not in call:
            return
        ended = time.perf_counter()
        parts = {
            "decode": call["decode"],
            "dispatch": call["dispatch"],
            "search": call["search"],
            "payload": max(0.0, call["body"] - call["search"]),
            "convert": call["convert"],
            "respond": (started - call["handled"]) * 1000,
            "encode": (ended - started) * 1000,
        }
        shown = " ".join(f"{name}={ms:.3f}" for name, ms in parts.items())
        print(f"{PREFIX} tool={call['tool']} {shown} bytes={size}", file=self.out, flush=True)


class CallTimings(Middleware):
    """Marks where a tool call enters the middleware chain and where its result leaves it."""

    def __init__(self, recorder: _Recorder) -> None:
        self.recorder = recorder

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        self.recorder.begin(str(getattr(context.message, "name", "")))
        try:
            return await call_next(context)
        finally:
            self.recorder.handled()


def _timed(func: Callable[..., Any], part: str, recorder: _Recorder) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            recorder.add(part, (time.perf_counter() - started) * 1000)

    return timed


class _TimedAdapter:
    """The JSON-RPC message adapter, timing the parse of each incoming line."""

    def __init__(self, adapter: Any, recorder: _Recorder) -> None:
        self._adapter = adapter
        self._recorder = recorder

    def validate_json(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self._adapter.validate_json(*args, **kwargs)
        finally:
            self._recorder.decoded(started)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapter, name)


def install(server: Any, out: Any = None) -> None:
    """Add the hooks to ``server`` (a FastMCP) and the libraries under it (see the module text)."""
    from mcp.server import stdio

    from minirag_index import MiniragIndex
    from minirag_mcp import searching

    recorder = _Recorder(sys.stderr if out is None else out)
    server.add_middleware(CallTimings(recorder))
    wire: Any = stdio.types  # type: ignore[attr-defined]  # the types its transport uses
    wire.jsonrpc_message_adapter = _TimedAdapter(wire.jsonrpc_message_adapter, recorder)
    MiniragIndex.search = _timed(MiniragIndex.search, "search", recorder)  # type: ignore[method-assign]
    for name in ("query_documents", "find_mentions"):
        setattr(searching, name, _timed(getattr(searching, name), "body", recorder))

    response = wire.JSONRPCResponse
    dump = response.model_dump_json

    def model_dump_json(self: Any, *args: Any, **kwargs: Any) -> str:
        started = time.perf_counter()
        text = dump(self, *args, **kwargs)
        recorder.encoded(started, len(text.encode("utf-8")))
        return text

    response.model_dump_json = model_dump_json


def main() -> None:
    from minirag_mcp.cli import tune_process

    tune_process()
    from minirag_mcp.config import load_config
    from minirag_mcp.server import serve_stdio

    serve_stdio(load_config({}), prepare=install)


if __name__ == "__main__":
    main()
