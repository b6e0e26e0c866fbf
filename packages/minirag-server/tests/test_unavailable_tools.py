"""A call naming a tool the server does not offer - no such tool, or a write tool on a read-only
server - answers one line saying which tool and why, and the server logs no traceback."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.mcp import call, error_of

READ_ONLY_ANSWER = (
    "'sync_start' is not available: this server is read-only (READ_ONLY=1): sync, ingest and "
    "delete run on the writer's machine"
)


def test_an_unknown_tool_is_named_with_the_tools_there_are(env: dict) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            message = await error_of(client, "search_everything", {"query": "x"})
            assert message.startswith("unknown tool 'search_everything'; this server's tools")
            assert "query_documents" in message and "\n" not in message
            assert "unexpectedly" not in message and "NotFoundError" not in message
            assert (await call(client, "status"))["version"]

    asyncio.run(go())


def test_a_write_tool_on_a_read_only_server_says_the_server_is_read_only(
    env: dict, tmp_path: Path
) -> None:
    config = load_config({"read_only": True, "db_path": str(tmp_path / "db")})

    async def go() -> None:
        async with Client(create_app(config)) as client:
            assert await error_of(client, "sync_start") == READ_ONLY_ANSWER
            message = await error_of(client, "delete_file", {"source": "x"})
            assert message.startswith("'delete_file' is not available: this server is read-only")
            # a name no server has is still just unknown
            message = await error_of(client, "nope")
            assert message.startswith("unknown tool 'nope'")
            assert "sync_start" not in message  # only the tools this server offers are named

    asyncio.run(go())


def _stdio(env: dict, errlog: Any) -> Any:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "minirag_mcp"],
        env={**env, "FASTMCP_CHECK_FOR_UPDATES": "off", "HF_HUB_OFFLINE": "1"},
    )

    class Session:
        async def __aenter__(self) -> Any:
            self.stack = stdio_client(params, errlog=errlog)
            read, write = await self.stack.__aenter__()
            self.client = ClientSession(read, write)
            session = await self.client.__aenter__()
            await session.initialize()
            return session

        async def __aexit__(self, *exc: Any) -> None:
            await self.client.__aexit__(*exc)
            await self.stack.__aexit__(*exc)

    return Session()


def test_over_stdio_the_answers_are_one_line_and_the_log_holds_no_traceback(
    env: dict, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    read_only = {**env, "READ_ONLY": "1", "DB_PATH": str(tmp_path / "db")}

    async def go() -> list[str]:
        answers = []
        with log.open("w") as errlog:
            async with _stdio(read_only, errlog) as session:
                for name in ("sync_start", "ingest_file", "frobnicate"):
                    result = await session.call_tool(name, {})
                    assert result.is_error
                    answers.append(result.content[0].text)
                assert not (await session.call_tool("status", {})).is_error
        return answers

    answers = asyncio.run(go())
    assert answers[0] == READ_ONLY_ANSWER
    assert answers[1].startswith("'ingest_file' is not available: this server is read-only")
    assert answers[2].startswith("unknown tool 'frobnicate'")
    text = log.read_text()
    assert "Traceback" not in text and "NotFoundError" not in text, text
    assert "unexpectedly" not in text, text
