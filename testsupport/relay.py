"""A TCP relay on loopback that a test can cut: an outage of the server behind it, on demand.

>>> with s3_server() as s3, tcp_relay(s3.endpoint) as relay:   # doctest: +SKIP
...     env = {**s3.env(), "AWS_ENDPOINT_URL": relay.endpoint}
...     relay.cut()      # every open connection reset, every new one refused at once
...     relay.restore()  # connections pass again

While cut, the relay still listens (its port stays its own) but resets each connection as soon
as it is accepted, and resets the ones already open: to a client that is an endpoint that went
down. Nothing but 127.0.0.1 is involved.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

_CHUNK = 65_536


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset (SO_LINGER 0), as a host that went away answers."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes the relay's thread blocked reading it
    with contextlib.suppress(OSError):
        sock.close()


class TcpRelay:
    """Forwards every connection to 127.0.0.1:``port`` to ``target`` (host, port)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.cuts = 0  # connections reset because the relay was cut (a test can check any were)
        self._down = threading.Event()
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, name="tcp-relay", daemon=True)
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> None:
        """From now on, and for the connections already open: reset."""
        self._down.set()
        with self._lock:
            sockets, self._open = list(self._open), set()
        for sock in sockets:
            _reset(sock)

    def restore(self) -> None:
        self._down.clear()

    def close(self) -> None:
        self.cut()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread waiting in accept()
        with contextlib.suppress(OSError):
            self._listener.close()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # closed
            if self._down.is_set():
                self.cuts += 1
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _reset(client)
                continue
            upstream.settimeout(None)
            with self._lock:
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(_CHUNK):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(source)
                self._open.discard(sink)
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.close()


@contextmanager
def tcp_relay(endpoint: str) -> Iterator[TcpRelay]:
    """A relay to ``endpoint`` (``http://host:port``) for the duration of the block."""
    parts = urlsplit(endpoint)
    if parts.hostname is None or parts.port is None:
        raise ValueError(f"{endpoint} names no host and port")
    relay = TcpRelay((parts.hostname, parts.port))
    try:
        yield relay
    finally:
        relay.close()
