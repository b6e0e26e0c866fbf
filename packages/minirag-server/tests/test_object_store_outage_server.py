"""The CLI and the MCP tools over an index on object storage whose store is down (a moto S3
server on loopback behind a relay the test cuts): each says the store could not be reached,
naming it, in one line - never "the index is empty", an empty listing or 0 documents; status
still answers (exit 0) and says so."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from minirag_mcp.commands import main as run_command
from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.mcp import call, error_of
from testsupport.object_store import SECRET, S3Server
from testsupport.relay import TcpRelay, tcp_relay

pytestmark = [pytest.mark.slow, pytest.mark.s3]  # reads of a down store wait out retries

EMPTY_WORDS = ("index is empty", "nothing has been synced", "not_indexed", "documents: 0")


@pytest.fixture
def relay(s3_server: S3Server) -> Iterator[TcpRelay]:
    with tcp_relay(s3_server.endpoint) as relay:
        yield relay


@pytest.fixture
def synced_uri(
    env: dict, s3_server: S3Server, relay: TcpRelay, monkeypatch: pytest.MonkeyPatch
) -> str:
    """An index of the three documents on S3, reached through the relay."""
    uri = s3_server.new_bucket() + "/team"
    for name, value in {**s3_server.env(), "AWS_ENDPOINT_URL": relay.endpoint}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DB_PATH", uri)
    monkeypatch.setenv("READ_CONSISTENCY_SECONDS", "0")
    assert run_command(["sync"]) == 0
    return uri


def outage_line(text: str, uri: str) -> str:
    """The one line of ``text`` saying the store could not be reached (it must be there)."""
    lines = [line for line in text.splitlines() if "could not be reached" in line]
    assert lines, text
    assert f"the index store {uri} could not be reached" in lines[0], lines[0]
    return lines[0]


def test_every_cli_reader_reports_the_outage_and_exits_1_status_answers(
    synced_uri: str, docs: Path, relay: TcpRelay
) -> None:
    relay.cut()
    commands = {
        "query": ["query", "alpha protocol port"],
        "find": ["find", "tomatoes"],
        "list": ["list"],
        "read": ["read", str(docs / "alpha.md")],
        "read-neighbors": [
            "read-neighbors",
            "--file-path",
            str(docs / "alpha.md"),
            "--chunk-index",
            "0",
        ],
        "sync": ["sync"],
        "status": ["status"],
        "status --json": ["status", "--json"],
    }
    # Real processes, all at once (each waits out the store's retries on its own).
    running = {
        name: subprocess.Popen(
            [sys.executable, "-m", "minirag_mcp", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for name, args in commands.items()
    }
    results = {name: (p.wait(timeout=600), *p.communicate()) for name, p in running.items()}
    for name, (code, out, err) in results.items():
        assert not any(word in out + err for word in EMPTY_WORDS), (name, out, err)
        assert "Debug source" not in err and SECRET not in out + err, (name, err)
        if name.startswith("status"):
            assert code == 0, (name, err)
            continue
        assert (code, out) == (1, ""), (name, code, out, err)
        assert err.startswith("error: ") and err.count("\n") == 1, (name, err)
        outage_line(err, synced_uri)
    _, text, _ = results["status"]
    # On stdout, first, with the other problems status leads with (not a stderr warning).
    assert text.splitlines()[0] == outage_line(text, synced_uri)
    assert outage_line(text, synced_uri).startswith("error: the index store ")
    assert "documents:" not in text and "chunks:" not in text
    status = json.loads(results["status --json"][1])
    outage_line(status["storeError"], synced_uri)
    assert "documents" not in status and "chunks" not in status
    assert relay.cuts > 0


def test_mcp_tools_report_the_outage_whether_the_server_started_before_it_or_during_it(
    synced_uri: str, docs: Path, relay: TcpRelay
) -> None:
    alpha = str(docs / "alpha.md")
    reads = [
        ("query_documents", {"query": "alpha protocol port"}),
        ("find_mentions", {"terms": ["tomatoes"]}),
        ("list_files", {}),
        ("read_file", {"filePath": alpha}),
        ("read_chunk_neighbors", {"filePath": alpha, "chunkIndex": 0}),
    ]

    async def ask(client: Client) -> dict:
        for name, args in reads:
            message = await error_of(client, name, args)
            assert "could not be reached" in message and "\n" not in message, (name, message)
            assert not any(word in message for word in EMPTY_WORDS), (name, message)
            assert "Debug source" not in message and SECRET not in message
            outage_line(message, synced_uri)
        return await call(client, "status")

    async def before_and_during() -> tuple[dict, dict]:
        async with Client(create_app(load_config({}))) as running:
            found = await call(running, "query_documents", {"query": "alpha protocol port"})
            assert found["hits"][0]["source"] == alpha  # it answers while the store is up
            relay.cut()
            status_before = await ask(running)
        async with Client(create_app(load_config({}))) as started:
            return status_before, await ask(started)

    for status in asyncio.run(before_and_during()):
        outage_line(status["storeError"], synced_uri)
        assert "documents" not in status and SECRET not in json.dumps(status)
