"""The fuzz set at the issue's sizes through a real server: memory, time, and what became of
each kind of file.

    uv run python bench/hostile.py [--scale 1.0] [--model-dir DIR] [--keep DIR] [--tools]

Writes the set of testsupport/hostile.py (``--scale 1.0``: a 50 MB single-line text, a 2 MB run
without whitespace, 100,000 nested HTML elements, a 3 GB zip bomb in a .docx, a PDF stream that
inflates to 1.5 GB, and some 80 more) into a temporary root, starts ``python -m minirag_mcp``
over stdio as a client would, runs one sync with sync_start / sync_status, and prints:

- the sync's wall time and counts, and the per-file errors grouped by reason;
- memory sampled from /proc every 200 ms over the server and every process it starts (the fork
  server and the conversion workers), as summed PSS: the peak, who held what at that moment,
  and each process's own peak; plus the server process's VmHWM;
- the chunks stored for the big files.

``--tools`` sends the set through the per-file tools instead of a sync: a fresh server gets one
``ingest_file`` per file, then ``read_file`` and ``read_chunk_neighbors`` for every file it
indexed, then ``status``; each call's time, outcome and the server process's PSS after it are
printed, then the slowest calls.

At scale 1.0 the single-line text alone is some 140,000 chunks to embed: hours on a busy
2-core machine. Figures are only valid on a quiet machine; each run prints the load.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import _common as c

sys.path.insert(0, str(c.REPO))

from minirag_ingest.files.names import to_id
from testsupport.hostile import build_fuzz_set
from testsupport.memory import TreeMemory, descendants, label, pss


def print_memory(memory: TreeMemory) -> None:
    print(f"memory   peak {memory.peak >> 20} MiB PSS over {memory.peak_processes} processes")
    for who, mib in sorted(memory.breakdown.items(), key=lambda item: -item[1]):
        print(f"  {mib:6d} MiB  {who}")
    print("  each process's own peak: " + ", ".join(
        f"{pid} {size >> 20} MiB" for pid, size in sorted(memory.largest.items())
    ))  # fmt: skip


def reason_kind(reason: str) -> str:
    for needle in (
        "needs more than",
        "took longer than",
        "zip bomb",
        "page tree",
        "not text",
        "NUL bytes",
        "crashed",
        "conversion failed",
        "WebVTT",
        "no text layer",
    ):
        if needle in reason:
            return needle
    return reason[:60]


async def run_sync(env: dict[str, str], cwd: Path) -> tuple[dict, float, dict]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "minirag_mcp"], env=env, cwd=str(cwd)
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = time.perf_counter()
        job = c.tool_json(await session.call_tool("sync_start", {}))
        last = -1.0
        while True:
            status = c.tool_json(await session.call_tool("sync_status", job))
            if status["state"] != "running":
                break
            done, total = status["progress"]["done"], status["progress"]["total"]
            if done != last:
                print(f"  {time.perf_counter() - started:7.1f} s  {done}/{total}", flush=True)
                last = done
            await asyncio.sleep(1.0)
        seconds = time.perf_counter() - started
        listed = c.tool_json(await session.call_tool("list_files", {}))
        after = c.tool_json(await session.call_tool("status", {}))  # the server still answers
        print(f"status   answered after the sync: {json.dumps(after)[:300]}")
        return status, seconds, listed


def server_pss() -> int:
    """The server process's own PSS (not its fork server's or workers')."""
    servers = [pid for pid in descendants(os.getpid()) if "-m minirag_mcp" in label(pid)]
    return max((pss(pid) for pid in servers), default=0)


async def run_tools(env: dict[str, str], cwd: Path, cases: list, root: Path) -> list[tuple]:
    """Every file through ingest_file, then read back; ``(seconds, tool, name, outcome)``."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "minirag_mcp"], env=env, cwd=str(cwd)
    )
    calls: list[tuple] = []

    async def call(session: ClientSession, tool: str, name: str, arguments: dict) -> bool:
        started = time.perf_counter()
        result = await session.call_tool(tool, arguments)
        text = result.content[0].text if result.content else ""
        outcome = f"error: {text[:90]}" if result.is_error else f"ok, {len(text):,} characters"
        calls.append((time.perf_counter() - started, tool, name, outcome))
        held = f"server {server_pss() >> 20} MiB"
        print(f"  {calls[-1][0]:7.1f} s  {held}  {tool} {name}: {outcome}", flush=True)
        return not result.is_error

    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        indexed = []
        for case in cases:
            path = to_id(case.path(root))  # a name's undecodable bytes escaped, as listed
            if await call(session, "ingest_file", case.name, {"filePath": path}):
                indexed.append((case, path))
        for case, path in indexed:
            await call(session, "read_file", case.name, {"filePath": path})
            await call(session, "read_chunk_neighbors", case.name,
                       {"filePath": path, "chunkIndex": 0})  # fmt: skip
        after = c.tool_json(await session.call_tool("status", {}))
        print(f"status   answered after the tools: {json.dumps(after)[:300]}")
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--model-dir", type=Path)
    parser.add_argument("--keep", type=Path, help="build the set here and leave it")
    parser.add_argument("--tools", action="store_true", help="ingest_file per file, no sync")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="minirag-hostile-"))
    model_dir, model = c.model_folder(args.model_dir, work)
    c.header(f"Hostile input at scale {args.scale}", model)
    root = (args.keep or work) / "docs"
    started = time.perf_counter()
    cases = build_fuzz_set(root, scale=args.scale)
    print(f"set      {len(cases)} files written in {time.perf_counter() - started:.1f} s")
    # The OCR model bundled in the wheel unless told otherwise: others are downloaded.
    ocr_lang = os.environ.get("RAG_OCR_LANG", "ch")
    env = c.server_env(root, work / "db", model_dir, RAG_OCR_LANG=ocr_lang)
    if args.tools:
        started = time.perf_counter()
        with TreeMemory() as memory:
            calls = asyncio.run(run_tools(env, work, cases, root))
        print(f"tools    {len(calls)} calls in {time.perf_counter() - started:.1f} s; slowest:")
        for seconds, tool, name, outcome in sorted(calls, reverse=True)[:8]:
            print(f"  {seconds:7.1f} s  {tool} {name}: {outcome}")
        print_memory(memory)
        c.footer()
        return
    with TreeMemory() as memory:
        status, seconds, listed = asyncio.run(run_sync(env, work))
    print(f"sync     {status['state']} in {seconds:.1f} s: {status['counts']}")
    kinds = collections.Counter(reason_kind(e["reason"]) for e in status["errors"])
    for kind, count in kinds.most_common():
        print(f"  {count:3d} x {kind}")
    for error in status["errors"]:
        if reason_kind(error["reason"]) in ("needs more than", "took longer than", "crashed"):
            print(f"  {Path(error['path']).name}: {error['reason']}")
    print_memory(memory)
    for row in listed["files"]:
        if "/size/" in row.get("path", ""):
            print(f"  {row['chunks']:7d} chunks  {row['displayPath']} ({row['state']})")
    c.footer()


if __name__ == "__main__":
    main()
