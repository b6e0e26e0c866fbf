"""No-op re-sync of a corpus with files that fail to convert: before and after the failure memory.

    uv run python bench/failed_resync.py [--model-dir DIR] [--repeat 5] [--before REV]
                                         [--corpus FOLDER]

The corpus (default: real-files, 97 files of which some are malformed on purpose) is copied
into a fresh root and synced once for real (embedding included). Then the same root is synced
again with nothing changed, ``--repeat`` times each way:

- in process: ``sync()`` on a Pipeline built as the server builds it, model warm; the files
  converted during each sync are counted (``Pipeline.start_reading`` is wrapped, not changed);
- from a terminal: ``python -m minirag_mcp sync --json`` in a fresh process each time, wall
  clock from spawn to exit, with PYTHONDONTWRITEBYTECODE unset so imports use cached bytecode
  as they would on a user's machine (the first run writes it).

Each way runs for this checkout with its failure memory kept (the normal case) and with
``failed-files.json`` removed before every sync (every failure converted again, as before the
memory existed). With ``--before REV`` (e.g. ``main``), the same is measured for the code at
that git revision, extracted with ``git archive`` and put first on PYTHONPATH, on an index of
its own. All of it in one run, on one machine: print the load average beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

PACKAGES = ("minirag-index", "minirag-ingest", "minirag-ocr", "minirag-classify", "minirag-server")

# A base install has no [ocr] extra; the dev environment has it. Hidden from discovery, as the
# tests hide it, every run below sees what a base install sees (a scan fails for want of OCR).
BASE_INSTALL = "import minirag_ingest.extras.ocr as _ocr; _ocr.entry_points = lambda *, group: []\n"

# The CLI, as a base install runs it.
CLI = (
    BASE_INSTALL
    + "import sys; from minirag_mcp.cli import main; sys.argv[0] = 'minirag-mcp'; main()\n"
)

# In process: the pipeline the server builds (AppContext), timed around sync() only. Runs in a
# subprocess whose PYTHONPATH selects the code under test; only API every revision has is used.
INNER = (
    BASE_INSTALL
    + r"""
import json, sys, time
from pathlib import Path
from minirag_ingest.document import pipeline as pipeline_module
from minirag_ingest.sync.run import sync
from minirag_mcp.config import load_config
from minirag_mcp.context import AppContext

root, db, model, repeat, forget = sys.argv[1:6]
overrides = {"base_dirs": [root], "db_path": db, "cache_dir": str(Path(db).parent / "cache"),
             "model_name": model}
pipeline = AppContext(load_config(overrides)).pipeline
converted = []
# Where a file is handed to conversion: start_reading (to a worker) where it exists, else the
# converter itself (revisions before the conversion workers).
owner, name = (pipeline, "start_reading") if hasattr(pipeline, "start_reading") else (
    pipeline_module, "_convert_file")
original = getattr(owner, name)
def counting(path, *args, **kwargs):
    converted.append(str(path))
    return original(path, *args, **kwargs)
setattr(owner, name, counting)
runs = []
for _ in range(int(repeat)):
    if forget == "1":
        Path(db, "failed-files.json").unlink(missing_ok=True)
    converted.clear()
    started = time.perf_counter()
    report = sync(pipeline)
    runs.append({"seconds": time.perf_counter() - started, "converted": len(converted),
                 "counts": report.counts()})
print(json.dumps(runs))
"""
)


def code_path(tree: Path) -> str:
    return os.pathsep.join(str(tree / "packages" / p / "src") for p in PACKAGES)


def env_for(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=code_path(tree), HF_HUB_OFFLINE="1", FASTMCP_CHECK_FOR_UPDATES="off")
    return env


def in_process(tree: Path, root: Path, db: Path, model: Path, repeat: int, forget: bool) -> list:
    args = [str(root), str(db), str(model), str(repeat), "1" if forget else "0"]
    done = subprocess.run(
        [sys.executable, "-c", INNER, *args],
        env=env_for(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def from_terminal(
    tree: Path, root: Path, db: Path, model: Path, forget: bool
) -> tuple[float, dict]:
    if forget:
        (db / "failed-files.json").unlink(missing_ok=True)
    command = [sys.executable, "-c", CLI, "sync", "--base-dir", str(root)]
    command += ["--db-path", str(db), "--cache-dir", str(db.parent / "cache")]
    command += ["--model-name", str(model)]
    started = time.perf_counter()
    done = subprocess.run(command, env=env_for(tree), capture_output=True, text=True)
    seconds = time.perf_counter() - started
    # "sync failed: scanned 97, ingested 0, ..., failed 19" (the human summary line)
    payload: dict = {k: int(v) for k, v in re.findall(r"(\w+) (\d+)", done.stdout)}
    payload["exit"] = done.returncode
    return seconds, payload


def first_sync(tree: Path, root: Path, db: Path, model: Path) -> dict:
    seconds, payload = from_terminal(tree, root, db, model, forget=False)
    counts = {k: payload.get(k) for k in ("scanned", "ingested", "failed")}
    print(f"  first sync {seconds:.1f} s, exit {payload['exit']}: {counts}", flush=True)
    return payload


def measure(variants: list[tuple[str, Path, Path, bool]], root: Path, model: Path, n: int) -> None:
    """Each variant (label, code tree, index, forget the memory?) in process, then from a
    terminal in rounds that take one run of every variant, so a change of load between them
    hits all of them alike."""
    for label, tree, db, forget in variants:
        runs = in_process(tree, root, db, model, n + 1, forget)
        seconds = [r["seconds"] for r in runs[1:]]
        converted = sorted({r["converted"] for r in runs})
        failed = sorted({r["counts"]["failed"] for r in runs})
        print(
            f"  in process, {label}: {c.spread(seconds, 'ms', 1000, 0)} (the process's first "
            f"sync, imports included: {runs[0]['seconds']:.2f} s); files converted per sync "
            f"{converted}, failed {failed}",
            flush=True,
        )
    walls: dict[str, list[float]] = {label: [] for label, *_ in variants}
    outcome: dict[str, set] = {label: set() for label, *_ in variants}
    loads = []
    for _ in range(n):
        for label, tree, db, forget in variants:
            wall, payload = from_terminal(tree, root, db, model, forget)
            walls[label].append(wall)
            outcome[label].add((payload["exit"], payload.get("failed")))
        loads.append(os.getloadavg()[0])
    for label, *_ in variants:
        pairs = ", ".join(f"exit {e} with {f} failed" for e, f in sorted(outcome[label]))
        print(f"  `minirag-mcp sync`, fresh process, {label}: {c.spread(walls[label])}; {pairs}")
    print(f"  1-minute load during the rounds: {min(loads):.1f}-{max(loads):.1f}", flush=True)


def extract(rev: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(c.REPO), "archive", rev, "packages"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--before", help="a git revision to measure as well, e.g. main")
    parser.add_argument("--corpus", type=Path)
    args = parser.parse_args()
    corpus = args.corpus or c.data("real-files")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        model_dir, model = c.model_folder(args.model_dir, work)
        c.header("No-op re-sync with failing files", model)
        root = work / "docs"
        shutil.copytree(corpus, root)
        trees = []
        if args.before:
            revision = subprocess.run(
                ["git", "-C", str(c.REPO), "rev-parse", "--short", args.before],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            trees.append((f"{args.before} {revision}", extract(args.before, work / "before")))
        trees.append(("this checkout", c.REPO))
        variants = []
        for number, (label, tree) in enumerate(trees):
            db = work / f"db{number}"
            print(f"{label}: first sync", flush=True)
            first_sync(tree, root, db, model_dir)
            if tree == c.REPO:
                variants.append((f"{label}, memory removed before each sync", tree, db, True))
                variants.append((f"{label}, memory kept", tree, db, False))
            else:
                variants.append((label, tree, db, False))
        print("no-op re-syncs:", flush=True)
        measure(variants, root, model_dir, args.repeat)
        c.footer()


if __name__ == "__main__":
    main()
