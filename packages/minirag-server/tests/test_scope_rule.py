"""One scope rule for query_documents, find_mentions and list_files, and for their commands: a
path scope is absolute and inside a root (or a root itself), else refused with the words
``filePath`` gets; a URL is a prefix of url and data ids; a scope covering indexed data items is
taken as their id prefix."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.mcp import call, cli_process, error_of, synced

TOOLS = {
    "query_documents": {"query": "tomatoes"},
    "find_mentions": {"terms": ["tomatoes"]},
    "list_files": {},
}
DATA = {
    "notes/meeting": "The budget meeting chose tomatoes for the garden.",
    "https://example.com/docs/page": "Tomatoes on the example page.",
    "https://example.com/docs-private/page": "Tomatoes on the private page.",
    "/team/plans": "The team plans tomatoes too.",
}


def _sources(name: str, result: dict) -> set[str]:
    """The documents a tool's result names."""
    rows = {
        "query_documents": result.get("sources"),
        "find_mentions": result.get("documents"),
        "list_files": result.get("files"),
    }[name]
    return {row.get("source") or row.get("path") for row in rows or []}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "db"
    monkeypatch.setenv("DB_PATH", str(path))
    return path


def test_a_scope_outside_the_roots_or_relative_is_refused_by_every_tool_alike(
    env: dict, db: Path, docs: Path
) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            await synced(client)
            relative = await error_of(client, "read_file", {"filePath": "garden"})
            assert "must be an absolute path" in relative
            for name, args in TOOLS.items():
                message = await error_of(client, name, {**args, "scope": "garden"})
                assert message == relative.replace("filePath", "scope"), name
                for above in ("/", str(docs.parent)):
                    outside = await error_of(client, "read_file", {"filePath": above})
                    assert outside.startswith("Path outside configured document roots")
                    message = await error_of(client, name, {**args, "scope": above})
                    assert message == outside, (name, above)
                # the root itself and a folder inside it are scopes
                everything = _sources(name, await call(client, name, {**args, "scope": str(docs)}))
                assert str(docs / "garden" / "tomatoes.md") in everything, name
                inside = await call(client, name, {**args, "scope": str(docs / "garden")})
                assert _sources(name, inside) == {str(docs / "garden" / "tomatoes.md")}, name

    asyncio.run(go())


def test_data_and_url_ids_are_scoped_by_their_prefix(env: dict, db: Path, docs: Path) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            for source, content in DATA.items():
                await call(client, "ingest_data", {"source": source, "content": content})
            for name, args in TOOLS.items():
                found = _sources(
                    name, await call(client, name, {**args, "scope": "https://example.com/docs"})
                )
                assert found == {"https://example.com/docs/page"}, name
                found = _sources(name, await call(client, name, {**args, "scope": "notes"}))
                assert found == {"notes/meeting"}, name
                found = _sources(name, await call(client, name, {**args, "scope": "/team"}))
                assert found == {"/team/plans"}, name
                # a relative scope naming no item is still a relative path
                message = await error_of(client, name, {**args, "scope": "notebook"})
                assert "scope must be an absolute path" in message, name

    asyncio.run(go())


def test_the_commands_follow_the_same_rule(env: dict, db: Path, docs: Path, tmp_path: Path) -> None:
    synced_run = cli_process("sync", "--json")
    assert synced_run.returncode == 0, synced_run.stderr
    ingested = cli_process("ingest", str(docs / "notes.txt"))
    assert ingested.returncode == 0, ingested.stderr

    # A relative --scope is taken against the current directory.
    for command in (["query", "tomatoes"], ["find", "tomatoes"], ["list"]):
        run = cli_process(*command, "--scope", "garden", "--json", cwd=docs)
        assert run.returncode == 0, (command, run.stderr)
        assert "tomatoes.md" in run.stdout and "alpha.md" not in run.stdout, command
        # ... and from a folder outside the roots it is outside them, whether or not it exists
        for scope in ("garden", "/"):
            run = cli_process(*command, "--scope", scope, "--json", cwd=tmp_path)
            assert run.returncode == 1, (command, scope, run.stdout)
            error = json.loads(run.stdout)["error"]
            assert error.startswith("Path outside configured document roots"), (command, error)
            assert "BASE_DIRS" in error
