"""query_documents through the real server over stdio: the client's round trip, and where the
server spends it.

    uv run python bench/mcp_query.py [--model-dir DIR] [--queries 100] [--chunks 17000]
                                     [--warm-up 5] [--top-k 10] [--docs N] [--index DIR]
                                     [--server-env NAME=VALUE] [--others]

Copies the 240 English XQuAD paragraphs into a temporary document root and starts the stdio server
with timing hooks (bench/server_timings.py) on it, driven by the official MCP client over stdio:
``sync_start`` and ``sync_status`` until the sync ends, then the English dev questions through
``query_documents`` (topK 10), one at a time after a few warm-up calls. ``--index DIR`` serves an
existing index read-only instead (bench/scale.py's ``chunks-1000000``, say; no sync, the same
questions). ``--chunks N`` first grows the index to N chunks with the synthetic documents of
bench/latency.py (written straight into the table from this process, folded into the keyword indexes
with ``refresh()``; the server sees them on its next read, and the warm-up calls open its table).

Prints p50/p95 of the client-side round trip (call_tool sent → result parsed) and the medians of the
server's parts per call: decode, dispatch, search, payload, convert, respond, encode, and the
response size, and the server's memory at rest; "outside" is the round trip less all of them (the
pipes, the transport's writes and reads, the client's parsing). Timings depend on the machine's
load, printed in the header.

The server's memory is also printed at each stage (started, after ``status``, after the first
query, after the warm-up, at rest after the timed queries; with ``--others``, after a
``find_mentions``, a ``list_files`` and a ``status`` call and at rest again): RSS, split into
anonymous (the process's own) and file-backed pages. ``--server-env NAME=VALUE`` passes a setting
to the server (run two values one after the other to compare them).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
import latency

sys.path.insert(0, str(c.REPO))
from testsupport.memory import descendants, pss

QUIET_SECONDS = 3.0  # the server's memory is read this long after the last query

PARTS = ("decode", "dispatch", "search", "payload", "convert", "respond", "encode")
#: find_mentions's terms for --others: one common word, one quoted pair.
MENTION_TERMS = (["the"], ['"of the"'])


class Stages:
    """The server's memory at named moments: RSS, anonymous and file-backed MiB."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float, float, float]] = []

    def mark(self, name: str) -> None:
        server = descendants(os.getpid())
        rss = sum(c.rss_mb(pid) or 0 for pid in server)
        splits = [c.resident_split(pid)[:2] for pid in server]
        self.rows.append((name, rss, sum(a for a, _ in splits), sum(f for _, f in splits)))

    def print(self) -> None:
        print("| the server | RSS MiB | anonymous | file-backed |")
        print("|---|---|---|---|")
        for name, rss, anonymous, file_backed in self.rows:
            print(f"| {name} | {rss:.0f} | {anonymous:.0f} | {file_backed:.0f} |")


async def others(session: ClientSession, stages: Stages) -> None:
    """find_mentions, list_files and status once each, the memory after each and at rest."""
    for terms in MENTION_TERMS:
        started = time.perf_counter()
        found = c.tool_json(await session.call_tool("find_mentions", {"terms": terms}))
        ms, documents = (time.perf_counter() - started) * 1000, found.get("matchedDocuments")
        stages.mark(f"after find_mentions {terms} ({ms:.0f} ms, {documents} documents)")
    for tool in ("list_files", "status"):
        started = time.perf_counter()
        c.tool_json(await session.call_tool(tool, {}))
        stages.mark(f"after {tool} ({(time.perf_counter() - started) * 1000:.0f} ms)")
    await asyncio.sleep(QUIET_SECONDS)
    stages.mark(f"at rest, {QUIET_SECONDS:.0f} s after those")


def grow(db_path: Path, work: Path, model_dir: Path, chunks: int) -> int:
    """Add latency.py's synthetic documents to the index at ``db_path`` up to ``chunks`` rows."""
    import numpy as np

    index = c.open_pipeline([work], db_path, model_dir).index
    store, dim = index.store, index.embedder.dim
    pool, rng, docs = latency.sentences(), np.random.default_rng(7), 0
    while store.count_rows() < chunks:
        want = min(latency.WRITE_BATCH, chunks - store.count_rows()) // latency.CHUNKS_PER_DOC
        want = max(1, want)
        store.table().add(latency.synthetic_rows(store, dim, docs, want, pool, rng))
        docs += want
    index.refresh()
    return store.count_rows()


def server_lines(path: Path) -> list[dict[str, float]]:
    """The server's timing lines for query_documents, as numbers."""
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.startswith("minirag-timings ") or "tool=query_documents" not in line:
            continue
        fields = dict(item.split("=", 1) for item in line.split()[1:])
        found.append({name: float(fields[name]) for name in (*PARTS, "bytes")})
    return found


async def run(args, model_dir: Path, work: Path) -> None:
    root, db_path = work / "xquad-en", args.index or work / "db"
    root.mkdir()
    if args.index is None:
        for path in sorted(c.data("xquad", "en", "docs").glob("*.txt"))[: args.docs or None]:
            shutil.copy(path, root / path.name)
    env = c.server_env(root, db_path, model_dir, **({"READ_ONLY": "1"} if args.index else {}))
    env.update(item.split("=", 1) for item in args.server_env)
    launcher = str(Path(__file__).with_name("server_timings.py"))
    params = StdioServerParameters(command=sys.executable, args=[launcher], env=env)
    asked = latency.questions(args.queries)
    stderr = work / "server-stderr.txt"
    stages = Stages()
    with open(stderr, "w", encoding="utf-8") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            stages.mark("started (initialize answered)")
            if args.index is None:
                await c.mcp_synced(session)
            if args.chunks:
                await asyncio.to_thread(grow, db_path, work, model_dir, args.chunks)
            rows = c.tool_json(await session.call_tool("status", {})).get("chunks")
            stages.mark("after status")
            for number, question in enumerate(asked[: args.warm_up]):
                c.tool_json(await session.call_tool("query_documents", {"query": question}))
                if number == 0:
                    stages.mark("after the first query")
            stages.mark(f"after {args.warm_up} warm-up queries")
            mark = len(server_lines(stderr))
            trips = []
            for question in asked:
                started = time.perf_counter()
                result = await session.call_tool(
                    "query_documents", {"query": question, "topK": args.top_k}
                )
                trips.append((time.perf_counter() - started) * 1000)
                c.tool_json(result)
            await asyncio.sleep(QUIET_SECONDS)
            server = descendants(os.getpid())  # the server and its processes, if any
            quiet_pss = sum(pss(pid) for pid in server) / 2**20
            quiet_rss = sum(c.rss_mb(pid) or 0 for pid in server)
            stages.mark(f"at rest, {QUIET_SECONDS:.0f} s after the {len(trips)} queries")
            if args.others:
                await others(session, stages)
    parts = server_lines(stderr)[mark:]
    print(f"\n## {len(asked)} XQuAD English dev questions, index of {rows} chunks")
    print(
        f"client round trip: p50 {c.percentile(trips, 50):.1f} ms, "
        f"p95 {c.percentile(trips, 95):.1f} ms (min {min(trips):.1f}, max {max(trips):.1f})"
    )
    print(
        f"server at rest {QUIET_SECONDS:.0f} s after the last query: {quiet_rss:.0f} MB RSS, "
        f"{quiet_pss:.0f} MB PSS ({len(server)} processes)"
    )
    stages.print()
    if len(parts) != len(trips):
        print(f"(the server wrote {len(parts)} timing lines for {len(trips)} calls)")
    if not parts:
        return
    print("| part | median ms | p95 ms |")
    print("|---|---|---|")
    for name in PARTS:
        values = [p[name] for p in parts]
        print(f"| {name} | {statistics.median(values):.2f} | {c.percentile(values, 95):.2f} |")
    inside = [sum(p[name] for name in PARTS) for p in parts]
    outside = [trip - spent for trip, spent in zip(trips, inside, strict=False)]
    print(
        f"| outside the server's parts | {statistics.median(outside):.2f} | "
        f"{c.percentile(outside, 95):.2f} |"
    )
    sizes = [p["bytes"] for p in parts]
    print(f"response size: median {statistics.median(sizes) / 1000:.1f} kB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warm-up", type=int, default=5)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--chunks", type=int, default=0, help="grow the index to this many")
    parser.add_argument("--docs", type=int, default=0, help="only the first N paragraphs (a check)")
    parser.add_argument(
        "--index",
        type=Path,
        help="an existing index (bench/scale.py's) served read-only instead of the XQuAD sync; "
        "its model is <index>/../test-model unless --model-dir",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the server (repeatable)",
    )
    parser.add_argument(
        "--others",
        action="store_true",
        help="then call find_mentions, list_files and status and print the memory after each",
    )
    args = parser.parse_args()
    if any("=" not in item for item in args.server_env):
        parser.error("--server-env takes NAME=VALUE")
    if args.index is not None:
        args.index = args.index.resolve()
        args.model_dir = args.model_dir or args.index.parent / "test-model"
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-mcp-query-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("query_documents over stdio: round trip and the server's parts", label)
        asyncio.run(run(args, model_dir, work))
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
