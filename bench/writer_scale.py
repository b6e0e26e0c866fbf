"""The writer's memory while it syncs new files into a large index.

    uv run python bench/writer_scale.py --index bench/out/scale/chunks-1000000 [--files 1000]
                                        [--model-dir DIR] [--keep-copy]

``--index`` is an index folder bench/scale.py wrote (synthetic chunks under ``/corpus/...``,
its model folder beside it as ``<root>/test-model`` unless ``--model-dir`` says otherwise). It
is copied first (``cp -a``) so the original stays as it was; the copy is removed afterwards
unless ``--keep-copy``.

Then ``--files`` new Markdown notes (bench/resync.py's generator: XQuAD sentences under a heading)
are written under ``<work>/docs/notes``, and the CLI syncs that folder into the copy as a scoped
sync (``minirag-mcp sync --scope <work>/docs/notes``: it covers only sources under the folder, so
the million synthetic rows stay), with real embedding and the end-of-sync optimize (the vector index
folded forward, the keyword and mention indexes updated). The sync's whole process tree (the CLI and
its conversion workers) is sampled every 100 ms: the peak of the tree's summed PSS (a page shared by
forked workers counted once) and of its summed RSS.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from resync import generate

sys.path.insert(0, str(c.REPO))
from testsupport.memory import descendants, pss


def kb(path: Path, field: str) -> int:
    try:
        for line in path.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class TreeSampler:
    """Summed PSS and RSS of a process tree every 100 ms, on a thread."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.pss_mb = 0.0
        self.rss_mb = 0.0
        self.processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = [self.pid, *descendants(self.pid)]
            pss_mb = sum(pss(p) for p in pids) / 2**20
            rss = sum(kb(Path(f"/proc/{p}/status"), "VmRSS") for p in pids) / 1024
            self.pss_mb = max(self.pss_mb, pss_mb)
            self.rss_mb = max(self.rss_mb, rss)
            self.processes = max(self.processes, len(pids))
            self._stop.wait(0.1)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--keep-copy", action="store_true")
    args = parser.parse_args()
    source = args.index.resolve()
    model = (args.model_dir or source.parent / "test-model").resolve()
    if not (source / "chunks.lance").exists() or not model.is_dir():
        sys.exit(f"{source} is not an index bench/scale.py wrote, or {model} is missing")
    c.header(f"Writer memory: {args.files:,} new files into {source.name}", str(model))
    work = Path(tempfile.mkdtemp(prefix="writer-scale-", dir=source.parent))
    try:
        db = work / "db"
        started = time.perf_counter()
        subprocess.run(["cp", "-a", str(source), str(db)], check=True)
        print(f"copy     {time.perf_counter() - started:.0f} s ({source} → {db})")
        docs = work / "docs"
        generate(docs, args.files)
        env = {**c.server_env(docs, db, model), "CACHE_DIR": str(source.parent / "cache")}
        command = [sys.executable, "-m", "minirag_mcp", "sync", "--scope", str(docs / "notes")]
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        sampler = TreeSampler(process.pid)
        out, _ = process.communicate()
        sampler.stop()
        spent = time.perf_counter() - started
        print(out.strip().splitlines()[-1] if out.strip() else f"exit status {process.returncode}")
        print(f"sync     {spent:.0f} s, exit status {process.returncode}")
        print(
            f"peak     {sampler.pss_mb:,.0f} MB PSS / {sampler.rss_mb:,.0f} MB RSS, process tree "
            f"(up to {sampler.processes} processes)"
        )
        c.footer()
    finally:
        if args.keep_copy:
            print(f"kept     {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
