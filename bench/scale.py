"""Search at scale: N chunks written straight into an index, then timed in process.

    uv run python bench/scale.py --chunks 300000 [--root bench/out/scale] [--model-dir DIR]
                                 [--queries 200] [--against OTHER_INDEX_DIR]

Writes N chunks (documents of 10 chunks, 60-100 words each from a Zipf vocabulary built on the
repository's own prose and code) through ``MiniragIndex.store_many`` without embedding them:
each vector is drawn from a Gaussian with the mean and covariance of real embeddings (a few
thousand passages of this repository's Markdown and Python, embedded once by the model and kept
in ``<root>/fit-<model>.npz``), then scaled to unit length as the model's own are. Clustered
synthetic vectors would flatter an index's recall (targets.md, "At scale"). The index folder
``<root>/chunks-<N>`` is reused when it already holds N chunks.

Then the writer's ``refresh()`` (``Store.optimize``: the vector index is created past its
threshold, the keyword indexes fold the new rows in) is timed, and a fresh read-only index
(what a server opens) answers: hybrid ``search`` p50/p95 over the queries (ten-word spans of
the same prose, embedded by the model), the same with a scope and with a ``sources`` filter
each matching 1% of the documents (p50 and the hits returned), ``sources()`` and the stale
count (status), a scoped listing (list_files), then vector recall@10 of the store's vector
search against an exact one (``bypass_vector_index``) on the same queries; RSS and disk size;
with ``--against DIR`` (another index of the same chunks, opened read-only), hybrid search on
both in turn, query by query, for a ratio that holds under a shared load; then find_mentions:
its first call and 38 queries over words of every frequency and phrases.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

CHUNKS_PER_DOC = 10
FOLDERS = 100  # documents are spread over this many folders: one folder is 1% of them
DOCS_PER_COMMIT = 1_000
FIT_WORDS = 70  # words per passage embedded to fit the Gaussian
VOCABULARY = 40_000
ZIPF_S = 1.1


def repo_text() -> list[str]:
    """Every Markdown and Python file of the repository, as text."""
    paths = [
        p
        for pattern in ("*.md", "*.py")
        for p in c.REPO.rglob(pattern)
        if not any(part.startswith(".") or part in ("out", "node_modules") for part in p.parts)
    ]
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(paths)]


def passages(texts: list[str], words: int, stride: int) -> list[str]:
    found = []
    for text in texts:
        tokens = text.split()
        for start in range(0, max(len(tokens) - words, 1), stride):
            found.append(" ".join(tokens[start : start + words]))
    return found


def fit(index, root: Path, label: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of real embeddings of the repository's passages (cached)."""
    del label  # the same model built in another folder fits the same
    name = re.sub(r"[^A-Za-z0-9]+", "-", Path(index.embedder.model_name).name)
    path = root / f"fit-{name}.npz"
    if path.exists():
        saved = np.load(path)
        return saved["mean"], saved["cov"]
    texts = passages(repo_text(), FIT_WORDS, FIT_WORDS // 2)
    rng = np.random.default_rng(7)
    chosen = [texts[i] for i in rng.choice(len(texts), min(len(texts), 4000), replace=False)]
    started = time.perf_counter()
    vectors = np.array(index.embedder.embed_passages(chosen), dtype=np.float64)
    print(f"fitted   {len(chosen)} real passages embedded in {time.perf_counter() - started:.0f} s")
    mean, cov = vectors.mean(axis=0), np.cov(vectors, rowvar=False)
    np.savez(path, mean=mean, cov=cov)
    return mean, cov


class Drawer:
    """Unit vectors drawn from the fitted Gaussian."""

    def __init__(self, mean: np.ndarray, cov: np.ndarray, seed: int):
        self.mean = mean
        values, vectors = np.linalg.eigh(cov)
        self.factor = vectors * np.sqrt(np.clip(values, 0, None))
        self.rng = np.random.default_rng(seed)

    def draw(self, n: int) -> np.ndarray:
        raw = self.mean + self.rng.standard_normal((n, len(self.mean))) @ self.factor.T
        return (raw / np.linalg.norm(raw, axis=1, keepdims=True)).astype(np.float32)


class Words:
    """Real-looking text: words of the repository ranked by frequency, Zipf-drawn."""

    def __init__(self, seed: int):
        counts: dict[str, int] = {}
        for text in repo_text():
            for word in re.findall(r"[A-Za-z][a-z]{2,14}", text):
                counts[word.lower()] = counts.get(word.lower(), 0) + 1
        ranked = sorted(counts, key=lambda w: -counts[w])
        rng = np.random.default_rng(seed)
        syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "der", "mon", "pel", "stra"]
        while len(ranked) < VOCABULARY:  # rarer made-up words fill the long tail
            ranked.append("".join(rng.choice(syllables, size=int(rng.integers(2, 5)))))
        self.words = np.array(ranked[:VOCABULARY])
        weights = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF_S
        self.p = weights / weights.sum()
        self.rng = rng

    def text(self, n: int) -> str:
        return " ".join(self.rng.choice(self.words, size=n, p=self.p))


def source_of(doc: int) -> str:
    return f"/corpus/f{doc % FOLDERS:03d}/doc-{doc:07d}.md"


def write(index, want: int, drawer: Drawer, words: Words) -> float:
    """Add documents until the table holds ``want`` chunks; seconds spent."""
    from minirag_index import ChunkInput, SourceDoc

    have = index.store.count_rows()
    docs = want // CHUNKS_PER_DOC
    first = have // CHUNKS_PER_DOC
    started = time.perf_counter()
    for start in range(first, docs, DOCS_PER_COMMIT):
        items = []
        batch = range(start, min(start + DOCS_PER_COMMIT, docs))
        vectors = drawer.draw(len(batch) * CHUNKS_PER_DOC)
        for n, doc in enumerate(batch):
            title = words.text(4).title()
            chunks = [
                ChunkInput(f"{title}\n\n{words.text(int(words.rng.integers(60, 101)))}", section=i)
                for i in range(CHUNKS_PER_DOC)
            ]
            rows = vectors[n * CHUNKS_PER_DOC : (n + 1) * CHUNKS_PER_DOC]
            source = SourceDoc(source_of(doc), title=title, content_hash=f"h{doc}", size=1)
            items.append((source, chunks, list(rows)))
        index.store_many(items)
        done = (batch.stop) * CHUNKS_PER_DOC
        if batch.stop % (DOCS_PER_COMMIT * 10) == 0 or batch.stop == docs:
            elapsed = time.perf_counter() - started
            print(f"write    {done:>9,} chunks  {elapsed:6.0f} s  [{c.load()}]", flush=True)
    return time.perf_counter() - started


def timed(action, repeat: int) -> tuple[list[float], object]:
    spent, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = action()
        spent.append((time.perf_counter() - started) * 1000)
    return spent, result


def recall(index, vectors: list[np.ndarray], k: int = 10) -> tuple[float, float, float]:
    """Recall@k of the vector side of a search (its candidates for top ``k``, nearest first)
    against an exact flat search; their p50 in ms."""
    from minirag_index.index import candidate_count

    table = index.store.table()
    found, fast, slow = [], [], []
    for vector in vectors:
        started = time.perf_counter()
        got = index.store.vector_search(vector, candidate_count(k), None)[:k]  # as search asks
        fast.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        exact = (
            table.search(list(vector))
            .bypass_vector_index()
            .select(["id", "_distance"])
            .limit(k)
            .to_arrow()
        )
        slow.append((time.perf_counter() - started) * 1000)
        truth = set(exact.column("id").to_pylist())
        ids = {row["source"] + "\x1f" + str(row["chunk_index"]) for row in got}
        found.append(len(ids & truth) / k)
    return float(np.mean(found)), c.percentile(fast, 50), c.percentile(slow, 50)


def disk_mb(folder: Path) -> float:
    out = subprocess.run(["du", "-sm", str(folder)], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--root", type=Path, default=c.REPO / "bench" / "out" / "scale")
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another index folder of the same chunks, opened read-only (never written): "
        "hybrid search is timed on both alternately, for a ratio under a shared load",
    )
    parser.add_argument(
        "--recall-queries",
        type=int,
        default=200,
        help="queries for recall@10 (exact search is slow)",
    )
    args = parser.parse_args()
    args.root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="scale-"))
    try:
        model, label = c.model_folder(args.model_dir, args.root)  # kept: the index records it
        c.header(f"Search at scale: {args.chunks:,} chunks", label)
        run(args, model, label)
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, model: Path, label: str) -> None:
    from minirag_index import IndexSettings, MiniragIndex

    folder = args.root / f"chunks-{args.chunks}"
    settings = IndexSettings(DB_PATH=folder, MODEL_NAME=str(model), CACHE_DIR=args.root / "cache")
    writer = MiniragIndex(settings)
    mean, cov = fit(writer, args.root, label)
    spent = write(writer, args.chunks, Drawer(mean, cov, writer.store.count_rows()), Words(11))
    started = time.perf_counter()
    writer.refresh()
    optimised = time.perf_counter() - started
    print(f"write    {spent:.0f} s, then the writer's optimize {optimised:.0f} s")
    print(f"vector index  {writer.store.vector_index_description()}")
    del writer
    texts = passages(repo_text(), 10, 97)
    rng = np.random.default_rng(3)
    asked = [texts[i] for i in rng.choice(len(texts), args.queries, replace=False)]
    rss_open = c.rss_mb()
    index = MiniragIndex(settings, read_only=True)
    measure(index, asked, folder, rss_open, args.recall_queries)
    if args.against is not None:
        compare(index, args.against, settings, asked)
    mentions(index, mention_queries(Words(11)))


def measure(index, asked: list[str], folder: Path, rss_before: float | None, rq: int) -> None:
    first, _ = timed(lambda: index.search(asked[0]), 1)
    for query in asked[1:6]:
        index.search(query)
    plain, _ = timed_each(index.search, asked)
    rows = index.store.count_rows()
    docs = rows // CHUNKS_PER_DOC
    scope = "/corpus/f042"
    one_percent = {source_of(d) for d in range(docs) if d % FOLDERS == 17}
    scoped, hits_scoped = timed_each(lambda q: len(index.search(q, scope=scope).hits), asked[:50])
    filtered, hits_filtered = timed_each(
        lambda q: len(index.search(q, sources=one_percent).hits), asked[:50]
    )
    status, found = timed(lambda: (len(index.sources()), index.stale_chunk_count(1)), 5)
    direct, _ = timed(lambda: len(index.store.sources()), 3)
    listing, listed = timed(lambda: len(index.sources(scope)), 5)
    vectors = [index.embedder.embed_query(q) for q in asked[:rq]]
    got, fast, slow = recall(index, vectors)
    print(f"\n| {rows:,} chunks | p50 | p95 | note |")
    print("|---|---|---|---|")
    print(f"| first search | {first[0]:.0f} ms | | opens the table |")
    print(f"| hybrid search, top 10 | {pct(plain, 50)} | {pct(plain, 95)} | {len(plain)} queries |")
    hs = f"hits returned min {min(hits_scoped)}"
    print(f"| scope filter (1% of docs) | {pct(scoped, 50)} | {pct(scoped, 95)} | {hs} |")
    hf = f"{len(one_percent)} sources, hits returned min {min(hits_filtered)}"
    print(f"| sources filter (1% of docs) | {pct(filtered, 50)} | {pct(filtered, 95)} | {hf} |")
    print(f"| status (sources, stale) | {pct(status, 50)} | | {found[0]:,} sources |")  # type: ignore[index]
    print(f"| sources read from LanceDB | {pct(direct, 50)} | | without the summary file |")
    print(f"| list_files (one folder) | {pct(listing, 50)} | | {listed} sources |")
    print(f"| vector search alone | {fast:.1f} ms | | exact flat search {slow:.0f} ms |")
    print(f"\nvector recall@10 against exact search: {got:.3f} ({len(vectors)} queries)")
    print(f"RSS: {rss_before or 0:.0f} MB before opening, {c.rss_mb() or 0:.0f} MB after queries")
    print(f"disk: {disk_mb(folder):,.0f} MB at {folder}")


def compare(index, other: Path, settings, asked: list[str]) -> None:
    """Hybrid search on this index and on ``other`` (read-only), query by query in turn, so
    both share whatever load the machine has: p50/p95 of each and the ratio of p50s, plain
    and with the 1% scope filter."""
    from minirag_index import IndexSettings, MiniragIndex

    against = MiniragIndex(
        IndexSettings(DB_PATH=other, MODEL_NAME=settings.MODEL_NAME, CACHE_DIR=settings.CACHE_DIR),
        read_only=True,
    )
    for query in asked[:5]:
        against.search(query)
    print(f"\nA/B against {other}, queries in turn (this index / that one):")
    for label, scope in (("hybrid search", None), ("scope filter (1%)", "/corpus/f042")):
        ours, theirs = [], []
        for query in asked:
            ours.extend(timed_each(lambda q, s=scope: index.search(q, scope=s), [query])[0])
            theirs.extend(timed_each(lambda q, s=scope: against.search(q, scope=s), [query])[0])
        ratio = c.percentile(ours, 50) / c.percentile(theirs, 50)
        print(f"  {label}: p50 {pct(ours, 50)} / {pct(theirs, 50)} (ratio {ratio:.2f}),", end="")
        print(f" p95 {pct(ours, 95)} / {pct(theirs, 95)}, {len(asked)} queries")


def mention_queries(words: Words) -> list[list[str]]:
    """find_mentions terms of every frequency: words of 30 ranks from the commonest to the
    rarest (as they are, as a quoted form, as an open stem), and 8 two-word phrases."""
    ranks = sorted({int(r) for r in np.geomspace(1, VOCABULARY - 1, 30)})
    found: list[list[str]] = []
    for k, rank in enumerate(ranks):
        word = str(words.words[rank])
        found.append([[word], [f'"{word}"'], [word[: max(3, len(word) - 2)]]][k % 3])
    for _ in range(8):
        a, b = (str(words.words[int(i)]) for i in words.rng.integers(0, 2000, size=2))
        found.append([f'"{a} {b}"'])
    return found


def mentions(index, queries: list[list[str]]) -> None:
    """find_mentions: the first call (it builds what it keeps per table version), then each
    query once; every document counted, none capped (the rule is tested against a brute-force
    scan by packages/minirag-index/tests/test_mentions_exhaustive.py)."""
    first, _ = timed(lambda: index.find_mentions(queries[0]), 1)
    spent, results = timed_each(index.find_mentions, queries[1:])
    documents = sorted(r.matched_documents for r in results)  # type: ignore[attr-defined]
    middle = documents[len(documents) // 2]
    print(f"\nfind_mentions, first call: {first[0] / 1000:.2f} s (builds the per-version view)")
    print(f"find_mentions, {len(spent)} queries: p50 {pct(spent, 50)}, p95 {pct(spent, 95)}")
    print(f"documents matched per query: {documents[0]:,} to {documents[-1]:,} (median {middle:,})")
    print(f"RSS after find_mentions: {c.rss_mb() or 0:.0f} MB")


def timed_each(action, queries: list[str]) -> tuple[list[float], list[object]]:
    spent, results = [], []
    for query in queries:
        started = time.perf_counter()
        results.append(action(query))
        spent.append((time.perf_counter() - started) * 1000)
    return spent, results


def pct(values: list[float], q: int) -> str:
    return f"{c.percentile(values, q):.1f} ms"


if __name__ == "__main__":
    main()
