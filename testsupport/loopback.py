"""A file server on 127.0.0.1 for download and fetch tests: no network beyond loopback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FileServer:
    """Serves ``files`` (request path without its leading "/" -> bytes), 404 for anything
    else, and records every requested path in ``requests``. ``url`` is the server's address
    followed by ``prefix``. ``types`` gives a path its Content-Type header (none otherwise)."""

    def __init__(self, prefix: str = "") -> None:
        self.files: dict[str, bytes] = {}
        self.types: dict[str, str] = {}
        self.requests: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests.append(self.path)
                body = owner.files.get(self.path.lstrip("/"))
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                content_type = owner.types.get(self.path.lstrip("/"))
                if content_type:
                    self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{prefix}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def file_server(prefix: str = "") -> Iterator[FileServer]:
    served = FileServer(prefix)
    try:
        yield served
    finally:
        served.close()
