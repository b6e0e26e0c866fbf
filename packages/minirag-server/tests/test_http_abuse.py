"""A ``serve --http`` process attacked the ways a hostile network would: forwarded headers that
try to reset the rate bound, half-sent requests held open (slowloris), more connections from
one address than it may hold; and a team's named tokens: each works, each call is logged under
its name, and a line removed from the token file stops its token without a restart.

Clients bind other loopback addresses (127.0.0.2 ... on Linux every 127.x address is this
machine) so that one server has peers that are, and are not, a trusted proxy."""

from __future__ import annotations

import asyncio
import select
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest
from fastmcp import Client
from fastmcp.client.auth import BearerAuth

from testsupport.http_server import INITIALIZE, MCP_HEADERS, HttpServer, http_server
from testsupport.mcp import call

ALICE = "alice-token-0123456789abcdef"
BOB = "bob-token-0123456789abcdefgh"
TRUSTED_PROXY = "127.0.0.2"
HEADER_TIMEOUT = 5  # seconds, the test server's (10 by default)
PER_CLIENT = 20  # connections from one address, the test server's (64 by default)
BURST = 20
WAIT = 60.0  # seconds: the bound on every wait below, against a hang on a loaded machine


@dataclass
class Served:
    server: HttpServer
    tokens: Path
    log: Path


def can_bind(address: str) -> bool:
    try:
        with socket.socket() as sock:
            sock.bind((address, 0))
    except OSError:
        return False
    return True


def from_address(address: str) -> httpx2.Client:
    if not can_bind(address):
        pytest.skip(f"{address} is not a local address here (Linux routes all of 127/8)")
    return httpx2.Client(transport=httpx2.HTTPTransport(local_address=address), timeout=WAIT)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, model_dir: Path) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("abuse")
    (base / "docs").mkdir()
    (base / "docs" / "alpha.md").write_text("# Alpha\n\nThe alpha protocol uses port 4242.\n")
    tokens = base / "tokens"
    tokens.write_text(f"# the team\nalice:{ALICE}\n\nbob:{BOB}\n", encoding="utf-8")
    env = {
        "BASE_DIR": str(base / "docs"),
        "DB_PATH": str(base / "index"),
        "MODEL_NAME": str(model_dir),
        "CACHE_DIR": str(base / "cache"),
        "SERVER_LOG": str(base / "server.log"),
        "MINIRAG_TOKEN_FILE": str(tokens),
        "HTTP_TRUSTED_PROXIES": f"{TRUSTED_PROXY}/32",
        "HTTP_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "HTTP_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
        "HTTP_RATE_BURST": str(BURST),
        "HTTP_RATE_PER_SECOND": "2",
        "HTTP_IDLE_TIMEOUT": "3",
    }
    with http_server(env, "") as server:
        yield Served(server, tokens, base / "server.log")


def wrong_token_statuses(client: httpx2.Client, url: str, headers: list[dict[str, str]]) -> list:
    bad = {**MCP_HEADERS, "authorization": "Bearer not-a-token-of-anyone-here"}
    return [client.post(url, json=INITIALIZE, headers={**bad, **h}).status_code for h in headers]


def test_forwarded_headers_from_a_client_do_not_reset_its_bucket(served: Served) -> None:
    forged = [
        [{"x-forwarded-for": f"10.0.{i // 200}.{i % 200}"} for i in range(120)],
        [{"forwarded": f"for=10.1.0.{i}"} for i in range(40)],
        [{"x-real-ip": f"10.2.0.{i}"} for i in range(40)],
    ]
    with from_address("127.0.0.3") as client:
        statuses = [
            status
            for headers in forged
            for status in wrong_token_statuses(client, served.server.url, headers)
        ]
    assert len(statuses) == 200 and set(statuses) == {401, 429}
    # The bucket (20, refilled at 2 a second) bounds the guesses, whatever address is claimed.
    assert statuses.count(401) <= 100


def test_a_trusted_proxy_gets_a_bucket_per_forwarded_client(served: Served) -> None:
    url = served.server.url
    with from_address(TRUSTED_PROXY) as proxy:
        many = wrong_token_statuses(
            proxy, url, [{"x-forwarded-for": f"10.3.{i // 200}.{i % 200}"} for i in range(200)]
        )
        # One client behind it, even one that writes its own X-Forwarded-For in front of the
        # address the proxy appends, still has one bucket.
        one = wrong_token_statuses(
            proxy, url, [{"x-forwarded-for": f"192.0.2.{i}, 10.4.0.1"} for i in range(BURST + 20)]
        )
    assert many == [401] * 200
    assert 429 in one


def wait_for_answers(socks: list[socket.socket]) -> dict[socket.socket, bytes]:
    """The first bytes each socket receives (b"" when closed without a word), within WAIT."""
    answers: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + WAIT
    while len(answers) < len(socks) and time.monotonic() < deadline:
        waiting = [s for s in socks if s not in answers]
        ready, _, _ = select.select(waiting, [], [], 1.0)
        for sock in ready:
            try:
                answers[sock] = sock.recv(4096)
            except OSError:
                answers[sock] = b""
    return answers


def test_half_sent_requests_are_closed_while_a_normal_client_is_served(served: Served) -> None:
    if not can_bind("127.0.0.4"):
        pytest.skip("127.0.0.4 is not a local address here")
    slow = []
    for _ in range(50):
        sock = socket.socket()
        sock.bind(("127.0.0.4", 0))
        sock.connect(("127.0.0.1", served.server.port))
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        slow.append(sock)
    try:
        with httpx2.Client(timeout=WAIT) as normal:
            headers = {**MCP_HEADERS, "authorization": f"Bearer {ALICE}"}
            answered = normal.post(served.server.url, json=INITIALIZE, headers=headers)
        still_open = [s for s in slow if not select.select([s], [], [], 0)[0]]
        answers = wait_for_answers(slow)
    finally:
        for sock in slow:
            sock.close()
    assert answered.status_code == 200
    statuses = [answers.get(s, b"(none)").split(b"\r\n")[0] for s in slow]
    timed_out = statuses.count(b"HTTP/1.1 408 Request Timeout")
    refused = statuses.count(b"HTTP/1.1 503 Service Unavailable")
    # The address may hold PER_CLIENT connections: the rest were refused at once, and those it
    # held were still open when the normal client had its answer, then closed by the timeout.
    assert timed_out + refused == 50 and refused >= 50 - PER_CLIENT - 5
    assert len(still_open) == timed_out
    with from_address("127.0.0.4") as again:  # its connections gone, the address is served
        headers = {**MCP_HEADERS, "authorization": f"Bearer {ALICE}"}
        assert again.post(served.server.url, json=INITIALIZE, headers=headers).status_code == 200


def test_a_stalled_request_body_gets_408(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.server.port), timeout=WAIT) as sock:
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\n"
            b"Authorization: Bearer " + ALICE.encode() + b'\r\nContent-Length: 400\r\n\r\n{"js'
        )
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408 ")


def log_lines(path: Path, *needles: str) -> list[str]:
    deadline = time.monotonic() + WAIT
    while True:
        lines = [
            line
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
            if " minirag access " in line
        ]
        if all(any(n in line for line in lines) for n in needles) or time.monotonic() > deadline:
            return lines
        time.sleep(0.2)


def test_named_tokens_are_logged_by_name_and_a_removed_one_stops(served: Served) -> None:
    url = served.server.url

    async def calls() -> None:
        async with Client(url, auth=BearerAuth(ALICE)) as alice:
            await call(alice, "status")
            await call(alice, "query_documents", {"query": "which port does alpha-unique use"})
        async with Client(url, auth=BearerAuth(BOB)) as bob:
            await call(bob, "list_files")

    asyncio.run(calls())
    lines = log_lines(served.log, "name=alice tool=status", "name=bob tool=list_files")
    assert any("name=alice tool=status" in line and "result=ok" in line for line in lines)
    assert any("name=alice tool=query_documents" in line for line in lines)
    assert any("name=bob tool=list_files" in line for line in lines)
    assert not any("alpha-unique" in line for line in lines)  # no query text by default

    served.tokens.write_text(f"alice:{ALICE}\n", encoding="utf-8")
    deadline = time.monotonic() + WAIT
    with from_address("127.0.0.5") as client:  # polls at the rate its bucket refills

        def status(token: str) -> int:
            headers = {**MCP_HEADERS, "authorization": f"Bearer {token}"}
            return client.post(url, json=INITIALIZE, headers=headers).status_code

        while status(BOB) != 401 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert status(BOB) == 401
        assert status(ALICE) == 200
