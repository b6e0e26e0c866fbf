"""Re-sync costs on many small files: no-op re-sync, moving indexed files, peak server memory.

    uv run python bench/resync.py [--model-dir DIR] [--files 10000] [--moves 1000]
                                  [--rss-files 1400] [--repeat 5] [--work DIR]

``--work DIR`` keeps the generated notes and their index in DIR and uses them again on the next
run with the same ``--files`` (the moves are undone first), so the preparation below is paid
once; without it everything is made in a temporary folder and removed.

Generates ``--files`` small Markdown notes (sentences of the XQuAD English paragraphs under a
heading, 0.3-1 KB, 100 per folder) in a temporary root and indexes them without embedding: each
file is prepared by ``Pipeline.prepare_file`` (the real conversion, chunking, title, hash, size,
mtime, scheme and signature; .md read by markitdown's PlainTextConverter directly, which skips
its file-type guess and gives the same text) and its rows are written in bulk, with random unit
vectors, in the layout ``Store.replace_source`` writes. A real embedding sync of 10,000 files
takes many minutes on two busy cores; the syncs below only need an index that a sync accepts
as up to date, and their counts show that it does (every file skipped, nothing read).

Then, in this process, with a Pipeline built as the server builds it (model not loaded):

- no-op re-sync: ``sync`` over the unchanged files, ``--repeat`` times (the first one on a freshly
  opened index reported apart, as a server's first sync after start would be);
- move: ``--moves`` indexed files renamed into another folder (name, bytes and mtime kept), then
  one sync; ``Embedder.embed_passages`` calls are counted and must be 0.
Every sync's counts are printed, so a skipped file that was really re-read would show.

Memory, sampled from /proc every 50 ms on the server process (``python -m minirag_mcp`` spawned
over stdio and driven with sync_start / sync_status as a client does), plus its VmHWM:
- the server re-syncing the 10,000-file index (after the moves above: all skipped), then
  ``--repeat`` more no-op syncs in the same server, timed sync_start → done;
- the server's real first sync, with embedding, of ``--rss-files`` new notes (default 1,400,
  the size of targets.md's memory figure; pass 10000 on a quiet machine for the full count).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

PER_FOLDER = 100


def sentences() -> list[str]:
    found = []
    for path in sorted((c.data("xquad", "en", "docs")).glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        found += [s.strip() + "." for s in text.replace("\n", " ").split(". ") if len(s) > 20]
    return found


def generate(root: Path, files: int) -> list[Path]:
    pool = sentences()
    pick = random.Random(11)
    paths = []
    for n in range(files):
        folder = root / "notes" / f"g{n // PER_FOLDER:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"note-{n:05d}.md"
        words = pick.choice(pool).split()[:5]
        body = " ".join(pick.choice(pool) for _ in range(pick.randint(2, 6)))
        path.write_text(f"# Note {n}: {' '.join(words)}\n\n{body}\n", encoding="utf-8")
        paths.append(path)
    return paths


# -- first sync ------------------------------------------------------------------------------
def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                found.append(int(entry.name))
    return found


def _server_pid() -> int | None:
    for pid in _children_of(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"minirag_mcp" in cmdline:
            return pid
    return None


async def _timed_sync(session) -> tuple[float, dict]:
    """sync_start → sync_status no longer running, polled every 20 ms: seconds and status."""
    started = time.perf_counter()
    job = c.tool_json(await session.call_tool("sync_start", {}))["jobId"]
    while True:
        state = c.tool_json(await session.call_tool("sync_status", {"jobId": job}))
        if state["state"] != "running":
            return time.perf_counter() - started, state
        await asyncio.sleep(0.02)


async def _mcp_first_sync(env: dict[str, str], again: int = 0) -> dict:
    """Spawn the server, sync once (the first tool call pays the imports), then ``again``
    more syncs in the same server, each timed from sync_start to done."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "minirag_mcp"], env=env)
    started = time.perf_counter()
    samples: list[float] = []
    peak_hwm = 0.0
    async with (
        stdio_client(params, errlog=open(os.devnull, "w")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        initialized = time.perf_counter() - started
        pid = _server_pid()
        if pid is None:
            raise RuntimeError("could not find the server process")
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak_hwm
            while not stop.is_set():
                rss = c.rss_mb(pid)
                if rss is not None:
                    samples.append(rss)
                peak_hwm = max(peak_hwm, c.peak_rss_mb(pid) or 0.0)
                stop.wait(0.05)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        job = c.tool_json(await session.call_tool("sync_start", {}))["jobId"]
        start_returned = time.perf_counter() - started
        last = time.monotonic()
        while True:
            state = c.tool_json(await session.call_tool("sync_status", {"jobId": job}))
            if state["state"] != "running":
                break
            if time.monotonic() - last > 30:
                print(
                    f"    ... {state.get('progress')}  rss {samples[-1] if samples else 0:.0f} MiB"
                    f"  [{c.load()}]",
                    flush=True,
                )
                last = time.monotonic()
            await asyncio.sleep(0.2)
        took = time.perf_counter() - started
        repeats = [(await _timed_sync(session))[0] for _ in range(again)]
        peak_hwm = max(peak_hwm, c.peak_rss_mb(pid) or 0.0)
        stop.set()
        sampler.join()
    return {
        "seconds": took,
        "repeats": repeats,
        "state": state,
        "peak_sampled": max(samples),
        "peak_hwm": peak_hwm,
        "phases": f"initialize answered at {initialized:.1f} s, sync_start returned at "
        f"{start_returned:.1f} s, sync done at {took:.1f} s (polled every 0.2 s)",
    }


def direct_first_sync(pipeline, paths: list[Path]) -> float:
    """Rows for every file as a real ingest would store them, vectors random, in bulk."""
    import numpy as np
    import pyarrow as pa

    from minirag_index.storage.schema import table_row

    started = time.perf_counter()
    dim = pipeline.index.embedder.dim
    rng = np.random.default_rng(3)
    first = pipeline.prepare_file(paths[0])
    vectors = rng.standard_normal((len(first.chunks), dim)).astype("float32")
    pipeline.index.store_embedded(first.doc, first.chunks, list(vectors))
    table = pipeline.index.store.table()
    rows: list[dict] = []
    for path in paths[1:]:
        prepared = pipeline.prepare_file(path)
        doc, now = prepared.doc, time.time()
        for i, chunk in enumerate(prepared.chunks):
            vector = rng.standard_normal(dim).astype("float32")
            vector /= np.linalg.norm(vector)
            rows.append(table_row(doc, i, chunk, vector, now))  # the layout the store writes
        if len(rows) >= 5000:
            table.add(pa.Table.from_pylist(rows, schema=table.schema))
            rows = []
    if rows:
        table.add(pa.Table.from_pylist(rows, schema=table.schema))
    pipeline.refresh()
    return time.perf_counter() - started


# -- re-syncs --------------------------------------------------------------------------------
def counted_sync(pipeline) -> tuple[float, dict, int, int]:
    """One sync; (seconds, counts, embed_passages calls, texts embedded)."""
    from minirag_ingest.sync.run import sync

    embedder = pipeline.index.embedder
    calls = [0, 0]
    original = embedder.embed_passages

    def counting(texts):
        calls[0] += 1
        calls[1] += len(texts)
        return original(texts)

    embedder.embed_passages = counting
    try:
        started = time.perf_counter()
        report = sync(pipeline)
        took = time.perf_counter() - started
    finally:
        embedder.embed_passages = original
    return took, report.counts(), calls[0], calls[1]


def short(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items() if v)


def fast_markdown_reader():
    """Route .md through markitdown's own PlainTextConverter directly, skipping the magika
    file-type guess (same text out, ~40 ms less per file); used only to fill the index fast."""
    from markitdown.converters import PlainTextConverter

    import minirag_ingest.conversion.markitdown_run as cv

    original = cv.binary_converter
    plain = PlainTextConverter()
    cv.binary_converter = lambda kind: plain if kind == "md" else original(kind)
    return lambda: setattr(cv, "binary_converter", original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--moves", type=int, default=1_000)
    parser.add_argument(
        "--rss-files",
        type=int,
        default=1_400,
        help="files in the real, embedding first sync by the MCP server (0: skip)",
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work", type=Path, help="keep the notes and index here, reuse them")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="minirag-bench-resync-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("re-sync costs", label)
        root, db = work / "root", work / "db"
        paths, pipeline = prepared(root, db, model_dir, args.files)
        moving = paths[: args.moves]

        print(f"\n## no-op re-sync of {len(paths)} unchanged files (in process, model not loaded)")
        took, counts, calls, _ = counted_sync(pipeline)
        print(
            f"  first, index just opened   {took * 1000:7.0f} ms   {short(counts)}; "
            f"embed calls {calls}",
            flush=True,
        )
        times = []
        for _ in range(args.repeat):
            took, counts, calls, _ = counted_sync(pipeline)
            times.append(took)
        print(
            f"  again (index open)         {c.spread(times, 'ms', 1000, 0)}   {short(counts)}; "
            f"embed calls {calls}  [{c.load()}]",
            flush=True,
        )

        for path in moving:
            target = root / "archive" / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(path, target)
        print(f"\n## after moving {len(moving)} indexed files into another folder")
        took, counts, calls, texts = counted_sync(pipeline)
        print(f"  sync                       {took * 1000:7.0f} ms   {short(counts)}")
        print(f"  Embedder.embed_passages    {calls} calls, {texts} texts  (must be 0)")
        took, counts, calls, _ = counted_sync(pipeline)
        print(
            f"  the next sync              {took * 1000:7.0f} ms   {short(counts)}; "
            f"embed calls {calls}  [{c.load()}]"
        )
        print(f"  model loaded by any of it: {pipeline.index.embedder.loaded}", flush=True)
        del pipeline

        print(f"\n## the MCP server re-syncing the {len(paths)}-file index (spawn → sync done)")
        again = asyncio.run(_mcp_first_sync(c.server_env(root, db, model_dir), args.repeat))
        print(
            f"  {again['seconds']:.1f} s, {short(again['state'].get('counts', {}))}; server peak "
            f"RSS {again['peak_hwm']:.0f} MiB (VmHWM), highest sample {again['peak_sampled']:.0f}"
            f" MiB  [{c.load()}]",
            flush=True,
        )
        print(f"  {again['phases']}")
        print(
            f"  the same server again, sync_start → done: "
            f"{c.spread(again['repeats'], 'ms', 1000, 0)}  (imports done, index open)",
            flush=True,
        )
        if args.rss_files <= 0:
            c.footer()
            return

        fresh = work / "fresh"
        generate(fresh, args.rss_files)
        print(
            f"\n## first sync of {args.rss_files} new notes by the MCP server (real embedding)",
            flush=True,
        )
        first = asyncio.run(_mcp_first_sync(c.server_env(fresh, work / "db-fresh", model_dir)))
        print(f"  state {first['state']['state']}: {short(first['state'].get('counts', {}))}")
        print(
            f"  spawn → synced             {first['seconds']:.1f} s  "
            f"({args.rss_files / first['seconds']:.1f} files/s)"
        )
        print(
            f"  server peak RSS            {first['peak_hwm']:.0f} MiB (VmHWM); highest 50 ms "
            f"sample {first['peak_sampled']:.0f} MiB  (target < 800 MB)  [{c.load()}]",
            flush=True,
        )
        print(f"  {first['phases']}")
        c.footer()
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


def prepared(root: Path, db: Path, model_dir: Path, files: int):
    """The notes and their index: made (generated, rows written directly), or those a run
    with ``--work`` kept, with the files it moved put back."""
    ready = root.parent / f"prepared-{files}-notes"
    if ready.exists():
        for moved in sorted((root / "archive").rglob("*.md")):
            back = root / "notes" / moved.parent.name / moved.name
            os.rename(moved, back)
        paths = sorted((root / "notes").rglob("*.md"))
        print(f"\nreusing {len(paths)} notes and their index in {root.parent}", flush=True)
        pipeline = c.open_pipeline([root], db, model_dir)
        sync_quietly(pipeline)  # the files put back are moves again: one sync settles them
        return paths, c.open_pipeline([root], db, model_dir)
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(db, ignore_errors=True)
    started = time.perf_counter()
    paths = generate(root, files)
    size = sum(p.stat().st_size for p in paths)
    print(
        f"\ngenerated {len(paths)} notes ({size / len(paths):.0f} bytes on average) in "
        f"{time.perf_counter() - started:.1f} s",
        flush=True,
    )
    pipeline = c.open_pipeline([root], db, model_dir)
    undo = fast_markdown_reader()
    try:
        took = direct_first_sync(pipeline, paths)
    finally:
        undo()
    pipeline = c.open_pipeline([root], db, model_dir)  # what a fresh server would open
    print(
        f"\n## first sync: rows written directly, random vectors, no embedding: {took:.1f} s;"
        f" index holds {pipeline.index.store.count_rows()} chunks",
        flush=True,
    )
    ready.touch()
    return paths, pipeline


def sync_quietly(pipeline) -> None:
    took, counts, _, _ = counted_sync(pipeline)
    print(f"  settling sync {took * 1000:.0f} ms: {short(counts)}", flush=True)


if __name__ == "__main__":
    main()
