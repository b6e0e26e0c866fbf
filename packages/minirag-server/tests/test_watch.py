"""Watch mode through the real server over stdio (WATCH=1): the index follows the folder.

Each test writes to the watched folder and then waits, with a deadline, for the watcher's
sync to end and its result to show (never a timed assert). The quiet period is set short by
WATCH_QUIET_SECONDS so the tests stay quick.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from testsupport.mcp import stdio_session

DEADLINE = 120.0  # seconds: an upper bound against a hang, not a speed claim
QUIET = "0.3"


def watch_env(env: dict, quiet: str = QUIET) -> dict:
    return {**env, "WATCH": "1", "WATCH_QUIET_SECONDS": quiet}


async def tool(session: Any, name: str, args: dict | None = None) -> dict:
    result = await session.call_tool(name, args or {})
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def watch_of(session: Any) -> dict:
    return (await tool(session, "status"))["watch"]


async def until(check: Callable[[], Awaitable[Any]], what: str) -> Any:
    """Poll ``check`` until it returns something truthy; fail after :data:`DEADLINE`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while loop.time() < end:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


async def settled(session: Any, after: int) -> dict:
    """The watch block once more than ``after`` syncs ended and nothing is pending or running."""

    async def check() -> dict | None:
        watch = await watch_of(session)
        last = watch.get("lastSync")
        idle = not watch["pending"] and "running" not in watch
        return watch if idle and last is not None and watch["syncs"] > after else None

    return await until(check, f"a watch sync after sync {after}")


async def sources(session: Any, query: str) -> list[str]:
    found = await tool(session, "query_documents", {"query": query})
    return [s["displayPath"] for s in found["sources"]]


async def started(session: Any) -> dict:
    """The watch block after the sync the watcher runs at start."""
    return await settled(session, 0)


def test_status_says_watch_off_without_watch(env: dict) -> None:
    async def go() -> None:
        async with stdio_session(env) as (session, _init):
            assert await watch_of(session) == {"state": "off"}

    asyncio.run(go())


def test_a_new_file_is_found_and_an_edit_replaces_the_old_text(env: dict, docs: Path) -> None:
    async def go() -> None:
        async with stdio_session(watch_env(env)) as (session, _init):
            first = await started(session)
            assert first["state"] == "watching" and first["roots"] == [str(docs)]
            assert first["lastSync"]["counts"]["ingested"] == 3  # the sync at start
            assert first["since"]

            (docs / "volcano.md").write_text(
                "# Volcanoes\n\nBasalt lava flows from the volcano crater.\n", encoding="utf-8"
            )
            after_new = await settled(session, first["syncs"])
            assert after_new["lastSync"]["counts"]["ingested"] == 1
            job = await tool(session, "sync_status", {"jobId": after_new["lastSync"]["jobId"]})
            assert job["state"] == "succeeded"  # a job like any other
            assert "volcano.md" in await sources(session, "basalt lava volcano crater")

            (docs / "volcano.md").write_text(
                "# Glaciers\n\nIce sheets carve fjords into the valley.\n", encoding="utf-8"
            )
            await settled(session, after_new["syncs"])
            read = await tool(session, "read_file", {"filePath": str(docs / "volcano.md")})
            assert "fjords" in read["text"] and "Basalt" not in read["text"]

    asyncio.run(go())


def test_a_moved_folder_is_moved_not_read_again(env: dict, docs: Path) -> None:
    folder = docs / "reports"
    folder.mkdir()
    for n in range(20):
        (folder / f"report-{n:02}.md").write_text(
            f"# Report {n}\n\nQuarterly figure number {n} for the board.\n", encoding="utf-8"
        )

    async def go() -> None:
        async with stdio_session(watch_env(env)) as (session, _init):
            first = await started(session)
            assert first["lastSync"]["counts"]["ingested"] == 23
            (docs / "archive").mkdir()
            folder.rename(docs / "archive" / "reports-2025")
            moved = await settled(session, first["syncs"])
            counts = moved["lastSync"]["counts"]
            assert counts["moved"] == 20
            assert counts["ingested"] == 0 and counts["deleted"] == 0  # nothing embedded
            listed = await tool(session, "list_files", {})
            paths = {row["displayPath"] for row in listed["files"] if row["state"] == "indexed"}
            assert "archive/reports-2025/report-07.md" in paths
            assert "reports/report-07.md" not in paths

    asyncio.run(go())


def test_a_deleted_file_disappears_and_an_ignore_rule_removes_files(env: dict, docs: Path) -> None:
    async def go() -> None:
        async with stdio_session(watch_env(env)) as (session, _init):
            first = await started(session)
            (docs / "notes.txt").unlink()
            deleted = await settled(session, first["syncs"])
            assert deleted["lastSync"]["counts"]["deleted"] == 1
            assert "notes.txt" not in await sources(session, "budget review Thursday")

            (docs / ".miniragignore").write_text("garden/\n", encoding="utf-8")
            ignored = await settled(session, deleted["syncs"])
            assert ignored["lastSync"]["counts"]["deleted"] == 1
            assert "garden/tomatoes.md" not in await sources(session, "tomatoes full sun")
            status = await tool(session, "status")
            assert status["ignoreFiles"][0]["rules"] == 1

    asyncio.run(go())


def test_a_burst_of_2000_writes_costs_a_handful_of_syncs(env: dict, docs: Path) -> None:
    async def go() -> None:
        async with stdio_session(watch_env(env, quiet="1")) as (session, _init):
            first = await started(session)
            burst = docs / "burst"
            burst.mkdir()
            for n in range(2000):
                (burst / f"item-{n:04}.txt").write_text(f"Item {n} of the burst.\n")
            done = await until(lambda: _all_indexed(session, 2003), "the burst to be indexed")
            syncs = done["syncs"] - first["syncs"]
            assert 1 <= syncs <= 5, f"{syncs} syncs for one burst"
            listed = await tool(session, "list_files", {})
            rows = [row for row in listed["files"] if row["displayPath"].startswith("burst/")]
            assert len(rows) == 2000 and all(row["state"] == "indexed" for row in rows)
            status = await tool(session, "status")
            assert status["documents"] == 2003  # each file indexed once

    asyncio.run(go())


async def _all_indexed(session: Any, documents: int) -> dict | None:
    watch = await watch_of(session)
    if watch["pending"] or "running" in watch:
        return None
    status = await tool(session, "status")
    return watch if status["documents"] == documents else None


def test_a_root_that_disappears_and_comes_back_is_picked_up(env: dict, docs: Path) -> None:
    async def go() -> None:
        async with stdio_session(watch_env(env)) as (session, _init):
            first = await started(session)
            aside = docs.parent / "aside"
            docs.rename(aside)
            await until(_no_roots_watched(session), "the watcher to drop the root")
            (aside / "comet.md").write_text("# Comets\n\nA comet tail of ice and dust.\n")
            aside.rename(docs)
            await until(_found(session, "comet tail ice dust", "comet.md"), "comet.md")
            watch = await until(_roots_watched(session), "the root to be watched again")
            assert watch["roots"] == [str(docs)] and watch["syncs"] > first["syncs"]

    asyncio.run(go())


def _no_roots_watched(session: Any) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return (await watch_of(session))["roots"] == []

    return check


def _roots_watched(session: Any) -> Callable[[], Awaitable[dict | None]]:
    async def check() -> dict | None:
        watch = await watch_of(session)
        return watch if watch["roots"] else None

    return check


def _found(session: Any, query: str, name: str) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return name in await sources(session, query)

    return check


def test_forced_polling_is_stated_and_still_syncs(env: dict, docs: Path) -> None:
    async def go() -> None:
        polling = {**watch_env(env), "WATCH_FORCE_POLLING": "1", "WATCH_POLL_SECONDS": "0.2"}
        async with stdio_session(polling) as (session, _init):
            first = await started(session)
            assert first["state"] == "polling" and "WATCH_FORCE_POLLING" in first["reason"]
            shutil.copy(docs / "alpha.md", docs / "alpha-copy.md")

            async def copy_indexed() -> bool:
                listed = await tool(session, "list_files", {})
                rows = {row["displayPath"]: row["state"] for row in listed["files"]}
                return rows.get("alpha-copy.md") == "indexed"

            # The first watch sync to end after the copy is not always the one that indexes it
            # (seen once in CI: one with nothing ingested ended first, the cause not found).
            # What must hold: the watcher, polling, indexes it without a sync being asked for.
            await until(copy_indexed, "the copy indexed by the watcher")
            after = await watch_of(session)
            assert after["state"] == "polling" and after["syncs"] > first["syncs"]

    asyncio.run(go())


def test_the_watch_command_prints_each_sync_and_stops_on_ctrl_c(env: dict, docs: Path) -> None:
    import json
    import queue
    import signal
    import subprocess
    import sys
    import threading

    child = subprocess.Popen(
        [sys.executable, "-m", "minirag_mcp", "watch", "--json"],
        env={**os.environ, "WATCH_QUIET_SECONDS": QUIET, "HF_HUB_OFFLINE": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in child.stdout], daemon=True).start()
    try:
        first = json.loads(lines.get(timeout=DEADLINE))
        assert first["state"] == "succeeded" and first["counts"]["ingested"] == 3
        (docs / "lighthouse.md").write_text("# Lighthouse\n\nThe lamp turns at night.\n")
        second = json.loads(lines.get(timeout=DEADLINE))
        assert second["counts"]["ingested"] == 1 and second["scope"] == str(docs)
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=DEADLINE) == 130  # interrupted, as the README's table says
        assert "stopped watching" in child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_bad_watch_settings_are_configuration_errors(
    env: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    from minirag_mcp.config import ConfigProblem, load_config

    monkeypatch.setenv("WATCH", "maybe")
    monkeypatch.setenv("WATCH_QUIET_SECONDS", "0")
    problem = load_config({})
    assert isinstance(problem, ConfigProblem)
    assert "WATCH must be one of 1/true/yes/on" in problem.error
    assert "WATCH_QUIET_SECONDS must be a number of seconds from 0.05" in problem.error


def test_the_watch_flag_starts_a_watching_server(env: dict, docs: Path) -> None:
    import sys

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "minirag_mcp", "--watch"],
        env={**env, "FASTMCP_CHECK_FOR_UPDATES": "off", "HF_HUB_OFFLINE": "1"},
    )

    async def go() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            watch = await started(session)
            assert watch["state"] == "watching" and watch["lastSync"]["counts"]["ingested"] == 3

    asyncio.run(go())


def test_a_root_missing_at_start_is_not_created_and_is_synced_when_it_appears(
    env: dict, tmp_path: Path
) -> None:
    root = tmp_path / "not-mounted"

    async def go() -> None:
        async with stdio_session({**watch_env(env), "BASE_DIR": str(root)}) as (session, _init):
            waiting = await until(_waiting(session), "the watcher to report the missing root")
            assert "does not exist" in waiting["waiting"] and waiting["roots"] == []
            assert not root.exists()  # opening the index would have created it
            root.mkdir()
            (root / "mounted.md").write_text("# Mounted\n\nThe drive holds a harbour map.\n")
            await until(_found(session, "harbour map drive", "mounted.md"), "mounted.md")

    asyncio.run(go())


def _waiting(session: Any) -> Callable[[], Awaitable[dict | None]]:
    async def check() -> dict | None:
        watch = await watch_of(session)
        return watch if watch.get("waiting") else None

    return check
