"""Query latency (p50/p95) of MiniragIndex.search as the index grows, query embedding included.

    uv run python bench/latency.py [--model-dir DIR] [--sizes 1000 10000 17000 100000]
                                   [--queries 100]

First the 240 XQuAD English paragraphs are ingested for real (sync with the model) and searched.
Then a second index is grown through the sizes: synthetic chunks - sentences of the XQuAD
English paragraphs recombined at random under a heading line, 12 chunks per document, random
unit vectors (search scans every vector, so their values do not change its cost) - are
written in batches of up to 10,000 rows straight into the LanceDB table with the row layout
``Store.replace_source`` writes (its first document goes through ``replace_source`` itself, which
creates the table and the keyword indexes), then ``index.refresh()`` folds them into the keyword
indexes. At each size the XQuAD English dev questions are asked through ``MiniragIndex.search``
(topK 10, default hybrid weight 0.6) after a few warm-up queries; the query-embedding time is
measured inside the same calls (``Embedder.embed_query`` is wrapped) and reported separately.
Every part of a search goes to LanceDB; past its threshold the writer's refresh gives the table
its vector index (``minirag_index.storage.vector_index``), named in the output.
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

CHUNKS_PER_DOC = 12
WRITE_BATCH = 10_000
WARM_UP = 5


def questions(limit: int) -> list[str]:
    with open(c.data("xquad", "en", "queries-dev.tsv"), encoding="utf-8") as f:
        rows = [row[1] for row in csv.reader(f, delimiter="\t") if row and row[0] != "query_id"]
    return rows[:limit]


def sentences() -> list[str]:
    found = []
    for path in sorted((c.data("xquad", "en", "docs")).glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        found += [s.strip() + "." for s in text.replace("\n", " ").split(". ") if len(s) > 20]
    return found


def measure(index, asked: list[str], top_k: int = 10) -> dict:
    """Search every question once: total milliseconds per query, and the parts inside it
    (query embedding; vector search; keyword search, which runs in a thread beside the
    embedding and vector search; the row counts; the parent sections read back)."""
    store = index.store
    parts = ("embed", "vector", "keyword", "count", "sections")
    spent: dict[str, float] = {}
    originals = {
        "embed": (index.embedder, "embed_query"),
        "vector": (index, "vector_rows"),
        "keyword": (index, "keyword_rows"),
        "count": (store, "count_rows"),
        "sections": (index, "sections"),
    }

    def timed(name: str, func):
        def run(*args, **kwargs):
            started = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - started

        return run

    for question in asked[:WARM_UP]:
        index.search(question, top_k)
    saved = {name: getattr(obj, attr) for name, (obj, attr) in originals.items()}
    for name, (obj, attr) in originals.items():
        setattr(obj, attr, timed(name, saved[name]))
    total: list[float] = []
    each: dict[str, list[float]] = {p: [] for p in parts}
    try:
        for question in asked:
            spent.clear()
            started = time.perf_counter()
            result = index.search(question, top_k)
            total.append((time.perf_counter() - started) * 1000)
            for p in parts:
                each[p].append(spent.get(p, 0.0) * 1000)
            assert result.hits, question
    finally:
        for obj, attr in originals.values():
            delattr(obj, attr)  # the instance attribute goes; the class method shows again
    rest = [t - e for t, e in zip(total, each["embed"], strict=True)]
    return {
        "p50": c.percentile(total, 50),
        "p95": c.percentile(total, 95),
        "embed_p50": c.percentile(each["embed"], 50),
        "rest_p50": c.percentile(rest, 50),
        "rest_p95": c.percentile(rest, 95),
        "parts_p50": {p: c.percentile(each[p], 50) for p in parts},
        "n": len(total),
        "vector_index": index.store.vector_index_description(),
    }


def show(label: str, rows: int, m: dict) -> None:
    share = m["embed_p50"] / m["p50"] if m["p50"] else 0
    print(
        f"  {label:<26} {rows:>7} chunks  p50 {m['p50']:6.1f} ms  p95 {m['p95']:6.1f} ms  |"
        f"  query embedding p50 {m['embed_p50']:5.1f} ms ({share:.0%})  |  search without it "
        f"p50 {m['rest_p50']:6.1f} / p95 {m['rest_p95']:6.1f} ms  (n={m['n']})  [{c.load()}]",
        flush=True,
    )
    print(f"      vector index: {m['vector_index']}")
    parts = m["parts_p50"]
    print(
        "      p50 parts: "
        + ", ".join(f"{name} {parts[name]:.1f} ms" for name in parts)
        + " (keyword search runs beside embedding + vector search)",
        flush=True,
    )


def synthetic_rows(store, dim: int, start_doc: int, docs: int, pool: list[str], rng):
    """``docs`` synthetic documents as a pyarrow table in the layout replace_source writes."""
    import numpy as np
    import pyarrow as pa

    from minirag_index.storage.keyword_index import TERM_COLUMNS, term_values
    from minirag_index.storage.schema import parent_id_for, row_id

    n = docs * CHUNKS_PER_DOC
    vectors = rng.standard_normal((n, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = time.time()
    cols: dict[str, list] = {
        k: []
        for k in (
            "id",
            "source",
            "title",
            "chunk_index",
            "section",
            "parent_id",
            "text",
            "content_hash",
        )
    }
    pick = random.Random(start_doc)
    for d in range(start_doc, start_doc + docs):
        source = f"/bench/synthetic/d{d // 1000:03d}/doc-{d:06d}.md"
        title = " ".join(pick.choice(pool).split()[:6])
        for i in range(CHUNKS_PER_DOC):
            section = i // 3
            body = " ".join(pick.choice(pool) for _ in range(pick.randint(3, 5)))
            cols["id"].append(row_id(source, i))
            cols["source"].append(source)
            cols["title"].append(title)
            cols["chunk_index"].append(i)
            cols["section"].append(section)
            cols["parent_id"].append(parent_id_for(source, section))
            cols["text"].append(f"{title} > Part {section + 1}\n\n{body}")
            cols["content_hash"].append(f"{d:032x}")
    schema = store.table().schema
    data = {
        **cols,
        "source_type": ["file"] * n,
        "context_chars": [0] * n,
        "joiner": ["\n\n"] * n,
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), dim),
        "size": [4096] * n,
        "mtime": [now] * n,
        "ingested_at": [now] * n,
        "scheme": [int(__import__("minirag_ingest.chunking", fromlist=["x"]).SCHEME_VERSION)] * n,
        "ocr_engine": [""] * n,
        "pages": [None] * n,
        "doc_date": [None] * n,
        "date_source": [None] * n,
        "labels": [None] * n,
        "signature": [None] * n,
        "passage_key": [None] * n,  # random vectors: never to be reused for a real text
    }
    terms = [term_values(t, ti) for t, ti in zip(cols["text"], cols["title"], strict=True)]
    data.update({column: [v[column] for v in terms] for column in TERM_COLUMNS})
    return pa.table(
        {
            f.name: pa.array(data[f.name], f.type)
            if not isinstance(data[f.name], pa.Array)
            else data[f.name]
            for f in schema
        },
        schema=schema,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 17000, 100000])
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()

    import numpy as np

    from minirag_index.storage.store import ChunkInput, SourceDoc
    from minirag_ingest.sync.run import sync

    work = Path(tempfile.mkdtemp(prefix="minirag-bench-latency-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("query latency, MiniragIndex.search (topK 10, hybrid weight 0.6)", label)
        asked = questions(args.queries)

        root = work / "xquad-en"
        shutil.copytree(c.data("xquad", "en", "docs"), root)
        pipeline = c.open_pipeline([root], work / "db-xquad", model_dir)
        sync(pipeline)
        index = pipeline.index
        print(f"\n## {len(asked)} XQuAD English dev questions per size")
        show("XQuAD en, 240 paragraphs", index.store.count_rows(), measure(index, asked))

        big = c.open_pipeline([work], work / "db-synthetic", model_dir).index
        dim = big.embedder.dim
        pool = sentences()
        rng = np.random.default_rng(7)
        first = ChunkInput(
            text="# Seed\n\nThe first synthetic document, written by replace_source."
        )
        big.store_embedded(
            SourceDoc(source="/bench/synthetic/seed.md", title="Seed", scheme=1),
            [first],
            [rng.standard_normal(dim).astype("float32")],
        )
        docs = 0
        for size in sorted(args.sizes):
            started = time.perf_counter()
            while big.store.count_rows() < size:
                want = min(WRITE_BATCH, size - big.store.count_rows()) // CHUNKS_PER_DOC or 1
                big.store.table().add(synthetic_rows(big.store, dim, docs, want, pool, rng))
                docs += want
            written = time.perf_counter() - started
            started = time.perf_counter()
            big.refresh()
            refreshed = time.perf_counter() - started
            print(
                f"  (grew to {big.store.count_rows()} rows: written in {written:.1f} s, "
                f"refresh {refreshed:.1f} s)",
                flush=True,
            )
            show("synthetic", big.store.count_rows(), measure(big, asked))
        print(f"\npeak RSS of this process: {c.peak_rss_mb():.0f} MiB")
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
