"""What the server needs from its frameworks beyond their documented API, and the pins that
hold it.

The server uses fastmcp, the MCP SDK and starlette through their documented API only. One
thing is not documented: ``serve --http``'s connection guard (minirag_mcp/connections.py) wraps
the HTTP protocol class uvicorn would pick by itself for ``http="auto"``, which it finds in
``uvicorn.config.HTTP_PROTOCOLS`` and imports with ``uvicorn.importer.import_from_string``, and
builds with whatever keywords uvicorn's server passes to a protocol class. Neither name is in
uvicorn's documentation (only ``Config(http=<a protocol class>)`` is), so uvicorn is pinned to
its minor version in packages/minirag-server/pyproject.toml; these tests fail when an upgrade
moves them, before a client finds out.
"""

from __future__ import annotations

import asyncio
import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from minirag_mcp.connections import ConnectionGuard, guarded_protocol

PACKAGE = Path(__file__).resolve().parents[1]


def pinned_minor(name: str) -> str:
    """The ``X.Y`` a dependency of minirag-mcp is pinned to (``>=X.Y,<X.Y+1``)."""
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))
    for requirement in project["project"]["dependencies"]:
        found = re.fullmatch(rf"{name}>=(\d+)\.(\d+),<(\d+)\.(\d+)", requirement)
        if found:
            major, minor, upper_major, upper_minor = map(int, found.groups())
            assert (upper_major, upper_minor) == (major, minor + 1), requirement
            return f"{major}.{minor}"
    raise AssertionError(f"{name} is not pinned to a minor version in pyproject.toml")


def test_uvicorn_is_the_minor_version_the_connection_guard_was_checked_against() -> None:
    assert version("uvicorn").startswith(pinned_minor("uvicorn") + ".")


def test_uvicorn_still_names_its_automatic_http_protocol_where_the_guard_looks() -> None:
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    inner = import_from_string(HTTP_PROTOCOLS["auto"])
    assert isinstance(inner, type) and issubclass(inner, asyncio.Protocol)
    made = guarded_protocol(ConnectionGuard(header_timeout=1.0, max_per_client=1))
    assert made.inner_class is inner


def test_uvicorn_takes_the_guarded_protocol_as_its_http_protocol() -> None:
    from uvicorn import Config

    made = guarded_protocol(ConnectionGuard(header_timeout=1.0, max_per_client=1))
    config = Config(app=lambda scope, receive, send: None, http=made, ws="none", lifespan="off")
    config.load()
    assert config.http_protocol_class is made


def test_the_server_reaches_into_no_framework_internals() -> None:
    """The private names the server once used (fastmcp's state store and low-level server, the
    SDK's request context, LanceDB's table internals and version folder) stay gone."""
    pattern = re.compile(r"_FastMCP__|_mcp_server|_srctx|_table\._|_versions")
    source = PACKAGE / "src"
    hits = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(source.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []
