"""read_file of a large one-line text through the real server over stdio: every response
bounded, the pages rebuilding the document, and the server's peak memory.

    uv run python bench/read_pages.py [--mb 50] [--model-dir DIR] [--bound-mb 4] [--embed]

Writes a one-line text file of ``--mb`` MB (words and numbers separated by spaces, a few
non-ASCII letters among them, no line break anywhere) into a temporary document root and
indexes it. By default it is indexed in this process, through the same ``Pipeline`` the server
syncs with (conversion, chunking, storing), with an embedder whose passage vectors are
deterministic unit vectors rather than the model's: read_file never looks at vectors, and
embedding 50 MB with the test model takes most of an hour on two cores (it is passed as
``MiniragIndex(settings, embedder=...)``). ``--embed`` syncs through the server instead
(``sync_start``/``sync_status``, the real model).

Then it starts the ``minirag-mcp`` entry point of this environment over stdio with the official
MCP client and calls ``read_file`` from offset 0, following ``nextOffset`` until a page has
none. Checks, and exits non-zero when one fails: every read_file response is at most
``--bound-mb`` MiB (the size of the JSON-RPC result as the client received it, re-encoded as
JSON the way the server encodes it; the envelope adds a few dozen bytes), and the pages joined
are the file's bytes exactly. Prints the number of pages, the largest response, the time the
reads took, and the peak resident memory of the server's process tree (the server and any
conversion workers, sampled from /proc every 50 ms).
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

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

MB = 1_000_000
WORDS = ("depot", "gate", "crates", "shipped", "Überweisung", "report", "ledger", "café")


def one_line_text(size: int) -> bytes:
    """``size`` bytes of UTF-8 words on one line (no line break), the same every run."""
    pieces, length, n = [], 0, 0
    while length < size:
        piece = f"{WORDS[n % len(WORDS)]} {n * 7919 % 100003} ".encode()
        pieces.append(piece)
        length += len(piece)
        n += 1
    data = b"".join(pieces)[:size]
    return data.decode("utf-8", errors="ignore").rstrip().encode()  # never a cut letter


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


class TreeMemory:
    """Samples the resident memory of the process tree below this one, keeping the peak of
    the phase in progress."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peaks: dict[str, float] = {}
        self.phase = "start"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            tree = [pid for pid in descendants(me) if pid != me]
            total = sum(c.rss_mb(pid) or 0.0 for pid in tree)
            self.peaks[self.phase] = max(self.peaks.get(self.phase, 0.0), total)
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


async def read_pages(session: ClientSession, path: str) -> tuple[list[str], list[int], float]:
    """Every page of ``path`` through read_file; the texts, the response sizes, the seconds."""
    texts, sizes, offset = [], [], 0
    started = time.perf_counter()
    while True:
        result = await session.call_tool("read_file", {"filePath": path, "offset": offset})
        sizes.append(len(result.model_dump_json(by_alias=True, exclude_none=True).encode()))
        page = c.tool_json(result)
        texts.append(page["text"])
        if "nextOffset" not in page:
            return texts, sizes, time.perf_counter() - started
        offset = page["nextOffset"]


def index_here(root: Path, document: Path, db_path: Path, model_dir: Path) -> int:
    """Index ``document`` as a sync would, with unit vectors in place of the model's; the
    number of chunks stored."""
    import numpy as np

    from minirag_index import MiniragIndex
    from minirag_index.embedding.embedder import Embedder
    from minirag_index.settings import load_index_settings
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.settings import load_settings

    class UnitVectors(Embedder):
        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            rng = np.random.default_rng(len(texts))
            vectors = rng.standard_normal((len(texts), self.spec.dim)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            return list(vectors)

    settings = load_index_settings(
        DB_PATH=db_path, MODEL_NAME=str(model_dir), CACHE_DIR=db_path.parent / "cache"
    )
    embedder = UnitVectors(settings.MODEL_NAME, settings.CACHE_DIR)
    pipeline = Pipeline(MiniragIndex(settings, embedder), Roots([root]), load_settings())
    return pipeline.ingest_file(document).chunks


async def run(args: argparse.Namespace, model_dir: Path, work: Path) -> bool:
    root = work / "docs"
    root.mkdir()
    document = root / "one-line.txt"
    data = one_line_text(int(args.mb * MB))
    document.write_bytes(data)
    breaks = data.count(b"\n")
    print(f"document {document.name}: {len(data):,} bytes, {breaks} line breaks")
    if not args.embed:
        started = time.perf_counter()
        chunks = index_here(root, document, work / "db", model_dir)
        print(
            f"indexed  {chunks:,} chunks in this process in {time.perf_counter() - started:.1f} s"
        )
    env = c.server_env(root, work / "db", model_dir, CACHE_DIR=str(work / "cache"))
    entry = Path(sys.executable).with_name("minirag-mcp")
    params = StdioServerParameters(command=str(entry), args=[], env=env)
    with (
        open(work / "server-stderr.txt", "w", encoding="utf-8") as errlog,
        TreeMemory() as memory,
    ):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            if args.embed:
                memory.phase = "sync"
                started = time.perf_counter()
                await c.mcp_synced(session, poll=1.0)
                print(f"sync     {time.perf_counter() - started:.1f} s through the server")
            memory.phase = "read"
            texts, sizes, seconds = await read_pages(session, str(document))
            memory.phase = "end"
    rebuilt = "".join(texts).encode("utf-8")
    bound = int(args.bound_mb * 1024 * 1024)
    print(f"pages    {len(texts)} read_file responses in {seconds:.1f} s")
    print(f"largest  response {max(sizes):,} bytes (bound {bound:,}); smallest {min(sizes):,}")
    print(f"rebuilt  {len(rebuilt):,} bytes; byte for byte equal to the file: {rebuilt == data}")
    peaks = ", ".join(f"{phase} {mib:.0f} MiB" for phase, mib in memory.peaks.items())
    print(f"peak RSS of the server's process tree: {peaks}")
    ok = rebuilt == data and max(sizes) <= bound
    if not ok:
        over = max(sizes) > bound
        print("FAILED: " + ("a response is over the bound" if over else "the pages differ"))
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size of the document in MB")
    parser.add_argument("--bound-mb", type=float, default=4.0, help="largest response allowed")
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--embed", action="store_true", help="sync through the server instead")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-read-pages-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("read_file of a one-line text through MCP: pages, sizes, peak memory", label)
        ok = asyncio.run(run(args, model_dir, work))
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
