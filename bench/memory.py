"""Resident memory of a real server: during the XQuAD sync, and quiet with a large index.

    uv run python bench/memory.py [--model-dir DIR] [--chunks 100000] [--skip-xquad]
                                  [--drop-caches]

Two measurements, each on a freshly spawned ``python -m minirag_mcp`` driven over stdio as a
client drives it, its memory sampled from /proc every 50 ms (VmRSS) and its high-water mark
read (VmHWM):

- **XQuAD sync**: the 240 English paragraphs copied into a fresh root, one sync_start /
  sync_status; then one query_documents and the resident
  size 3 s later;
- **quiet server with a large index**: ``--chunks`` synthetic chunks (bench/latency.py's
  rows: XQuAD sentences under a heading, random unit vectors, in the layout the store
  writes) written and refreshed in this process; then a server opens that index, answers one
  query_documents and one status, and its resident size is read
  3 s later, the server otherwise idle.

Resident memory depends little on the machine's load; the times it prints do. It does depend
on the system's file cache: VmRSS counts the pages of mapped libraries, and LanceDB's library
(177 MB) showed 60-115 MiB resident in the same server depending on how the file sat in the
cache (right after an install, large folios mapped whole). Each resident figure is printed
with its anonymous and file-backed parts; ``--drop-caches`` (root) starts every server from an
empty cache, the state after a reboot. The 10,000-file sync is bench/resync.py's
(``--rss-files 10000``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

QUIET_SECONDS = 3.0


class Sampler:
    """VmRSS of ``pid`` every 50 ms on a thread, and its VmHWM."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = c.rss_mb(self.pid)
            if rss is not None:
                self.samples.append(rss)
            self._stop.wait(0.05)

    def hwm(self) -> float:
        return c.peak_rss_mb(self.pid) or 0.0

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def server_pid() -> int:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"minirag_mcp" in command:
            return int(entry.name)
    raise RuntimeError("could not find the server process")


async def drive(env: dict[str, str], sync: bool) -> dict:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "minirag_mcp"], env=env)
    figures: dict = {}
    async with (
        stdio_client(params, errlog=open(os.devnull, "w")) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        sampler = Sampler(server_pid())
        started = time.perf_counter()
        if sync:
            state = await c.mcp_synced(session, poll=0.05)
            figures["sync_seconds"] = time.perf_counter() - started
            figures["counts"] = state.get("counts")
            figures["sync_peak_hwm"] = sampler.hwm()
            figures["after_sync"] = c.rss_mb(sampler.pid)
            figures["after_sync_split"] = c.resident_split(sampler.pid)
        asked = {"query": "When was the university founded?"}
        found = c.tool_json(await session.call_tool("query_documents", asked))
        figures["hits"] = len(found.get("hits", []))
        status = c.tool_json(await session.call_tool("status", {}))
        figures["chunks"] = status.get("chunks")
        await asyncio.sleep(QUIET_SECONDS)
        figures["quiet"] = c.rss_mb(sampler.pid)
        figures["quiet_split"] = c.resident_split(sampler.pid)
        figures["peak_hwm"] = sampler.hwm()
        sampler.stop()
        figures["peak_sampled"] = max(sampler.samples)
    return figures


def build_large_index(work: Path, model_dir: Path, chunks: int) -> Path:
    """``chunks`` synthetic rows in a fresh index (written as bench/latency.py writes them)."""
    import latency
    import numpy as np

    from minirag_index.storage.store import ChunkInput, SourceDoc

    db_path = work / "db-large"
    index = c.open_pipeline([work], db_path, model_dir).index
    dim = index.embedder.dim
    pool = latency.sentences()
    rng = np.random.default_rng(7)
    index.store_embedded(
        SourceDoc(source="/bench/synthetic/seed.md", title="Seed", scheme=1),
        [ChunkInput(text="# Seed\n\nThe first synthetic document, written by replace_source.")],
        [rng.standard_normal(dim).astype("float32")],
    )
    docs = 0
    while index.store.count_rows() < chunks:
        want = min(latency.WRITE_BATCH, chunks - index.store.count_rows())
        want = want // latency.CHUNKS_PER_DOC or 1
        index.store.table().add(latency.synthetic_rows(index.store, dim, docs, want, pool, rng))
        docs += want
    index.refresh()
    return db_path


def show_split(split: tuple[float, float, list]) -> None:
    anonymous, file_backed, files = split
    biggest = ", ".join(f"{name} {mib:.0f}" for name, mib in files)
    print(f"    of which anonymous {anonymous:.0f}, file pages {file_backed:.0f} ({biggest})")


def show_quiet(f: dict) -> None:
    print(f"  {QUIET_SECONDS:g} s after one query     {f['quiet']:.0f} MiB ({f['hits']} hits)")
    show_split(f["quiet_split"])
    print(f"  peak over the run        {f['peak_hwm']:.0f} MiB (VmHWM)")


def cache_note(drop: bool) -> None:
    if drop:
        print("file cache dropped" if c.drop_file_cache() else "file cache NOT dropped (not root)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--chunks", type=int, default=100_000, help="0: skip the large index")
    parser.add_argument("--skip-xquad", action="store_true")
    parser.add_argument(
        "--drop-caches",
        action="store_true",
        help="empty the system's file cache before each server starts (root only), so that "
        "every run maps its libraries from the same cache state",
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an extra variable for the server's environment (to compare settings)",
    )
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.server_env)
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-memory-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("server resident memory (MiB)", label)
        if extra:
            print(f"server environment adds {extra}")
        if not args.skip_xquad:
            root = work / "xquad-en"
            shutil.copytree(c.data("xquad", "en", "docs"), root)
            env = c.server_env(root, work / "db-xquad", model_dir, **extra)
            cache_note(args.drop_caches)
            f = asyncio.run(drive(env, sync=True))
            print("\n## XQuAD en, 240 paragraphs, one sync through the server")
            print(f"  sync                     {f['sync_seconds']:.1f} s (at {c.load()})")
            print(f"  counts                   {f['counts']}")
            print(f"  peak during the sync     {f['sync_peak_hwm']:.0f} MiB (VmHWM)")
            print(f"  right after the sync     {f['after_sync']:.0f} MiB")
            show_split(f["after_sync_split"])
            show_quiet(f)
        if args.chunks:
            started = time.perf_counter()
            db_path = build_large_index(work, model_dir, args.chunks)
            print(f"\n## quiet server, {args.chunks} synthetic chunks")
            print(f"  index written in {time.perf_counter() - started:.0f} s")
            empty = work / "empty-root"
            empty.mkdir()
            cache_note(args.drop_caches)
            f = asyncio.run(drive(c.server_env(empty, db_path, model_dir, **extra), sync=False))
            print(f"  chunks (status)          {f['chunks']}")
            show_quiet(f)
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
