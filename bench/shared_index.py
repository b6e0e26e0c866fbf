"""A shared index on object storage against a local one: query latency and a no-op re-sync.

    uv run python bench/shared_index.py [--model-dir DIR] [--queries 100] [--resyncs 3]

The 240 XQuAD English paragraphs are synced into two indexes built as the server builds them:
a local folder, and ``s3://…`` on a moto S3 server on 127.0.0.1 (the test server of
testsupport/object_store.py: every object request is a loopback HTTP call to a Python server,
so the figures bound what the storage layer costs; a real S3 bucket adds the network's round
trips). For each, a no-op re-sync (nothing changed: every file is stat'ed and skipped) is timed
``--resyncs`` times, then the XQuAD English dev questions are asked through
``MiniragIndex.search`` (topK 10) after a few warm-up queries, and p50/p95 are printed.

The object-store index reads with its default read-consistency interval (5 s): a search checks
for newer commits at most that often, which is what a team's read-only servers do. Needs the
[s3] extra (in the dev group) and moto: ``uv run --group s3 python bench/shared_index.py``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c
from latency import questions

WARM_UP = 5


def corpus(work: Path) -> Path:
    root = work / "docs"
    shutil.copytree(c.data("xquad", "en", "docs"), root)
    return root


def measure(pipeline, asked: list[str], resyncs: int) -> dict[str, float | list[float]]:
    from minirag_ingest.sync.run import sync

    start = time.perf_counter()
    first = sync(pipeline)
    first_sync = time.perf_counter() - start
    assert first.ingested > 0 and first.failed == 0, first
    again = []
    for _ in range(resyncs):
        start = time.perf_counter()
        report = sync(pipeline)
        again.append(time.perf_counter() - start)
        assert report.ingested == 0 and report.skipped == first.ingested, report
    index = pipeline.index
    for question in asked[:WARM_UP]:
        index.search(question, top_k=10)
    spent = []
    for question in asked:
        start = time.perf_counter()
        index.search(question, top_k=10)
        spent.append(time.perf_counter() - start)
    return {"first_sync": first_sync, "resync": again, "queries": spent}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--resyncs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(c.REPO))
    from testsupport.object_store import missing, s3_server

    why = missing()
    if why:
        sys.exit(f"bench/shared_index.py {why}")
    with tempfile.TemporaryDirectory(prefix="minirag-shared-bench-") as tmp:
        work = Path(tmp)
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("shared index: s3:// (moto on loopback) against a local DB_PATH", label)
        root = corpus(work)
        asked = questions(args.queries)
        results = {}
        local = c.open_pipeline([root], work / "local-db", model_dir)
        results["local"] = measure(local, asked, args.resyncs)
        with s3_server() as s3:
            uri = s3.new_bucket("minirag-bench") + "/index"
            shared = c.open_pipeline(
                [root], uri, model_dir, cache_dir=work / "cache", **s3.index_settings()
            )
            results["s3"] = measure(shared, asked, args.resyncs)
        print(
            f"corpus   {len(list(root.glob('*.txt')))} XQuAD en paragraphs, {len(asked)} questions"
        )
        print(
            f"{'DB_PATH':8} {'first sync':>11} {'no-op re-sync':>34} {'query p50':>10} {'p95':>8}"
        )
        for name, r in results.items():
            p50, p95 = (c.percentile(r["queries"], q) * 1000 for q in (50, 95))
            print(
                f"{name:8} {r['first_sync']:10.2f}s {c.spread(r['resync']):>34} "
                f"{p50:8.1f}ms {p95:6.1f}ms"
            )
        c.footer()


if __name__ == "__main__":
    main()
