"""fastmcp's session state in the plain store: the same behaviour, without py-key-value."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from fastmcp import Client, Context, FastMCP
from fastmcp.exceptions import ToolError

from minirag_mcp.session_state import PlainStateStore, use_plain_state_store


def test_a_server_answers_calls_without_importing_the_default_store(tmp_path) -> None:
    script = """
import asyncio, json, sys
from mcp import Client  # fastmcp's own client imports py-key-value for its auth
from minirag_mcp.server import create_app

async def main():
    async with Client(create_app()._mcp_server) as client:
        await client.list_tools()
        status = await client.call_tool("status", {})
    return status.structured_content is not None

answered = asyncio.run(main())
tops = {name.split(".")[0] for name in sys.modules}
loaded = sorted(tops & {"key_value", "beartype"})
print(json.dumps({"answered": answered, "loaded": loaded}))
"""
    env = {
        "BASE_DIR": str(tmp_path),
        "DB_PATH": str(tmp_path / "db"),
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"answered": True, "loaded": []}


def _app_with_state(plain: bool) -> FastMCP:
    app = FastMCP("state")
    if plain:
        assert use_plain_state_store(app)

    @app.tool
    async def remember(ctx: Context, value: str) -> str:
        await ctx.set_state("value", {"text": value})
        return "ok"

    @app.tool
    async def recall(ctx: Context) -> str:
        found = await ctx.get_state("value")
        return "nothing" if found is None else found["text"]

    @app.tool
    async def remember_and_recall(ctx: Context, value: str) -> str:
        await ctx.set_state("value", {"text": value})
        found = await ctx.get_state("value")
        return "nothing" if found is None else found["text"]

    @app.tool
    async def forget(ctx: Context) -> str:
        await ctx.delete_state("value")
        return "ok"

    @app.tool
    async def remember_unserialisable(ctx: Context) -> str:
        await ctx.set_state("value", object())
        return "ok"

    return app


CALLS = [
    ("recall", {}),
    ("remember", {"value": "kept"}),
    ("recall", {}),
    ("remember_and_recall", {"value": "again"}),
    ("forget", {}),
    ("recall", {}),
]


def test_state_answers_as_fastmcps_own_store_does() -> None:
    async def run(plain: bool) -> list[str]:
        async with Client(_app_with_state(plain)) as client:
            return [(await client.call_tool(name, args)).data for name, args in CALLS]

    answers = asyncio.run(run(plain=True))
    assert answers == asyncio.run(run(plain=False))
    assert answers[3] == "again"  # what a call stores, it reads back


def test_a_value_json_cannot_hold_is_refused_as_fastmcp_refuses_it() -> None:
    async def run() -> str:
        async with Client(_app_with_state(plain=True)) as client:
            with pytest.raises(ToolError) as refused:
                await client.call_tool("remember_unserialisable", {})
            return str(refused.value)

    assert "not serializable" in asyncio.run(run())


def test_values_expire_after_their_time_to_live(monkeypatch) -> None:
    from fastmcp.server.server import StateValue

    store = PlainStateStore()
    clock = [100.0]
    monkeypatch.setattr("minirag_mcp.session_state.time.monotonic", lambda: clock[0])

    async def run() -> tuple[object, object, bool]:
        await store.put(key="k", value=StateValue(value=[1, 2]), ttl=10)
        fresh = await store.get(key="k")
        clock[0] = 110.0
        stale = await store.get(key="k")
        return fresh, stale, await store.delete(key="k")

    fresh, stale, deleted = asyncio.run(run())
    assert fresh == StateValue(value=[1, 2])
    assert stale is None
    assert deleted is False  # already forgotten


def test_a_fastmcp_with_its_store_made_keeps_it() -> None:
    app = FastMCP("made")
    app._state_store  # noqa: B018  # fastmcp makes its default store on first use
    assert not use_plain_state_store(app)
