"""Retrieval quality on XQuAD (dev half), driving the real server over stdio.

    uv run python bench/quality.py --model-dir /path/to/bench-model [--data ../shared/data/xquad]

For each corpus (English docs, Russian docs) the script copies the paragraphs into a temporary
document root, starts `minirag-mcp` once to sync it, then, for every hybrid weight, starts the
server again with RAG_HYBRID_WEIGHT set and asks every dev question through query_documents.
A question's answer is the paragraph file its qrels name; figures are at the document level:
MRR@10, hit@1 and recall@5 over the distinct sources in rank order. Runs: en→en, ru→ru and
ru→en (Russian questions against the English documents).
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
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
from _common import SHARED_DATA, tool_json

WEIGHTS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
RUNS = (("en", "en"), ("ru", "ru"), ("ru", "en"))  # (question language, document language)


@dataclass
class Scores:
    questions: int
    mrr10: float
    hit1: float
    recall5: float


def read_questions(folder: Path) -> list[tuple[str, str, str]]:
    """(query id, question, relevant doc file name) for every dev question."""
    with open(folder / "queries-dev.tsv", encoding="utf-8") as f:
        questions = {row[0]: row[1] for row in csv.reader(f, delimiter="\t") if row}
    with open(folder / "qrels-dev.tsv", encoding="utf-8") as f:
        relevant = {row[0]: Path(row[1]).name for row in csv.reader(f, delimiter="\t") if row}
    return [(qid, q, relevant[qid]) for qid, q in questions.items() if qid in relevant]


def score(ranked: list[list[str]], relevant: list[str]) -> Scores:
    reciprocal = hits1 = recall5 = 0.0
    for names, answer in zip(ranked, relevant, strict=True):
        if answer in names[:10]:
            reciprocal += 1.0 / (names.index(answer) + 1)
        hits1 += names[:1] == [answer]
        recall5 += answer in names[:5]
    n = len(relevant)
    return Scores(n, reciprocal / n, hits1 / n, recall5 / n)


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
                await s.call_tool("query_documents", {"query": question, "topK": 10})
            )
            ranked.append([Path(src["source"]).name for src in result["sources"]])
    return ranked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", required=True, type=Path)
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "xquad")
    parser.add_argument("--weights", type=float, nargs="*", default=list(WEIGHTS))
    parser.add_argument(
        "--runs",
        nargs="*",
        default=[f"{q}-{d}" for q, d in RUNS],
        help="question-document language pairs to run (default: en-en ru-ru ru-en)",
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag-quality-"))
    base_env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
        "MODEL_NAME": str(args.model_dir.resolve()),
        "HF_HUB_OFFLINE": "1",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }
    figures: dict[str, dict] = {}
    try:
        envs = {}
        for lang in sorted({run.split("-")[1] for run in args.runs}):
            root = work / lang
            shutil.copytree(args.data / lang / "docs", root)
            env = {**base_env, "BASE_DIR": str(root), "DB_PATH": str(work / f"db-{lang}")}
            seconds = asyncio.run(sync(env))
            print(f"synced {lang} docs in {seconds:.1f} s", flush=True)
            envs[lang] = env
        for q_lang, d_lang in (tuple(run.split("-")) for run in args.runs):
            items = read_questions(args.data / q_lang)
            questions = [q for _, q, _ in items]
            relevant = [doc for _, _, doc in items]
            for weight in args.weights:
                env = {**envs[d_lang], "RAG_HYBRID_WEIGHT": str(weight)}
                s = score(asyncio.run(ask_all(env, questions)), relevant)
                figures[f"{q_lang}->{d_lang}@{weight}"] = s.__dict__
                print(
                    f"{q_lang}->{d_lang} weight {weight:.1f}: MRR@10 {s.mrr10:.3f}  "
                    f"hit@1 {s.hit1:.3f}  recall@5 {s.recall5:.3f}  (n={s.questions})",
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
