"""Watch mode: how soon a written file is searchable, and what watching an unchanged folder costs.

    uv run python bench/watch.py [--model-dir DIR] [--writes 20] [--quiet 2]
                                 [--files 10000] [--seconds 60]

Both figures come from the real server (``python -m minirag_mcp`` over stdio, WATCH=1), driven
the way a client drives it.

1. Write to searchable: on a small root, with WATCH_QUIET_SECONDS=``--quiet`` (the default quiet
   period, 2 s, unless given), ``--writes`` times: write a new note holding a word found nowhere
   else, then call find_mentions every 20 ms until it finds that note. The time from just
   before the write to the answer that finds it includes the quiet period, the sync (scan,
   conversion, embedding, commit) and the keyword index refresh. Median, 90th percentile, range.
2. Idle CPU: ``--files`` notes (as bench/resync.py generates them) indexed without embedding
   (rows written directly with random vectors, which a sync accepts as up to date), then a
   server with WATCH=1 on them. Once its start-up sync has ended (every file skipped) and 5 s
   more have passed (the server's start-up imports finish in the background), the CPU
   time (user + system, from /proc, the server and any child process) used over ``--seconds``
   of nothing changing. Linux only (/proc).

Timings depend on the machine's load: the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
import resync

FIND_EVERY = 0.02  # seconds between find_mentions calls while waiting for a write to show
DEADLINE = 600.0  # seconds: against a hang
# Seconds between the end of the start-up sync and the measurement: the server's background
# import of fastembed after tools/list (warmup.py) is start-up work, not watching.
SETTLE = 5.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and its live children (/proc, clock ticks)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for one in [pid, *resync._children_of(pid)]:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / ticks


async def watch_block(session) -> dict:
    return c.tool_json(await session.call_tool("status", {}))["watch"]


async def settled(session, after: int) -> dict:
    """The watch block once more than ``after`` syncs ended and nothing is pending."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        watch = await watch_block(session)
        idle = not watch.get("pending") and "running" not in watch
        if idle and watch.get("syncs", 0) > after and watch.get("lastSync"):
            return watch
        await asyncio.sleep(0.1)
    raise SystemExit("the watcher's sync did not end in time")


def session_for(env: dict[str, str]):
    sys.path.insert(0, str(c.REPO))
    from testsupport.mcp import stdio_session

    return stdio_session(env)


async def write_to_found(env: dict[str, str], root: Path, writes: int) -> list[float]:
    taken: list[float] = []
    async with session_for(env) as (session, _init):
        watch = await settled(session, 0)
        print(f"  start-up sync: {resync.short(watch['lastSync']['counts'])}", flush=True)
        for n in range(writes):
            word = f"watchmark{n:03d}q"
            started = time.perf_counter()
            (root / f"written-{n:03d}.md").write_text(
                f"# Written {n}\n\nThis note carries the word {word} and nothing else new.\n",
                encoding="utf-8",
            )
            while time.perf_counter() - started < DEADLINE:
                found = c.tool_json(await session.call_tool("find_mentions", {"terms": [word]}))
                if found["matchedDocuments"]:
                    break
                await asyncio.sleep(FIND_EVERY)
            taken.append(time.perf_counter() - started)
            print(f"  write {n + 1:2d}: {taken[-1]:.2f} s", flush=True)
    return taken


async def idle_cpu(env: dict[str, str], seconds: float) -> tuple[float, dict]:
    async with session_for(env) as (session, _init):
        watch = await settled(session, 0)
        await asyncio.sleep(SETTLE)
        pid = resync._server_pid()
        if pid is None:
            raise SystemExit("could not find the server process in /proc")
        before = cpu_seconds(pid)
        await asyncio.sleep(seconds)
        used = cpu_seconds(pid) - before
        after = await watch_block(session)
        if after["syncs"] != watch["syncs"]:
            print(f"  note: {after['syncs'] - watch['syncs']} syncs ran while idle", flush=True)
        return used, watch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--quiet", type=float, default=2.0, help="WATCH_QUIET_SECONDS")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag-bench-watch-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("watch mode", label)
        watch_env = {"WATCH": "1", "WATCH_QUIET_SECONDS": f"{args.quiet:g}"}

        small, small_db = work / "small", work / "small-db"
        resync.generate(small, 20)
        env = c.server_env(small, small_db, model_dir, **watch_env)
        print(f"\n## write to searchable, {args.writes} writes, quiet period {args.quiet:g} s")
        taken = asyncio.run(write_to_found(env, small, args.writes))
        print(
            f"  median {c.median(taken):.2f} s, p90 {c.percentile(taken, 90):.2f} s, "
            f"range {min(taken):.2f}-{max(taken):.2f} s  [{c.load()}]",
            flush=True,
        )

        big, big_db = work / "big", work / "big-db"
        paths = resync.generate(big, args.files)
        pipeline = c.open_pipeline([big], big_db, model_dir)
        undo = resync.fast_markdown_reader()
        try:
            resync.direct_first_sync(pipeline, paths)
        finally:
            undo()
        env = c.server_env(big, big_db, model_dir, **watch_env)
        print(f"\n## idle CPU watching {len(paths)} unchanged files for {args.seconds:g} s")
        used, watch = asyncio.run(idle_cpu(env, args.seconds))
        print(f"  start-up sync: {resync.short(watch['lastSync']['counts'])}; {watch['state']}")
        print(
            f"  CPU used: {used:.2f} s in {args.seconds:g} s "
            f"({100 * used / args.seconds:.2f} % of one core)  [{c.load()}]",
            flush=True,
        )
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
