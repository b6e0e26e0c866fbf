"""The HTTP transport's own checks, on a bare ASGI app: the token rule, the token file, and
the per-client rate bound (its clock replaced, so nothing waits)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest

from minirag_index.settings import ConfigError
from minirag_mcp.config import ServerSettings
from minirag_mcp.http_guard import BearerToken, RateLimit, TokenBuckets, token_matches
from minirag_mcp.http_serve import load_token

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
    app = BearerToken(ok_app, TOKEN)
    good, bad = statuses(app, [{"authorization": f"Bearer {TOKEN}"}, {}])
    assert (good.status_code, good.text) == (200, "ok")
    assert bad.status_code == 401 and bad.json() == {"error": "unauthorized"}


def test_the_token_comes_from_the_variable_or_the_file(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(f"{TOKEN}\n", encoding="utf-8")
    assert load_token(ServerSettings(MINIRAG_TOKEN_FILE=token_file)) == TOKEN
    assert load_token(ServerSettings(MINIRAG_TOKEN=TOKEN, MINIRAG_TOKEN_FILE=token_file)) == TOKEN
    with pytest.raises(ConfigError, match="could not be read"):
        load_token(ServerSettings(MINIRAG_TOKEN_FILE=tmp_path / "missing"))
    with pytest.raises(ConfigError, match="at least 16 characters"):
        load_token(ServerSettings(MINIRAG_TOKEN="short"))


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
