"""The HTTP transport's own checks, on a bare ASGI app: the token rule, the token file (named
tokens, re-read on change), the per-client rate bound (its clock replaced, so nothing waits)
and whose forwarded headers it believes."""

from __future__ import annotations

import asyncio
import ipaddress
from pathlib import Path
from typing import Any

import httpx2
import pytest

from minirag_index.settings import ConfigError
from minirag_mcp.access_log import AccessLog
from minirag_mcp.config import ConfigProblem, ServerSettings, load_config
from minirag_mcp.connections import ConnectionGuard
from minirag_mcp.http_guard import (
    TOKEN_NAME,
    BearerToken,
    Proxies,
    RateLimit,
    TokenBuckets,
    token_matches,
)
from minirag_mcp.http_serve import load_token
from minirag_mcp.tokens import load_tokens

TOKEN = "a-token-long-enough-1234"


async def ok_app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def statuses(app: Any, requests: list[dict[str, str]]) -> list[httpx2.Response]:
    async def go() -> list[httpx2.Response]:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            return [await c.post("/mcp", headers=headers) for headers in requests]

    return asyncio.run(go())


def test_only_the_bearer_token_itself_is_let_through() -> None:
    expected = TOKEN.encode()
    assert token_matches(f"Bearer {TOKEN}".encode(), expected)
    assert token_matches(f"bearer {TOKEN}".encode(), expected)
    assert not token_matches(None, expected)
    assert not token_matches(TOKEN.encode(), expected)
    assert not token_matches(f"Basic {TOKEN}".encode(), expected)
    assert not token_matches(f"Bearer {TOKEN}x".encode(), expected)
    assert not token_matches(f"Bearer {TOKEN[:-1]}".encode(), expected)
    app = BearerToken(ok_app, load_tokens(TOKEN, None))
    good, bad, wrong = statuses(
        app, [{"authorization": f"Bearer {TOKEN}"}, {}, {"authorization": "Bearer nope"}]
    )
    assert (good.status_code, good.text) == (200, "ok")
    assert bad.status_code == 401
    assert bad.json()["error"].startswith("unauthorized: a bearer token is required")
    assert "not one this server accepts" in wrong.json()["error"]
    # The challenge says how to send the token, naming the variables it comes from.
    challenge = bad.headers["www-authenticate"]
    assert challenge.startswith('Bearer realm="minirag"')
    assert "Authorization: Bearer <token>" in challenge and "MINIRAG_TOKEN_FILE" in challenge
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]


def test_oauth_discovery_paths_answer_404_with_or_without_a_token() -> None:
    async def go() -> list[int]:
        app = BearerToken(ok_app, load_tokens(TOKEN, None))
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            paths = [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-authorization-server",
                "/.well-known/oauth-authorization-server/mcp",
                "/.well-known/openid-configuration",
                "/mcp/.well-known/openid-configuration",
            ]
            found = [(await c.get(p)).status_code for p in paths]
            auth = {"authorization": f"Bearer {TOKEN}"}
            found.append((await c.get(paths[0], headers=auth)).status_code)
            return found

    assert asyncio.run(go()) == [404] * 7


def test_the_token_comes_from_the_variable_or_the_file(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(f"{TOKEN}\n", encoding="utf-8")
    from_file = load_token(ServerSettings(MINIRAG_TOKEN_FILE=token_file)).tokens()
    assert from_file.name_of(TOKEN.encode()) == "token"  # a bare token is named after its file
    both = load_token(ServerSettings(MINIRAG_TOKEN=TOKEN, MINIRAG_TOKEN_FILE=token_file))
    assert both.tokens().name_of(TOKEN.encode()) == "MINIRAG_TOKEN"
    with pytest.raises(ConfigError, match="could not be read"):
        load_token(ServerSettings(MINIRAG_TOKEN_FILE=tmp_path / "missing"))
    with pytest.raises(ConfigError, match="at least 16 characters"):
        load_token(ServerSettings(MINIRAG_TOKEN="short"))


def test_named_tokens_in_a_file_or_a_folder(tmp_path: Path) -> None:
    team = tmp_path / "team"
    team.write_text(f"# readers\nalice:alice-{TOKEN}\n\n  bob:bob-{TOKEN}  \n", encoding="utf-8")
    tokens = load_tokens(None, team).tokens()
    assert tokens.name_of(f"alice-{TOKEN}".encode()) == "alice"
    assert tokens.name_of(f"bob-{TOKEN}".encode()) == "bob"
    assert tokens.name_of(TOKEN.encode()) is None
    folder = tmp_path / "tokens.d"
    folder.mkdir()
    (folder / "carol").write_text(f"carol-{TOKEN}\n", encoding="utf-8")
    (folder / "more").write_text(f"dave:dave-{TOKEN}\n", encoding="utf-8")
    (folder / ".carol.swp").write_text("not read", encoding="utf-8")
    in_folder = load_tokens(None, folder).tokens()
    assert in_folder.name_of(f"carol-{TOKEN}".encode()) == "carol"
    assert in_folder.name_of(f"dave-{TOKEN}".encode()) == "dave"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (f"alice:{TOKEN}\nbob:short\n", "line 2: a token must be at least 16 characters"),
        (f"al ice:{TOKEN}\n", "line 1: the name before ':' must be"),
        (f"alice:{TOKEN}\nalice:other-{TOKEN}\n", "the name 'alice' is used twice"),
        (f"alice:{TOKEN}\nbob:{TOKEN}\n", "one token is listed under two names"),
        ("# nobody yet\n", "holds no token"),
    ],
)
def test_a_bad_token_file_is_refused_at_start_naming_file_and_line(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "tokens"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="MINIRAG_TOKEN_FILE") as raised:
        load_tokens(None, path)
    assert says in str(raised.value) and str(path) in str(raised.value)


def test_a_changed_token_file_is_re_read_within_a_second(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_text(f"alice:alice-{TOKEN}\nbob:bob-{TOKEN}\n", encoding="utf-8")
    now = [100.0]
    source = load_tokens(None, path, clock=lambda: now[0])
    path.write_text(f"alice:alice-{TOKEN}\nbob:short\n", encoding="utf-8")
    now[0] += 0.5  # not looked at again yet
    assert source.tokens().name_of(f"bob-{TOKEN}".encode()) == "bob"
    now[0] += 0.6
    tokens = source.tokens()  # the bad line is skipped, the good one kept
    assert tokens.name_of(f"bob-{TOKEN}".encode()) is None
    assert tokens.name_of(f"alice-{TOKEN}".encode()) == "alice"
    path.unlink()  # a file that cannot be read accepts nobody
    now[0] += 1.1
    assert source.tokens().name_of(f"alice-{TOKEN}".encode()) is None


def test_the_token_name_is_handed_to_the_application() -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["state"][TOKEN_NAME])
        await ok_app(scope, receive, send)

    statuses(BearerToken(app, load_tokens(TOKEN, None)), [{"authorization": f"Bearer {TOKEN}"}])
    assert seen == ["MINIRAG_TOKEN"]


def test_a_client_past_its_burst_waits_and_another_client_does_not() -> None:
    now = [0.0]
    buckets = TokenBuckets(rate=2.0, burst=3, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") == 0.0
    now[0] = 0.5  # one token back
    assert buckets.take("a") == 0.0
    assert buckets.take("a") > 0


def test_the_rate_bound_answers_429_with_retry_after() -> None:
    app = RateLimit(ok_app, TokenBuckets(rate=0.01, burst=2, clock=lambda: 0.0))
    first, second, third = statuses(app, [{}, {}, {}])
    assert [first.status_code, second.status_code, third.status_code] == [200, 200, 429]
    assert int(third.headers["retry-after"]) >= 1


def scope_from(peer: str, headers: dict[str, str]) -> dict[str, Any]:
    encoded = [(k.encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "client": (peer, 50000), "headers": encoded}


def test_forwarded_headers_count_only_from_a_trusted_proxy() -> None:
    none = Proxies()
    proxies = Proxies((ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("::1/128")))
    forged = {"x-forwarded-for": "203.0.113.9"}
    assert none.client(scope_from("127.0.0.1", forged)) == "127.0.0.1"
    assert proxies.client(scope_from("192.0.2.1", forged)) == "192.0.2.1"
    assert proxies.client(scope_from("10.1.2.3", forged)) == "203.0.113.9"
    # What a client wrote to the left of what the proxies appended is never believed.
    chain = {"x-forwarded-for": "198.51.100.7, 203.0.113.9, 10.9.9.9"}
    assert proxies.client(scope_from("10.1.2.3", chain)) == "203.0.113.9"
    assert proxies.client(scope_from("::1", {"forwarded": 'for="[2001:db8::5]:4711"'})) == (
        "2001:db8::5"
    )
    assert proxies.client(scope_from("10.1.2.3", {"x-real-ip": "198.51.100.8"})) == ("198.51.100.8")
    assert proxies.client(scope_from("10.1.2.3", {})) == "10.1.2.3"


@pytest.mark.parametrize("value", ["10.0.0.0/8, not-an-address", "300.1.1.1", "10.0.0.0/99"])
def test_a_bad_trusted_proxy_list_is_a_configuration_error(
    env: dict, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("HTTP_TRUSTED_PROXIES", value)
    config = load_config({})
    assert isinstance(config, ConfigProblem)
    assert "HTTP_TRUSTED_PROXIES must be IP addresses or networks" in config.error


def test_the_connection_cap_counts_per_address_and_spares_trusted_proxies() -> None:
    proxies = Proxies((ipaddress.ip_network("10.0.0.5/32"),))
    guard = ConnectionGuard(header_timeout=10, max_per_client=2, exempt=proxies.trusts)
    assert [guard.admit("192.0.2.1") for _ in range(3)] == [True, True, False]
    assert guard.admit("192.0.2.2")  # another address has its own count
    guard.release("192.0.2.1")
    assert guard.admit("192.0.2.1")  # a closed connection gives its place back
    assert all(guard.admit("10.0.0.5") for _ in range(10))


class Message:
    def __init__(self, name: str, arguments: dict[str, Any]) -> None:
        self.name, self.arguments = name, arguments


@pytest.mark.parametrize("log_queries", [False, True])
def test_the_access_log_names_the_tool_and_holds_the_query_only_when_asked(
    log_queries: bool,
) -> None:
    import logging

    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    keep = Keep()
    access = AccessLog(log_arguments=log_queries)
    access.logger.addHandler(keep)
    try:
        access.write(Message("query_documents", {"query": "salary of the CEO"}), 512, "ok", 0.25)
    finally:
        access.logger.removeHandler(keep)
    (line,) = lines
    assert "name=- tool=query_documents bytes=512 ms=250.0 result=ok" in line
    assert ("salary of the CEO" in line) is log_queries
