"""Nothing leaves the machine: a full sync and every read tool under a socket guard.

The guard wraps socket connects and name lookups for the whole process (the sync runs in a
background thread) and refuses anything that is not loopback or a local socket. Any attempt is
recorded, so a swallowed refusal still fails the test.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest
from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app


class BlockedNetwork(OSError):
    pass


def _is_local(address: object) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX paths and socketpairs
        return True
    host = str(address[0])
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture
def network_guard(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    attempts: list[str] = []
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def refuse(what: str) -> BlockedNetwork:
        attempts.append(what)
        return BlockedNetwork(f"test network guard: refused {what}")

    def connect(self, address):
        if not _is_local(address):
            raise refuse(f"connect {address!r}")
        return real_connect(self, address)

    def connect_ex(self, address):
        if not _is_local(address):
            raise refuse(f"connect {address!r}")
        return real_connect_ex(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if host is not None and not _is_local((host, 0)):
            raise refuse(f"lookup {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return attempts


def test_the_guard_refuses_outside_addresses(network_guard: list[str]) -> None:
    with pytest.raises(BlockedNetwork):
        socket.create_connection(("192.0.2.1", 80), timeout=1)  # TEST-NET-1: never sent
    with socket.socket() as raw, pytest.raises(BlockedNetwork):
        raw.connect(("192.0.2.1", 80))
    assert network_guard == ["lookup '192.0.2.1'", "connect ('192.0.2.1', 80)"]


def test_sync_and_every_read_tool_stay_on_the_machine(env: dict, docs, network_guard) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            job = (await client.call_tool("sync_start", {})).structured_content["jobId"]
            for _ in range(600):
                state = (await client.call_tool("sync_status", {"jobId": job})).structured_content
                if state["state"] != "running":
                    break
                await asyncio.sleep(0.1)
            assert state["state"] == "succeeded", state
            found = await client.call_tool("query_documents", {"query": "connection timeouts"})
            assert found.structured_content["hits"]
            alpha = str(docs / "alpha.md")
            for name, args in (
                ("find_mentions", {"terms": ["tomatoes"]}),
                ("read_file", {"filePath": alpha}),
                ("read_chunk_neighbors", {"filePath": alpha, "chunkIndex": 0}),
                ("list_files", {}),
                ("status", {}),
            ):
                assert not (await client.call_tool(name, args)).is_error, name

    asyncio.run(go())
    assert network_guard == []
