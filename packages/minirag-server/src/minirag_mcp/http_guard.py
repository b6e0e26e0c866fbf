"""The checks in front of the HTTP transport, as ASGI middleware: a per-client rate bound, the
bearer token, and a bound on the request body. (Host and Origin are fastmcp's own guard,
placed before these; see :mod:`minirag_mcp.http_serve`.)

Each refusal is a short fixed JSON body naming nothing of the index, and every check runs
before the request reaches the MCP session.
"""

from __future__ import annotations

import hmac
import json
import math
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REALM = "minirag"
BUCKETS_KEPT = 10_000  # clients remembered by the rate bound; the idlest are forgotten first


async def refuse(
    send: Send, status: int, error: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Answer with ``status`` and ``{"error": error}``, closing the connection's request."""
    body = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value)
    return None


# -- the token ------------------------------------------------------------------------------


def token_matches(given: bytes | None, expected: bytes) -> bool:
    """Whether an Authorization header carries ``Bearer <expected>``, compared in constant
    time (the scheme's case does not matter, as RFC 7235 says)."""
    if given is None:
        return False
    scheme, _, credentials = given.partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(credentials.strip(), expected)


class BearerToken:
    """401 with a ``WWW-Authenticate: Bearer`` challenge unless the request carries the
    token; a wrong token also gets ``error="invalid_token"`` (RFC 6750)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = header(scope, b"authorization")
        if token_matches(given, self.token):
            await self.app(scope, receive, send)
            return
        challenge = f'Bearer realm="{REALM}"'
        if given is not None:
            challenge += ', error="invalid_token"'
        await refuse(send, 401, "unauthorized", [(b"www-authenticate", challenge.encode())])


# -- the body ---------------------------------------------------------------------------------


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """413 for a request whose body is over ``limit`` bytes: at once when Content-Length says
    so, else as soon as the streamed body passes it (nothing past it is handed on)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await refuse(send, 413, f"request body over {self.limit} bytes")
            return
        seen = 0
        started = False

        async def bounded_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, bounded_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await refuse(send, 413, f"request body over {self.limit} bytes")


# -- the rate ---------------------------------------------------------------------------------


@dataclass
class TokenBuckets:
    """A token bucket per client: ``burst`` requests at once, refilled at ``rate`` a second.
    ``clock`` is injectable so the rule can be tested without waiting."""

    rate: float
    burst: int
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)  # tokens, when
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, client: str) -> float:
        """0 when ``client`` may go ahead (one token taken), else the seconds until it may."""
        now = self.clock()
        with self._lock:
            tokens, then = self._buckets.pop(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[client] = (tokens - 1 if not wait else tokens, now)
            if len(self._buckets) > BUCKETS_KEPT:  # the least recently seen goes
                self._buckets.pop(next(iter(self._buckets)))
        return wait


class RateLimit:
    """429 with Retry-After for a client (by address) past its bucket."""

    def __init__(self, app: ASGIApp, buckets: TokenBuckets) -> None:
        self.app = app
        self.buckets = buckets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        wait = self.buckets.take(str(client[0]) if client else "")
        if wait:
            retry = str(max(1, math.ceil(wait))).encode()
            await refuse(send, 429, "too many requests", [(b"retry-after", retry)])
            return
        await self.app(scope, receive, send)
