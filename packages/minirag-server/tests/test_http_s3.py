"""End to end on object storage: a writer syncs into s3:// (a moto server on loopback), and a
read-only HTTP server in another process answers a client with the token - and nobody without
it - writing no object to the bucket."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest
from fastmcp import Client
from fastmcp.client.auth import BearerAuth

from minirag_mcp.commands import main as run_command
from testsupport.http_server import http_server
from testsupport.mcp import call
from testsupport.object_store import S3Server

pytestmark = pytest.mark.s3

TOKEN = "t0ken-for-the-s3-http-test-0123456789"


def test_a_reader_over_s3_answers_with_the_token_and_writes_nothing(
    env: dict, docs: Path, s3_server: S3Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    uri = s3_server.new_bucket() + "/team"
    for name, value in {**s3_server.env(), "DB_PATH": uri}.items():
        monkeypatch.setenv(name, value)
    assert run_command(["sync"]) == 0
    before = sorted(s3_server.keys(uri))
    reader_env = {
        **env,
        **s3_server.env(),
        "DB_PATH": uri,
        "SERVER_LOG": str(tmp_path / "log"),
        "READ_CONSISTENCY_SECONDS": "1",
    }

    async def ask(url: str) -> tuple[dict, dict, dict]:
        async with Client(url, auth=BearerAuth(TOKEN)) as session:
            found = await call(session, "query_documents", {"query": "alpha protocol port"})
            mentions = await call(session, "find_mentions", {"terms": ["tomatoes"]})
            return found, mentions, await call(session, "status")

    async def ask_again(url: str) -> dict:
        """Until the reader finds the writer's new document: bounded at 10 s, well past the
        reader's 1 s interval (a bound against a hang, not a speed claim)."""
        async with Client(url, auth=BearerAuth(TOKEN)) as session:
            for _ in range(20):
                found = await call(session, "query_documents", {"query": "omega relay dusk"})
                if found["hits"] and found["hits"][0]["source"] == str(docs / "omega.md"):
                    break
                await asyncio.sleep(0.5)
            return {**found, "status": await call(session, "status")}

    with http_server(reader_env, TOKEN, "--read-only") as server:
        found, mentions, status = asyncio.run(ask(server.url))
        refused = httpx2.post(server.url, json={})
        after_reading = sorted(s3_server.keys(uri))
        # The writer commits again: the reader answers from the new version within its interval.
        (docs / "omega.md").write_text("# Omega\n\nThe omega relay hums at dusk.\n", "utf-8")
        assert run_command(["sync"]) == 0
        after_sync = sorted(s3_server.keys(uri))
        later = asyncio.run(ask_again(server.url))
    assert found["hits"][0]["source"] == str(docs / "alpha.md")
    assert [d["displayPath"] for d in mentions["documents"]] == ["garden/tomatoes.md"]
    assert (status["store"], status["readOnly"]) == ("s3", True)
    assert later["hits"][0]["source"] == str(docs / "omega.md")
    assert later["status"]["indexVersion"] > status["indexVersion"]
    assert refused.status_code == 401 and "alpha" not in refused.text
    assert after_reading == before and sorted(s3_server.keys(uri)) == after_sync
