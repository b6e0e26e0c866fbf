"""One line on stderr per tool call over HTTP: when, whose token, which tool, how large the
result was, how long it took, and whether it failed. No argument text (a query says what
someone is looking for) unless ``HTTP_LOG_QUERIES=1``.

    2026-12-06T20:15:39.120Z minirag access name=alice tool=status bytes=912 ms=4.2 result=ok
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from datetime import UTC, datetime
from typing import Any

from fastmcp.server.middleware import Middleware

from minirag_mcp.http_guard import TOKEN_NAME

LOGGER = "minirag_mcp.access"
ARGUMENTS_SHOWN = 2000  # characters of the arguments logged with HTTP_LOG_QUERIES=1
UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]")


def access_logger() -> logging.Logger:
    """The access log's logger, writing bare lines to stderr (set up once, when serving)."""
    logger = logging.getLogger(LOGGER)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return logger


def caller() -> str:
    """The name of the token the current HTTP request carried ("-" outside one)."""
    from fastmcp.server.dependencies import get_http_request

    try:
        state = get_http_request().scope.get("state") or {}
    except RuntimeError:
        return "-"
    return str(state.get(TOKEN_NAME, "-"))


def result_bytes(result: Any) -> int:
    """The size of a tool result as sent: its text blocks, or its structured content."""
    texts = [getattr(block, "text", None) for block in getattr(result, "content", None) or []]
    if any(isinstance(t, str) for t in texts):
        return sum(len(t.encode()) for t in texts if isinstance(t, str))
    structured = getattr(result, "structured_content", None)
    return len(json.dumps(structured).encode()) if structured is not None else 0


class AccessLog(Middleware):
    def __init__(self, log_arguments: bool = False) -> None:
        self.log_arguments = log_arguments
        self.logger = access_logger()

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        started = time.monotonic()
        size, outcome = 0, "error"
        try:
            result = await call_next(context)
            size = result_bytes(result)
            outcome = "error" if getattr(result, "is_error", False) else "ok"
            return result
        finally:
            self.write(context.message, size, outcome, time.monotonic() - started)

    def write(self, message: Any, size: int, outcome: str, seconds: float) -> None:
        stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        tool = UNSAFE.sub("?", str(getattr(message, "name", "-")))[:80]
        line = (
            f"{stamp} minirag access name={caller()} tool={tool} bytes={size} "
            f"ms={seconds * 1000:.1f} result={outcome}"
        )
        if self.log_arguments:
            arguments = json.dumps(getattr(message, "arguments", None), ensure_ascii=False)
            line += f" arguments={arguments[:ARGUMENTS_SHOWN]}"
        self.logger.info(line)
