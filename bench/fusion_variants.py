"""How chunk hits become documents: the fusion and result-shaping alternatives, on the dev halves.

    uv run python bench/fusion_variants.py --model-dir DIR --keep DIR [--cache FILE]

The corpora are synced as ``keyword_tuning.py`` syncs them (``--keep`` reuses its indexes); each
dev question's 400 best chunks by vector and by keyword come from the product's own
``vector_rows`` / ``keyword_rows`` and are cached (``--cache``). Then every variant is scored at
the document level (the distinct sources of what it returns, in order, cut at 10), nDCG@10 /
MRR@10 as in ``quality.py``. ``shipped`` is what ``query_documents`` does at topK 10 (RRF over
chunks, k 60, 40 candidates a side, the top 10 chunks); the others change one thing each.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as c
from keyword_tuning import synced_index
from quality import CUTOFF, RUNS, corpus_docs, query_set, score

POOL = 400
Key = tuple[str, int]  # (source, chunk_index)


def collect(keep: Path, model_dir: Path) -> dict:
    xquad, cranfield = c.data("xquad"), c.data("cranfield")
    sets = {run: query_set(run, xquad, cranfield) for run in RUNS}
    out = {}
    for corpus in sorted({s.corpus for s in sets.values()}):
        index = synced_index(corpus, corpus_docs(corpus, xquad, cranfield), keep, model_dir)
        rows = index.store.rows(None, ["source", "chunk_index", "parent_id"])
        parent = {(r["source"], r["chunk_index"]): r["parent_id"] for r in rows}
        for run, qs in sets.items():
            if qs.corpus != corpus:
                continue
            lists = []
            for q in qs.questions:
                vec = index.vector_rows(index.embedder.embed_query(q), POOL, None)
                kw = index.keyword_rows(q, POOL, None)
                lists.append(
                    (
                        [(r["source"], r["chunk_index"]) for r in vec],
                        [(r["source"], r["chunk_index"]) for r in kw],
                    )
                )
            out[run] = {"lists": lists, "judged": qs.judged, "parent": parent}
            print(f"{run}: {len(lists)} questions", flush=True)
    return out


def documents(keys) -> list[str]:
    return list(dict.fromkeys(Path(k[0]).name for k in keys))


def fuse(vec, kw, w, k=60):
    from minirag_index.search.fusion import rrf_fuse

    return rrf_fuse(vec if w < 1 else [], kw if w > 0 else [], w, k)


def shipped(vec, kw, parent, w, k=60, n=40, nk=None):
    return documents([f.key for f in fuse(vec[:n], kw[: nk or n], w, k)][:CUTOFF])


def until_ten_documents(vec, kw, parent, w, n=40):
    """The same fused chunks, taken until they hold 10 distinct documents."""
    return documents([f.key for f in fuse(vec[:n], kw[:n], w)])[:CUTOFF]


def by_document(vec, kw, parent, w, n=40):
    """Each side's chunks turned into documents (a document at its best chunk's rank), fused."""
    return [Path(f.key).name for f in fuse(documents_of(vec[:n]), documents_of(kw[:n]), w)][:CUTOFF]


def documents_of(keys: list[Key]) -> list[str]:
    return list(dict.fromkeys(k[0] for k in keys))


def best_chunk_per_section(vec, kw, parent, w, n=40):
    """Each side keeps only its best chunk of a section before fusion."""

    def first(keys):
        seen: set[str] = set()
        return [k for k in keys if not (parent[k] in seen or seen.add(parent[k]))]

    return shipped(first(vec[:n]), first(kw[:n]), parent, w)


def by_summed_score(vec, kw, parent, w, n=40):
    """The top 10 chunks as shipped, documents ordered by the sum of their hits' scores."""
    total: dict[str, float] = defaultdict(float)
    for f in fuse(vec[:n], kw[:n], w)[:CUTOFF]:
        total[Path(f.key[0]).name] += f.score
    return sorted(total, key=lambda d: -total[d])  # stable: ties keep rank order


VARIANTS = {
    "shipped": shipped,
    "k 30": lambda *a: shipped(*a, k=30),
    "k 10": lambda *a: shipped(*a, k=10),
    "20 candidates a side": lambda *a: shipped(*a, n=20),
    "80 candidates a side": lambda *a: shipped(*a, n=80),
    "40 vector, 80 keyword candidates": lambda *a: shipped(*a, nk=80),
    "best chunk per section on each side": best_chunk_per_section,
    "documents by summed score of their hits": by_summed_score,
    "fused by document": by_document,
    "hits until 10 distinct documents": until_ten_documents,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="default: the MiniLM test model")
    parser.add_argument("--keep", type=Path, required=True, help="the synced indexes (reused)")
    parser.add_argument("--cache", type=Path, help="the candidate lists (reused when there)")
    parser.add_argument("--weights", type=float, nargs="*", default=[0.6, 0.5])
    args = parser.parse_args()
    args.keep.mkdir(parents=True, exist_ok=True)
    model_dir, model = c.model_folder(args.model_dir, args.keep)
    c.header("How chunk hits become documents", model)
    if args.cache and args.cache.exists():
        data = pickle.loads(args.cache.read_bytes())
    else:
        data = collect(args.keep, model_dir)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(data))
    for weight in args.weights:
        print(f"\n## weight {weight}: nDCG@10 / MRR@10\n")
        print("| variant | " + " | ".join(RUNS) + " |")
        print("|---|" + "---|" * len(RUNS))
        for name, variant in VARIANTS.items():
            cells = []
            for run in RUNS:
                d = data[run]
                ranked = [variant(v, kw, d["parent"], weight) for v, kw in d["lists"]]
                s = score(ranked, d["judged"])
                cells.append(f"{s.ndcg10:.3f} / {s.mrr10:.3f}")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    c.footer()


if __name__ == "__main__":
    main()
