"""Bounds on the connections of ``serve --http``, below the requests: a header timeout and a
cap on the connections open from one address.

uvicorn closes a kept-alive connection that stays idle (``timeout_keep_alive``), but it has no
header timeout: a client that sends half a request line and then a byte now and then
(slowloris) keeps its connection for ever, and enough of them exhaust the server. uvicorn's
``Config(http=...)`` accepts the class of the protocol it builds per connection, so
:func:`guarded_protocol` makes one that wraps uvicorn's own HTTP protocol (the one ``http="auto"``
picks), hands every event on to it unchanged, and adds:

- a header timeout: from the moment a connection opens, and from the first byte after a
  response on a kept-alive connection, the request's head must be complete within
  ``header_timeout`` seconds, else the connection is answered 408 and closed. "Complete" is
  learnt from the ASGI side: :class:`TrackRequests`, in front of our other middleware, tells
  the connection (found by the client's address and port, which uvicorn gives both sides)
  when a request reaches the application and when it is done.
- a cap of ``max_per_client`` open connections from one address (trusted proxies excepted:
  they carry many clients): one more is answered 503 and closed at once.

Only uvicorn's documented ``Config`` arguments and its per-connection protocol interface (the
standard :class:`asyncio.Protocol` methods) are used.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from minirag_mcp.http_guard import ASGIApp, Receive, Scope, Send


def raw_response(status: str, error: str) -> bytes:
    body = json.dumps({"error": error}).encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


class ConnectionGuard:
    """The open connections, by peer address, and the rules they are held to."""

    def __init__(
        self,
        header_timeout: float,
        max_per_client: int,
        exempt: Callable[[str], bool] = lambda address: False,
    ) -> None:
        self.header_timeout = header_timeout
        self.max_per_client = max_per_client
        self.exempt = exempt
        self.per_address: dict[str, int] = {}
        self.by_peer: dict[tuple[str, int], GuardedConnection] = {}

    def admit(self, address: str) -> bool:
        count = self.per_address.get(address, 0)
        if count >= self.max_per_client and not self.exempt(address):
            return False
        self.per_address[address] = count + 1
        return True

    def release(self, address: str) -> None:
        count = self.per_address.get(address, 0) - 1
        if count > 0:
            self.per_address[address] = count
        else:
            self.per_address.pop(address, None)

    def connection(self, client: Any) -> GuardedConnection | None:
        if not client:
            return None
        return self.by_peer.get((str(client[0]), int(client[1])))


class GuardedConnection(asyncio.Protocol):
    """One connection: uvicorn's protocol inside, the header timer and the count outside."""

    guard: ConnectionGuard  # set on the class :func:`guarded_protocol` makes
    inner_class: type[asyncio.Protocol]

    def __init__(self, **kwargs: Any) -> None:  # uvicorn's config, server_state, app_state...
        self.inner = self.inner_class(**kwargs)
        self.transport: asyncio.Transport | None = None
        self.peer: tuple[str, int] | None = None
        self.admitted = False
        self.requests = 0  # requests of this connection inside the application now
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        if isinstance(peer, (tuple, list)) and len(peer) >= 2:
            self.peer = (str(peer[0]), int(peer[1]))
        if self.peer is not None:
            if not self.guard.admit(self.peer[0]):
                transport.write(raw_response("503 Service Unavailable", "too many connections"))
                transport.close()
                return
            self.guard.by_peer[self.peer] = self
        self.admitted = True
        self.inner.connection_made(transport)
        self.arm()

    def arm(self) -> None:
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(self.guard.header_timeout, self.expire)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def expire(self) -> None:
        self.timer = None
        transport = self.transport
        if self.requests == 0 and transport is not None and not transport.is_closing():
            timeout = f"request head not complete within {self.guard.header_timeout:g} s"
            transport.write(raw_response("408 Request Timeout", timeout))
            transport.close()

    def request_started(self) -> None:
        self.requests += 1
        self.disarm()

    def request_ended(self) -> None:
        self.requests -= 1

    def data_received(self, data: bytes) -> None:
        if not self.admitted:
            return
        if self.requests == 0 and self.timer is None:  # the first byte of the next request
            self.arm()
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.admitted else None

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if not self.admitted:
            return
        if self.peer is not None:
            self.guard.release(self.peer[0])
            if self.guard.by_peer.get(self.peer) is self:
                del self.guard.by_peer[self.peer]
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.admitted:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.admitted:
            self.inner.resume_writing()


def guarded_protocol(guard: ConnectionGuard) -> type[GuardedConnection]:
    """The protocol class to give uvicorn as ``Config(http=...)``."""
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    inner = import_from_string(HTTP_PROTOCOLS["auto"])  # what http="auto" would have used
    return type("GuardedHttpProtocol", (GuardedConnection,), {"guard": guard, "inner_class": inner})


class TrackRequests:
    """Tells the connection a request came in on when the request reaches the application
    (its head is complete: the header timer stops) and when the application is done."""

    def __init__(self, app: ASGIApp, guard: ConnectionGuard | None) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        connection = None
        if self.guard is not None and scope["type"] == "http":
            connection = self.guard.connection(scope.get("client"))
        if connection is None:
            await self.app(scope, receive, send)
            return
        connection.request_started()
        try:
            await self.app(scope, receive, send)
        finally:
            connection.request_ended()
