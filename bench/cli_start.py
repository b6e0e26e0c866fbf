"""CLI start-up: wall time of one-shot commands on a 1,400-document index, and what each imports.

    uv run python bench/cli_start.py [--model-dir DIR] [--runs 5] [--index DIR] [--keep DIR]
    uv run python bench/cli_start.py --index DIR --python /other/checkout/.venv/bin/python

The Cranfield abstracts (1,400 short technical documents, ``cranfield/docs`` in the benchmark
data) are copied into a temporary root and synced once with ``minirag-mcp sync`` (the test model
unless ``--model-dir``; several minutes). ``--keep DIR`` keeps that root and index in DIR, and
``--index DIR`` reuses one kept before (with the test model kept beside it), so the timing
runs can be repeated without a new sync.

Then each command is run ``--runs`` times as a fresh process, the way a user types it (the
installed ``minirag-mcp`` script of this environment, HF_HUB_OFFLINE=1), after one untimed run
that writes the bytecode; the median wall time is the figure (targets: status <= 1.0 s, find
<= 1.2 s, query <= 2.0 s), printed beside the median CPU seconds of the process (user +
system, from getrusage), which depend far less on what else the machine runs. One more run
of each under ``python -X importtime`` gives the seconds spent importing, the heaviest
packages by self time, and which of fastembed, pandas, lancedb, numpy, fastmcp and markitdown
the command imported. PYTHONDONTWRITEBYTECODE must not
be set (every start would recompile); the script says so when it is.

``--python`` runs the commands from another environment (its ``minirag-mcp`` script and
interpreter), e.g. a checkout of the revision before a change, against the same index: run it
right after this checkout's run, or alternate them, to compare in the same minute.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

COMMANDS = {
    "status": ["status"],
    "list": ["list"],
    "find": ["find", "boundary layer"],
    "query": ["query", "how does the boundary layer separate from a curved surface"],
}
TARGETS = {"status": 1.0, "find": 1.2, "query": 2.0}
WATCH = ("fastembed", "pandas", "lancedb", "numpy", "fastmcp", "markitdown")
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def command_line(
    args: list[str], root: Path, db: Path, model: Path, python: str = sys.executable
) -> list[str]:
    script = Path(python).with_name("minirag-mcp")
    common = ["--base-dir", str(root), "--db-path", str(db), "--model-name", str(model)]
    return [str(script), *args, *common]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv``."""
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(argv)}\n{done.stdout}\n{done.stderr}")
    return took, children_cpu() - cpu


def import_profile(
    args: list[str], env: dict[str, str], root: Path, db: Path, model: Path, python: str
):
    argv = [python, "-X", "importtime", "-m", "minirag_mcp", *args]
    argv += ["--base-dir", str(root), "--db-path", str(db), "--model-name", str(model)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    own: dict[str, int] = {}
    for line in done.stderr.splitlines():
        m = LINE.match(line)
        if m:
            top = m.group(4).split(".")[0]
            own[top] = own.get(top, 0) + int(m.group(1))
    return own


def build_index(work: Path, model: Path, env: dict[str, str]) -> tuple[Path, Path]:
    root, db = work / "cranfield", work / "db"
    shutil.copytree(c.data("cranfield", "docs"), root)
    print(f"syncing {len(list(root.iterdir()))} documents into {db} ...", flush=True)
    took, _ = run_once(command_line(["sync"], root, db, model), env)
    print(f"synced in {took:.0f} s [{c.load()}]", flush=True)
    return root, db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--index", type=Path, help="a folder kept by --keep: reuse its index")
    parser.add_argument("--keep", type=Path, help="keep the synced root and index in this folder")
    parser.add_argument("--python", default=sys.executable, help="environment to run (its python)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag-bench-cli-"))
    try:
        # The index records its model by folder: the test model is kept beside a kept index
        # and taken from there again, so that --index finds the very model it was built with.
        place = args.index or args.keep or work
        if args.model_dir is None and (place / "test-model").is_dir():
            model, label = (place / "test-model").resolve(), c.TEST_MODEL
        else:
            place.mkdir(parents=True, exist_ok=True)
            model, label = c.model_folder(args.model_dir, place)
        c.header("CLI start-up: one-shot commands on the 1,400 Cranfield abstracts", label)
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            print("note     PYTHONDONTWRITEBYTECODE is set: every start recompiles (unset it)")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "FASTMCP_CHECK_FOR_UPDATES": "off"}
        if args.index:
            root, db = args.index / "cranfield", args.index / "db"
        else:
            target = args.keep or work
            target.mkdir(parents=True, exist_ok=True)
            root, db = build_index(target, model, env)
        print(f"python   {args.python}")
        print(f"\n  {'command':<8} {'wall (median)':<44} {'CPU':>6} {'imports':>8}  imported")
        for name, cli_args in COMMANDS.items():
            argv = command_line(cli_args, root, db, model, args.python)
            run_once(argv, env)  # bytecode and page cache
            runs = [run_once(argv, env) for _ in range(args.runs)]
            times, cpu = [wall for wall, _ in runs], [cpu for _, cpu in runs]
            own = import_profile(cli_args, env, root, db, model, args.python)
            target = TARGETS.get(name)
            verdict = f" target <= {target} s" if target else ""
            # under 1 ms is a lookup, not an import (LanceDB's lazy placeholder for pandas)
            loaded = [m for m in WATCH if own.get(m, 0) >= 1000] or ["none of " + ", ".join(WATCH)]
            print(
                f"  {name:<8} {c.spread(times) + verdict:<44} {c.median(cpu):5.2f}s "
                f"{sum(own.values()) / 1e6:6.2f} s  {', '.join(loaded)}"
            )
            heavy = sorted(own.items(), key=lambda kv: -kv[1])[:6]
            print("           heaviest: " + ", ".join(f"{k} {v / 1000:.0f} ms" for k, v in heavy))
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
