"""Ingest throughput on real corpora, against the pure-embedding ceiling of the same chunks.

    uv run python bench/ingest.py [--model-dir DIR] [--repeat 3] [--mcp] [--batch-sweep]
                                  [--corpus xquad-en xquad-ru real-files python-doc cranfield]
                                  [--mcp-corpus NAME ...]

Each corpus is copied into a fresh document root and ingested by a real sync
(``minirag_ingest.sync.run.sync`` with a ``Pipeline``, built as the server builds it) into a fresh
index. The model is loaded and warmed up before the clock starts (``--mcp`` measures the
cold path separately). The pipeline's functions are wrapped, not edited, to split the time into
scan, convert, chunk, title+date, hash, signature, embed, store (LanceDB commits) and refresh
(keyword-index rebuild); "other" is what no wrapper saw (decisions, Python glue).

The ceiling is the same chunk texts embedded again with ``Embedder.embed_passages``, in exactly
the batches the sync handed it and with the same batch size; ingest efficiency is
ceiling time / sync time (1.0 = ingest as fast as embedding alone).

Corpora: xquad-en / xquad-ru (240 Wikipedia paragraphs each, ../shared/data/xquad/*/docs),
real-files (../shared/data/real-files, mixed office formats) and python-doc, built here from
Debian's python3.11-doc package (``apt-get download`` into a temporary folder, ``dpkg-deb -x``,
HTML pages under usr/share/doc/python3.11/html). The package holds about 530 pages (50 MB of
HTML, tens of thousands of chunks: far past a 10-minute run on two cores), so by default 50 of
them, spread evenly over the sorted list, are taken; ``--python-doc-pages 0`` takes them all.

``--mcp`` also times the path a client sees (for xquad-en, or the corpora of ``--mcp-corpus``):
spawn ``python -m minirag_mcp``, initialize, sync_start, poll sync_status until done (model
load included), the measure that targets.md's 8.7 s and issue 22's rows refer to. The
corpora also include cranfield (the 1,400 abstracts of ../shared/data/cranfield/docs).
``--batch-sweep`` measures embedding throughput at batch sizes
8/16/32/64/128 on the first ``--sweep-chunks`` chunks of the first corpus.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

CORPORA = ("xquad-en", "xquad-ru", "real-files", "python-doc", "cranfield")
SWEEP_SIZES = (8, 16, 32, 64, 128)
PHASES = (
    "scan",
    "convert",
    "chunk",
    "title+date",
    "hash",
    "signature",
    "embed",
    "store",
    "refresh",
)


def python_doc(work: Path, pages: int | None) -> Path:
    """HTML pages of Debian's python3.11-doc: all of them, or ``pages`` spread evenly over the
    sorted list (so every part of the manual is represented)."""
    download = work / "deb"
    download.mkdir()
    subprocess.run(
        ["apt-get", "download", "python3.11-doc"], cwd=download, check=True, capture_output=True
    )
    [deb] = download.glob("*.deb")
    subprocess.run(["dpkg-deb", "-x", str(deb), str(download / "x")], check=True)
    html = download / "x" / "usr" / "share" / "doc" / "python3.11" / "html"
    files = sorted(p for p in html.rglob("*.html") if p.is_file())
    if pages is not None and pages < len(files):
        step = len(files) / pages
        files = [files[int(i * step)] for i in range(pages)]
    root = work / "python-doc"
    for path in files:
        target = root / path.relative_to(html)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return root


def corpus_source(name: str, work: Path, pages: int | None) -> Path:
    if name == "xquad-en":
        return c.data("xquad", "en", "docs")
    if name == "xquad-ru":
        return c.data("xquad", "ru", "docs")
    if name == "real-files":
        return c.data("real-files")
    if name == "python-doc":
        return python_doc(work, pages)
    if name == "cranfield":
        return c.data("cranfield", "docs")
    raise ValueError(name)


def instrument(pipeline, watch: c.Stopwatch, batches: list[list[str]]):
    """Wrap the pipeline's steps with timers; returns a function that undoes the module patches."""
    import minirag_ingest.conversion.reading as rd
    import minirag_ingest.document.pipeline as pl
    import minirag_ingest.sync.run as sy

    # The pipeline here has no worker pool: files are read in this process, by reading.py.
    saved = {
        (rd, "convert_file"): rd.convert_file,
        (pl, "choose_title"): pl.choose_title,
        (pl, "document_date"): pl.document_date,
        (pl, "file_hash"): pl.file_hash,
        (rd, "file_hash"): rd.file_hash,
        (sy, "scan"): sy.scan,
    }
    rd.convert_file = watch.wrap("convert", rd.convert_file)
    pl.choose_title = watch.wrap("title+date", pl.choose_title)
    pl.document_date = watch.wrap("title+date", pl.document_date)
    pl.file_hash = watch.wrap("hash", pl.file_hash)
    rd.file_hash = watch.wrap("hash", rd.file_hash)
    sy.scan = watch.wrap("scan", sy.scan)

    pipeline.chunk = watch.wrap("chunk", pipeline.chunk)
    pipeline._finish = watch.wrap("signature", pipeline._finish)
    pipeline.refresh = watch.wrap("refresh", pipeline.refresh)
    pipeline.index.store_many = watch.wrap("store", pipeline.index.store_many)
    embed = pipeline.index.embedder.embed_passages

    def embed_recorded(texts):
        batches.append(list(texts))
        with watch.time("embed"):
            return embed(texts)

    pipeline.index.embedder.embed_passages = embed_recorded

    def undo() -> None:
        for (module, name), value in saved.items():
            setattr(module, name, value)

    return undo


def one_run(root: Path, work: Path, model_dir: Path) -> dict:
    """Sync ``root`` into a fresh index; returns the timings, counts and the ceiling."""
    from minirag_ingest.sync.run import sync

    db = work / f"db-{time.monotonic_ns()}"
    pipeline = c.open_pipeline([root], db, model_dir)
    embedder = pipeline.index.embedder
    started = time.perf_counter()
    embedder.model()
    embedder.token_counter()
    load_s = time.perf_counter() - started
    embedder.embed_passages(["warm-up passage"] * 4)  # first ONNX run allocates its arenas

    watch, batches = c.Stopwatch(), []
    undo = instrument(pipeline, watch, batches)
    try:
        started, cpu = time.perf_counter(), time.process_time()
        report = sync(pipeline)
        total, total_cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        undo()
    if report.failed:
        print(f"  note: {report.failed} files failed: {report.errors[:3]}", flush=True)

    # The ceiling: the same texts, the same calls, the same batch size, nothing else.
    original = type(embedder).embed_passages
    started, cpu = time.perf_counter(), time.process_time()
    for texts in batches:
        original(embedder, texts)
    ceiling, ceiling_cpu = time.perf_counter() - started, time.process_time() - cpu

    chunks = sum(len(b) for b in batches)
    rows = pipeline.index.store.count_rows()
    assert rows == chunks, (rows, chunks)
    shutil.rmtree(db, ignore_errors=True)
    return {
        "total": total,
        "ceiling": ceiling,
        "total_cpu": total_cpu,
        "ceiling_cpu": ceiling_cpu,
        "phases_cpu": dict(watch.cpu),
        "load": load_s,
        "docs": report.ingested,
        "failed": report.failed,
        "chunks": chunks,
        "calls": len(batches),
        "phases": dict(watch.seconds),
        "batch": embedder.batch_size,
    }


def print_runs(name: str, runs: list[dict]) -> dict:
    totals = [r["total"] for r in runs]
    ceilings = [r["ceiling"] for r in runs]
    first = runs[0]
    docs, chunks = first["docs"], first["chunks"]
    t, ceil = c.median(totals), c.median(ceilings)
    print(
        f"\n## {name}: {docs} documents ingested ({first['failed']} failed), {chunks} chunks, "
        f"{first['calls']} embed calls, batch size {first['batch']}"
    )
    print(f"  sync (model warm)        {c.spread(totals)}")
    print(f"  throughput               {docs / t:.1f} documents/s, {chunks / t:.1f} chunks/s")
    print(f"  pure-embedding ceiling   {c.spread(ceilings)}  = {chunks / ceil:.1f} chunks/s")
    print(f"  ingest / ceiling         {ceil / t:.0%}  (target >= 75%)")
    tc, cc = c.median([r["total_cpu"] for r in runs]), c.median([r["ceiling_cpu"] for r in runs])
    print(f"  CPU seconds (all threads): sync {tc:.1f}, ceiling {cc:.1f}  -> by CPU {cc / tc:.0%}")
    print(f"  model load (not in sync) {c.spread([r['load'] for r in runs])}")
    print("  where the sync's time goes (median over runs; wall, then process CPU):")
    accounted = accounted_cpu = 0.0
    for phase in PHASES:
        seconds = c.median([r["phases"].get(phase, 0.0) for r in runs])
        cpu = c.median([r["phases_cpu"].get(phase, 0.0) for r in runs])
        accounted += seconds
        accounted_cpu += cpu
        wall = f"{seconds:8.2f} s  {seconds / t:6.1%}"
        print(f"    {phase:<11} {wall}   cpu {cpu:8.2f} s  {cpu / tc:6.1%}")
    other, other_cpu = t - accounted, tc - accounted_cpu
    wall = f"{other:8.2f} s  {other / t:6.1%}"
    print(f"    {'other':<11} {wall}   cpu {other_cpu:8.2f} s  {other_cpu / tc:6.1%}")
    return {
        "documents": docs,
        "chunks": chunks,
        "sync_s": t,
        "ceiling_s": ceil,
        "efficiency": ceil / t,
        "sync_cpu_s": tc,
        "ceiling_cpu_s": cc,
        "docs_per_s": docs / t,
        "chunks_per_s": chunks / t,
        "ceiling_chunks_per_s": chunks / ceil,
        "phases": {p: c.median([r["phases"].get(p, 0.0) for r in runs]) for p in PHASES},
        "runs": len(runs),
    }


def batch_sweep(root: Path, work: Path, model_dir: Path, repeat: int, limit: int) -> dict:
    """Embedding throughput over the corpus's own chunks at several batch sizes."""
    from minirag_ingest.sync.run import sync

    pipeline = c.open_pipeline([root], work / "db-sweep", model_dir)
    batches: list[list[str]] = []
    instrument(pipeline, c.Stopwatch(), batches)()
    sync(pipeline)
    texts = [t for b in batches for t in b][:limit]
    embedder = pipeline.index.embedder
    original = type(embedder).embed_passages
    original(embedder, texts[:64])
    print(
        f"\n## embedding throughput by batch size ({len(texts)} chunks of {root.name}, "
        f"median of {repeat})"
    )
    figures = {}
    for size in SWEEP_SIZES:
        embedder.batch_size = size
        seconds = []
        for _ in range(repeat):
            started = time.perf_counter()
            original(embedder, texts)
            seconds.append(time.perf_counter() - started)
        figures[size] = len(texts) / c.median(seconds)
        # sizes run in increasing order, so the high-water mark after each is that size's peak
        print(
            f"  batch {size:>3}: {figures[size]:7.1f} chunks/s   ({c.spread(seconds)}); process "
            f"peak RSS so far {c.peak_rss_mb():.0f} MiB  [{c.load()}]",
            flush=True,
        )
    return figures


async def _mcp_sync(env: dict[str, str]) -> tuple[float, dict]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "minirag_mcp"], env=env)
    started = time.perf_counter()
    async with (
        stdio_client(params, errlog=open(os.devnull, "w")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        state = await c.mcp_synced(session, poll=0.05)
        seconds = time.perf_counter() - started
    return seconds, state


def mcp_runs(name: str, source: Path, work: Path, model_dir: Path, repeat: int) -> list[float]:
    print(
        f"\n## {name} through the MCP server (spawn, initialize, sync_start, sync_status "
        "polled every 50 ms; model load included)"
    )
    seconds = []
    for i in range(repeat):
        root = work / f"mcp-{name}-{i}"
        shutil.copytree(source, root)
        env = c.server_env(root, work / f"mcp-db-{name}-{i}", model_dir)
        took, state = asyncio.run(_mcp_sync(env))
        counts = state.get("counts", {})
        if state["state"] != "succeeded" or counts.get("failed"):
            raise RuntimeError(f"sync did not succeed: {state}")
        seconds.append(took)
        print(
            f"  run {i + 1}: {took:.2f} s ({counts.get('ingested')} ingested)  [{c.load()}]",
            flush=True,
        )
    print(f"  spawn → synced           {c.spread(seconds)}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--corpus", nargs="*", default=list(CORPORA), choices=CORPORA)
    parser.add_argument("--repeat", type=int, default=3, help="runs per small corpus")
    parser.add_argument(
        "--python-doc-pages",
        type=int,
        default=50,
        help="python-doc pages to take, spread evenly (0: all ~530)",
    )
    parser.add_argument("--python-doc-repeat", type=int, default=1)
    parser.add_argument("--mcp", action="store_true", help="also time a sync over MCP")
    parser.add_argument(
        "--mcp-corpus", nargs="+", default=["xquad-en"], choices=CORPORA, help="for --mcp"
    )
    parser.add_argument("--batch-sweep", action="store_true")
    parser.add_argument(
        "--sweep-chunks", type=int, default=512, help="chunks embedded per batch size in the sweep"
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag-bench-ingest-"))
    figures: dict = {}
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("ingest throughput", label)
        for name in args.corpus:
            source = corpus_source(name, work, args.python_doc_pages or None)
            root = work / "roots" / name
            shutil.copytree(source, root)
            repeat = args.python_doc_repeat if name == "python-doc" else args.repeat
            runs = []
            for i in range(repeat):
                runs.append(one_run(root, work, model_dir))
                r = runs[-1]
                print(
                    f"  {name} run {i + 1}: sync {r['total']:.2f} s, ceiling {r['ceiling']:.2f} s"
                    f"  [{c.load()}]",
                    flush=True,
                )
            figures[name] = print_runs(name, runs)
        if args.batch_sweep and args.corpus:
            figures["batch_sweep"] = batch_sweep(
                work / "roots" / args.corpus[0], work, model_dir, args.repeat, args.sweep_chunks
            )
        for name in args.mcp_corpus if args.mcp else ():
            source = corpus_source(name, work, args.python_doc_pages or None)
            figures[f"mcp_{name}"] = mcp_runs(name, source, work, model_dir, args.repeat)
        print(f"\npeak RSS of this process: {c.peak_rss_mb():.0f} MiB")
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
