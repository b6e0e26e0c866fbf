"""The real server over HTTP in a child process (``python -m minirag_mcp serve --http``), on
127.0.0.1 and a free port, for tests that talk to it as a remote client would."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 180.0  # seconds: an upper bound against a hang on a loaded machine
# A client's first request, as a raw POST sends it.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@dataclass(frozen=True)
class HttpServer:
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp
    port: int
    token: str
    process: subprocess.Popen[str]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(env: dict[str, str], token: str, *args: str) -> Iterator[HttpServer]:
    """Start ``serve --http ARGS`` with ``env`` (over this process's environment) and the
    token (as MINIRAG_TOKEN, unless ``env`` names a MINIRAG_TOKEN_FILE); yield once it answers
    (a 401 to a request without the token); stop it at the end."""
    import httpx2

    port = free_port()
    full_env = {
        **os.environ,
        **env,
        **({} if "MINIRAG_TOKEN_FILE" in env else {"MINIRAG_TOKEN": token}),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "HF_HUB_OFFLINE": "1",
    }
    command = [sys.executable, "-m", "minirag_mcp", "serve", "--http", "--port", str(port), *args]
    log = Path(env.get("SERVER_LOG", os.devnull))
    with log.open("w") as stderr:
        process = subprocess.Popen(
            command, env=full_env, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr, text=True
        )
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while True:
                if process.poll() is not None:
                    raise AssertionError(f"the server exited with {process.returncode}")
                try:
                    if httpx2.post(url, json={}, timeout=2).status_code == 401:
                        break
                except httpx2.TransportError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError("the HTTP server did not start")
                time.sleep(0.2)
            yield HttpServer(url=url, port=port, token=token, process=process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
