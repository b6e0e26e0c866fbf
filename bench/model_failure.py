"""How long a model that cannot be loaded takes to fail (no retry loop, no network).

    uv run python bench/model_failure.py

Times, after fastembed is imported, the ModelLoadError for: MODEL_NAME naming a missing folder,
an id fastembed does not know, and a known id that is not in an empty CACHE_DIR while
HF_HUB_OFFLINE=1. Median of 5 runs each.

Then, without HF_HUB_OFFLINE, the whole command a newcomer runs first (`minirag-mcp sync` of one
file with the default MODEL_NAME and an empty CACHE_DIR) where the hub cannot be reached: at
the machine's own hub address, at a loopback address that refuses connections, and at one that
accepts and never answers (HF_ENDPOINT). Spawn to exit, one run each.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OFFLINE = dict(os.environ)
os.environ["HF_HUB_OFFLINE"] = "1"


def seconds_to_fail(model_name: str, cache: Path) -> float:
    from minirag_index import Embedder, ModelLoadError

    started = time.perf_counter()
    try:
        Embedder(model_name, cache).embed_query("x")
    except ModelLoadError:
        return time.perf_counter() - started
    raise SystemExit(f"{model_name!r} loaded; expected a failure")


def main() -> None:
    import fastembed  # noqa: F401  (imported once: the figures are loading, not importing)

    cache = Path(tempfile.mkdtemp(prefix="empty-cache-"))
    cases = {
        "missing folder": str(cache / "no-such-model"),
        "unknown id": "acme/no-such-model",
        "known id, not cached, HF_HUB_OFFLINE=1": "BAAI/bge-small-en-v1.5",
    }
    print(f"# model-load failures  (load average {os.getloadavg()[0]:.2f})")
    for label, name in cases.items():
        runs = [seconds_to_fail(name, cache) for _ in range(5)]
        median, worst = statistics.median(runs) * 1000, max(runs) * 1000
        print(f"  {label:40s} {median:8.1f} ms (max {worst:.1f})")
    unreachable_hub(cache)


def unreachable_hub(cache: Path) -> None:
    """The first sync's model error where the hub is out of reach, spawn to exit."""
    docs = cache / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text.\n", encoding="utf-8")
    env = {k: v for k, v in OFFLINE.items() if k not in ("HF_HUB_OFFLINE", "MODEL_NAME")}
    with socket.socket() as silent, socket.socket() as probe:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        probe.bind(("127.0.0.1", 0))
        refusing = probe.getsockname()[1]
        probe.close()
        cases = {
            "this machine's hub address": {},
            "hub refusing connections": {"HF_ENDPOINT": f"http://127.0.0.1:{refusing}"},
            "hub never answering": {"HF_ENDPOINT": f"http://127.0.0.1:{silent.getsockname()[1]}"},
        }
        print("# first sync, default model, hub out of reach (spawn to exit)")
        for label, extra in cases.items():
            run_cache = Path(tempfile.mkdtemp(prefix="cache-"))
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "minirag_mcp", "sync", "--base-dir", str(docs)],
                env={**env, **extra, "CACHE_DIR": str(run_cache), "DB_PATH": str(run_cache / "db")},
                capture_output=True,
                text=True,
                timeout=300,
            )
            took = time.perf_counter() - started
            said = "model error" if "could not be loaded" in done.stderr else done.stderr[-200:]
            print(f"  {label:40s} {took:6.1f} s, exit {done.returncode}, {said}")


if __name__ == "__main__":
    main()
