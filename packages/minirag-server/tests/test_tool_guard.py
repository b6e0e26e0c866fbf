"""A tool call that fails in any way answers with a tool error, and the server keeps serving."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastmcp import Client

from minirag_mcp import operations as ops
from minirag_mcp.config import load_config
from minirag_mcp.results import DocumentText
from minirag_mcp.server import create_app
from testsupport.mcp import call, error_of


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("even the message fails")


def raising(exc: BaseException):
    def operation(*args: Any, **kwargs: Any) -> Any:
        raise exc

    return operation


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (Unprintable(), "Unprintable"),
        (SystemExit(3), "SystemExit"),
        (RecursionError("maximum recursion depth exceeded"), "maximum recursion depth"),
        (MemoryError(), "MemoryError"),
        (RuntimeError("caf\udce9 is gone"), "caf\\xe9 is gone"),
    ],
)
def test_anything_a_tool_raises_is_a_tool_error_and_status_still_answers(
    env: dict, monkeypatch: pytest.MonkeyPatch, exc: BaseException, expected: str
) -> None:
    monkeypatch.setattr(ops, "read_file", raising(exc))

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            message = await error_of(client, "read_file", {"filePath": "/x.md"})
            assert expected in message
            message.encode("utf-8")
            assert (await call(client, "status"))["version"]

    asyncio.run(go())


def test_a_result_holding_undecodable_bytes_is_sent_escaped(
    env: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = DocumentText(source="/docs/caf\udce9.md", title="caf\udce9", text="ok", total_chars=2)
    monkeypatch.setattr(ops, "read_file", lambda *a, **k: payload)

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            result = await call(client, "read_file", {"filePath": "/docs/x.md"})
            assert result["source"] == "/docs/caf\\xe9.md" and result["text"] == "ok"

    asyncio.run(go())


def test_arguments_holding_lone_surrogates_are_answered(env: dict, docs) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            message = await error_of(client, "read_file", {"filePath": f"{docs}/caf\udce9.md"})
            assert "caf\\xe9.md" in message
            message = await error_of(client, "ingest_file", {"filePath": f"{docs}/\udcff.md"})
            message.encode("utf-8")
            assert (await call(client, "status"))["version"]

    asyncio.run(go())
