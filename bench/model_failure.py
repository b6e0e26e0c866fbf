"""How long a model that cannot be loaded takes to fail (no retry loop, no network).

    uv run python bench/model_failure.py

Times, after fastembed is imported, the ModelLoadError for: MODEL_NAME naming a missing folder,
an id fastembed does not know, and a known id that is not in an empty CACHE_DIR while
HF_HUB_OFFLINE=1. Median of 5 runs each.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

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


if __name__ == "__main__":
    main()
