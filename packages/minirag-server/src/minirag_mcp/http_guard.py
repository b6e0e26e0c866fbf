"""The checks in front of the HTTP transport, as ASGI middleware: a per-client rate bound (the
client being the peer address, or what a trusted proxy forwards: :class:`Proxies`), 404 on
OAuth discovery paths, the bearer tokens (:mod:`minirag_mcp.tokens`), and a bound on the
request body and on its pauses. (Host and Origin are fastmcp's own guard, placed before these;
the connection guard is below them, :mod:`minirag_mcp.connections`; see
:mod:`minirag_mcp.http_serve`.)

Each refusal is a short fixed JSON body naming nothing of the index, and every check runs
before the request reaches the MCP session.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import math
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from minirag_mcp.errors import ServerError

if TYPE_CHECKING:
    from minirag_mcp.tokens import TokenSource

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REALM = "minirag"
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
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

TOKEN_NAME = "minirag_token_name"  # the key in scope["state"] naming whose token it was
HOW_TO_SEND = (
    "a bearer token is required: send Authorization: Bearer <token>, a token from "
    "MINIRAG_TOKEN or MINIRAG_TOKEN_FILE"
)
CHALLENGE = f'Bearer realm="{REALM}", error_description="{HOW_TO_SEND}"'
# The body says it too: a client that shows only the body (the MCP Inspector) names the token.
MISSING = f"unauthorized: {HOW_TO_SEND}"
NOT_ACCEPTED = "unauthorized: the bearer token sent is not one this server accepts"
INVALID = CHALLENGE.replace("error_description=", 'error="invalid_token", error_description=')


def bearer(given: bytes | None) -> bytes | None:
    """The credentials of an ``Authorization: Bearer ...`` header (the scheme's case does not
    matter, as RFC 7235 says), else None."""
    if given is None:
        return None
    scheme, _, credentials = given.partition(b" ")
    return credentials.strip() if scheme.lower() == b"bearer" else None


def token_matches(given: bytes | None, expected: bytes) -> bool:
    """Whether an Authorization header carries ``Bearer <expected>``, in constant time."""
    credentials = bearer(given)
    return credentials is not None and hmac.compare_digest(credentials, expected)


def is_discovery(path: str) -> bool:
    """An OAuth/OpenID discovery path (``/.well-known/oauth-protected-resource``,
    ``/.well-known/oauth-authorization-server``, their ``/mcp`` suffixed forms, ...)."""
    return path.startswith("/.well-known/") or "/.well-known/" in path


class BearerToken:
    """401 with a ``WWW-Authenticate: Bearer`` challenge saying how to send the token unless
    the request carries one of the tokens ``source`` holds; a wrong token also gets
    ``error="invalid_token"`` (RFC 6750). The token's name goes into ``scope["state"]``.

    Discovery paths answer 404 with or without a token: this server does no OAuth, and a 401
    there sends a client (the MCP Inspector) into an OAuth flow instead of asking for the
    token."""

    def __init__(self, app: ASGIApp, source: TokenSource) -> None:
        self.app = app
        self.source = source

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if is_discovery(str(scope.get("path", ""))):
            await refuse(send, 404, "not found: this server does no OAuth; send the bearer token")
            return
        given = header(scope, b"authorization")
        credentials = bearer(given)
        name = self.source.tokens().name_of(credentials) if credentials is not None else None
        if name is not None:
            scope.setdefault("state", {})[TOKEN_NAME] = name
            await self.app(scope, receive, send)
            return
        challenge, error = (INVALID, NOT_ACCEPTED) if given is not None else (CHALLENGE, MISSING)
        await refuse(send, 401, error, [(b"www-authenticate", challenge.encode())])


# -- the body ---------------------------------------------------------------------------------


class BodyTooLarge(ServerError):
    pass


class BodyStalled(ServerError):
    pass


class BodyLimit:
    """413 for a request whose body is over ``limit`` bytes: at once when Content-Length says
    so, else as soon as the streamed body passes it (nothing past it is handed on). 408, and the
    connection closed, when a body still arriving sends nothing for ``idle`` seconds."""

    def __init__(self, app: ASGIApp, limit: int, idle: float | None = None) -> None:
        self.app = app
        self.limit = limit
        self.idle = idle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = header(scope, b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await refuse(send, 413, f"request body over {self.limit} bytes")
            return
        seen = 0
        done = False
        started = False

        async def bounded_receive() -> Message:
            nonlocal seen, done
            if done or self.idle is None:
                message = await receive()
            else:
                try:
                    message = await asyncio.wait_for(receive(), self.idle)
                except TimeoutError:
                    raise BodyStalled from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                done = not message.get("more_body", False)
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
        except BodyStalled:
            if not started:
                stalled = f"request body stalled for {self.idle:g} s"
                await refuse(send, 408, stalled, [(b"connection", b"close")])


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


def forwarded_chain(scope: Scope) -> list[str]:
    """The client addresses a proxy put in X-Forwarded-For, else Forwarded (``for=``), else
    X-Real-IP, nearest proxy last; ports and brackets removed."""
    values = [
        bytes(v).decode("latin-1")
        for k, v in scope.get("headers", [])
        if k.lower() == b"x-forwarded-for"
    ]
    items = [item for value in values for item in value.split(",")]
    if not items:
        forwarded = [
            bytes(v).decode("latin-1")
            for k, v in scope.get("headers", [])
            if k.lower() == b"forwarded"
        ]
        for element in (e for value in forwarded for e in value.split(",")):
            for pair in element.split(";"):
                key, _, value = pair.strip().partition("=")
                if key.strip().lower() == "for":
                    items.append(value)
    if not items:
        real = header(scope, b"x-real-ip")
        items = [real.decode("latin-1")] if real else []
    return [bare_address(item) for item in items if item.strip()]


def bare_address(item: str) -> str:
    item = item.strip().strip('"')
    if item.startswith("["):  # [2001:db8::1]:4711
        return item[1:].partition("]")[0]
    host, colon, port = item.rpartition(":")
    return host if colon and host.count(":") == 0 and port.isdigit() else item


@dataclass(frozen=True)
class Proxies:
    """The addresses (networks) whose forwarded headers are believed: HTTP_TRUSTED_PROXIES."""

    networks: tuple[IPNetwork, ...] = ()

    def trusts(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)

    def client(self, scope: Scope) -> str:
        """Who a request is from: the peer address, unless the peer is a trusted proxy; then
        the nearest address in the forwarded chain that is not itself a trusted proxy (an
        address a client wrote further left is never believed over one a proxy appended)."""
        peer = scope.get("client")
        address = str(peer[0]) if peer else ""
        if not self.networks or not self.trusts(address):
            return address
        chain = forwarded_chain(scope)
        while chain and self.trusts(chain[-1]) and len(chain) > 1:
            chain.pop()
        return chain[-1] if chain else address


class RateLimit:
    """429 with Retry-After for a client (by address, see :meth:`Proxies.client`) past its
    bucket."""

    def __init__(self, app: ASGIApp, buckets: TokenBuckets, proxies: Proxies | None = None) -> None:
        self.app = app
        self.buckets = buckets
        self.proxies = proxies or Proxies()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        wait = self.buckets.take(self.proxies.client(scope))
        if wait:
            retry = str(max(1, math.ceil(wait))).encode()
            await refuse(send, 429, "too many requests", [(b"retry-after", retry)])
            return
        await self.app(scope, receive, send)
