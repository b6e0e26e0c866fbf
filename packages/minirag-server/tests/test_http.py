"""A read-only server over streamable HTTP in another process, as a team's readers use it: the
token, the Host/Origin guard, the body bound, several clients at once, and an index it reads
without the documents folder and never writes to.

One index is synced per module, then its documents folder is moved away, and one server
answers every test."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastmcp import Client
from fastmcp.client.auth import BearerAuth

from minirag_mcp.commands import main as run_command
from testsupport.files import files_under
from testsupport.http_server import INITIALIZE, MCP_HEADERS, HttpServer, http_server
from testsupport.mcp import call

DOCS = {
    "alpha.md": "# Alpha protocol\n\nThe alpha protocol uses port 4242 for connection timeouts."
    "\n\n## Retry\n\nRetries back off exponentially after error E-1234.\n",
    "garden/tomatoes.md": "# Growing tomatoes\n\nTomatoes need full sun and regular watering.\n",
    "notes.txt": "Meeting notes: the budget review moved to Thursday.\n",
}

TOKEN = "t0ken-for-the-http-tests-0123456789"
READ_TOOLS = {
    "query_documents",
    "find_mentions",
    "read_chunk_neighbors",
    "read_file",
    "list_files",
    "status",
}


def drop_a_keyword_index(db: Path) -> None:
    """Make the index one a writer would upgrade on open (it rebuilds a missing keyword
    index), so that a reader writing nothing is a reader that did not upgrade it."""
    import lancedb

    from minirag_index.storage.keyword_index import index_name

    lancedb.connect(db).open_table("chunks").drop_index(index_name("text_terms"))


class Shared:
    def __init__(self, server: HttpServer, root: Path, db: Path, before: set[Any]) -> None:
        self.server, self.root, self.db, self.before = server, root, db, before


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, model_dir: Path) -> Iterator[Shared]:
    """An index synced by a writer, its documents then moved off, and a read-only HTTP
    server over it whose BASE_DIR names the folder that is no longer there."""
    base = tmp_path_factory.mktemp("shared")
    root, db, cache = base / "docs", base / "index", base / "cache"
    for name, text in DOCS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    places = ["--base-dir", str(root), "--db-path", str(db), "--model-name", str(model_dir)]
    assert run_command(["sync", *places, "--cache-dir", str(cache)]) == 0
    shutil.move(root, base / "elsewhere")
    drop_a_keyword_index(db)
    before = files_under(db)
    env = {
        "BASE_DIR": str(root),
        "DB_PATH": str(db),
        "MODEL_NAME": str(model_dir),
        "CACHE_DIR": str(cache),
        "SERVER_LOG": str(base / "server.log"),
    }
    with http_server(env, TOKEN, "--read-only") as server:
        yield Shared(server, root, db, before)


def client(shared: Shared) -> Client:
    return Client(shared.server.url, auth=BearerAuth(TOKEN))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_query_and_find_mentions_with_the_token(shared: Shared) -> None:
    async def go() -> None:
        async with client(shared) as session:
            found = await call(session, "query_documents", {"query": "alpha protocol port"})
            assert found["hits"][0]["source"] == str(shared.root / "alpha.md")
            assert "4242" in found["parents"][found["hits"][0]["parentId"]]
            mentions = await call(session, "find_mentions", {"terms": ["tomatoes"]})
            assert [d["displayPath"] for d in mentions["documents"]] == ["garden/tomatoes.md"]

    run(go())


def test_no_token_and_a_wrong_one_get_401_naming_nothing_of_the_index(shared: Shared) -> None:
    url = shared.server.url
    missing = httpx2.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    wrong = httpx2.post(
        url, json=INITIALIZE, headers={**MCP_HEADERS, "authorization": "Bearer not-the-token"}
    )
    other_scheme = httpx2.post(
        url, json=INITIALIZE, headers={**MCP_HEADERS, "authorization": f"Basic {TOKEN}"}
    )
    for response in (missing, wrong, other_scheme):
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer ")
        body = response.text
        for secret in ("alpha", "tomatoes", "notes", str(shared.db), str(shared.root), TOKEN):
            assert secret not in body
    assert "invalid_token" in wrong.headers["www-authenticate"]
    assert "invalid_token" not in missing.headers["www-authenticate"]
    # The challenge says a bearer token is wanted and how to send it, and so does the body (a
    # client such as the MCP Inspector shows only the body).
    assert "send Authorization: Bearer <token>" in missing.headers["www-authenticate"]
    assert "a bearer token is required" in missing.json()["error"]


def test_oauth_discovery_answers_404_so_clients_ask_for_the_token(shared: Shared) -> None:
    base = f"http://127.0.0.1:{shared.server.port}"
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/.well-known/oauth-authorization-server/mcp",
    ):
        assert httpx2.get(base + path).status_code == 404, path


def test_a_wrong_host_and_a_hostile_origin_are_refused(shared: Shared) -> None:
    url, auth = shared.server.url, {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}"}
    rebound = httpx2.post(url, json=INITIALIZE, headers={**auth, "host": "evil.example"})
    assert rebound.status_code == 421
    hostile = httpx2.post(url, json=INITIALIZE, headers={**auth, "origin": "http://evil.example"})
    assert hostile.status_code == 403
    same_machine = httpx2.post(
        url, json=INITIALIZE, headers={**auth, "origin": f"http://127.0.0.1:{shared.server.port}"}
    )
    assert same_machine.status_code == 200


def test_an_oversize_body_gets_413(shared: Shared) -> None:
    headers = {**MCP_HEADERS, "authorization": f"Bearer {TOKEN}"}
    big = {**INITIALIZE, "padding": "x" * (1024 * 1024 + 1)}
    response = httpx2.post(shared.server.url, json=big, headers=headers)
    assert response.status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: cut while it streams
        yield b'{"jsonrpc": "2.0", "padding": "'
        for _ in range(40):
            yield b"x" * 65536
        yield b'"}'

    streamed = httpx2.post(shared.server.url, content=chunks(), headers=headers)
    assert streamed.status_code == 413


def test_two_clients_at_once_are_both_answered(shared: Shared) -> None:
    async def ask(query: str) -> dict:
        async with client(shared) as session:
            return await call(session, "query_documents", {"query": query, "topK": 1})

    async def go() -> list[dict]:
        return await asyncio.gather(ask("tomatoes need sun"), ask("budget review Thursday"))

    sun, budget = run(go())
    assert sun["hits"][0]["source"].endswith("tomatoes.md")
    assert budget["hits"][0]["source"].endswith("notes.txt")


def test_a_reader_offers_no_write_tool_and_says_it_is_read_only(shared: Shared) -> None:
    async def go() -> None:
        async with client(shared) as session:
            assert {t.name for t in await session.list_tools()} == READ_TOOLS
            status = await call(session, "status")
            assert status["readOnly"] is True
            assert status["documents"] == len(DOCS)
            # The keyword index the writer would rebuild is reported, not rebuilt; the missing
            # documents folder is no problem for a reader.
            assert any("keyword indexes" in e and "older" in e for e in status["errors"])
            assert not any(str(shared.root) in e for e in status["errors"])

    run(go())


def test_a_reader_without_the_documents_reads_them_from_the_index(shared: Shared) -> None:
    assert not shared.root.exists()

    async def go() -> None:
        async with client(shared) as session:
            listed = await call(session, "list_files")
            rows = {row["displayPath"]: row["state"] for row in listed["files"]}
            assert rows == dict.fromkeys(DOCS, "indexed")
            text = await call(session, "read_file", {"filePath": str(shared.root / "alpha.md")})
            assert "port 4242" in text["text"] and "E-1234" in text["text"]
            around = await call(
                session,
                "read_chunk_neighbors",
                {"filePath": str(shared.root / "notes.txt"), "chunkIndex": 0},
            )
            assert "Thursday" in around["chunks"][0]["text"]

    run(go())


def test_answering_every_read_tool_writes_nothing(shared: Shared) -> None:
    alpha = str(shared.root / "alpha.md")

    async def go() -> None:
        async with client(shared) as session:
            await call(session, "status")
            await call(session, "list_files")
            await call(session, "query_documents", {"query": "retry backoff"})
            await call(session, "find_mentions", {"terms": ["alpha", "port"], "match": "any"})
            await call(session, "read_file", {"filePath": alpha})
            await call(session, "read_chunk_neighbors", {"filePath": alpha, "chunkIndex": 0})

    run(go())
    assert files_under(shared.db) == shared.before
