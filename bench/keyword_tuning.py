"""Choosing the keyword analysis and the fusion settings on the judged dev halves, in process.

    uv run python bench/keyword_tuning.py [--model-dir DIR] [--runs en-en ru-ru ru-en cranfield]
                                          [--variants …] [--keep DIR] [--out figures.json]

Each corpus is synced once into an index exactly as the server does it (``open_pipeline`` +
``sync``; ``--keep DIR`` keeps those indexes for the next run). Every dev question's vector
candidates come from that index (``MiniragIndex.vector_rows``). The keyword side is rebuilt
once per *variant* in a table of its own beside it, holding the same chunks: LanceDB's analysers
on the text and title columns (``russian``: what shipped before, ``english``: LanceDB's default
English analyser, ``two-analysers``: both, on a copy of each column), or one column of terms
computed by :mod:`minirag_index.text.keyword_terms` and searched with the query analysed the same
way
(``terms`` and its sub-variants). For each variant the script prints what it costs (analysis and
index build time, the keyword data on disk, query time) and the document-level figures at
keyword only, at the default hybrid weight, and then a fusion sweep of one variant: the weight
from 0.0 to 1.0 in steps of 0.1, the RRF constant k and the candidates each side fetches.
Fusion is the product's own ``rrf_fuse`` over the two candidate lists, cut at topK 10 chunks,
then distinct sources in rank order, as ``query_documents`` does. Timings depend on the load,
printed with them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as c
from quality import CUTOFF, RUNS, QuerySet, corpus_docs, query_set, score

WEIGHTS = tuple(round(w / 10, 1) for w in range(11))
RRF_KS = (60, 30, 10, 5)
CANDIDATES = (20, 40, 80, 160)  # per side; the product fetches 40 at topK 10
DEFAULT_WEIGHT, DEFAULT_K, DEFAULT_CANDIDATES = 0.6, 60, 40

Key = tuple[str, int]  # (source, chunk_index)


@dataclass
class Variant:
    """One way to build and query the keyword side."""

    columns: dict[str, Callable[[dict], str]]  # indexed column -> its text from a chunk row
    config: Callable[[str], object]  # the LanceDB FTS config of a column
    query: Callable[[str], str] = str
    notes: str = ""


def _lancedb_config(language: str, **options) -> Callable[[str], object]:
    def make(column: str) -> object:
        from lancedb.index import FTS

        return FTS(language=language, **options)

    return make


def _russian(column: str) -> object:
    """The analyser the text and title indexes had before (Russian stems only); English on
    the ``_en`` copies."""
    from lancedb.index import FTS

    if column.endswith("_en"):
        return FTS(language="English")
    return FTS(
        base_tokenizer="simple",
        language="Russian",
        stem=True,
        lower_case=True,
        remove_stop_words=False,
        ascii_folding=False,
        max_token_length=64,
    )


def _terms_config(column: str) -> object:
    from lancedb.index import FTS

    from minirag_index.text.keyword_terms import MAX_TERM_CHARS

    return FTS(
        base_tokenizer="whitespace",
        lower_case=False,
        stem=False,
        remove_stop_words=False,
        ascii_folding=False,
        max_token_length=MAX_TERM_CHARS,
    )


def add_title_lines(rows: list[dict]) -> None:
    """Give every chunk row its document's own first paragraph as ``title_line`` (Cranfield:
    the abstract's title line, which the file also repeats before the abstract)."""
    firsts = {
        r["source"]: r["text"][r["context_chars"] :].split("\n\n", 1)[0]
        for r in rows
        if r["chunk_index"] == 0
    }
    for r in rows:
        r["title_line"] = firsts.get(r["source"], "")


def variants() -> dict[str, Variant]:
    from minirag_index.text import keyword_terms as kt

    def drop_stops(text: str) -> str:
        return " ".join(kt.terms(text, drop_stop_words=True))

    def text(row):
        return row["text"]

    def title(row):
        return row["title"]

    return {
        "russian": Variant({"text": text, "title": title}, _russian, notes="before: Russian stems"),
        "english": Variant(
            {"text": text, "title": title},
            _lancedb_config("English"),
            notes="LanceDB's default English analyser (stems, stop words, ASCII folding)",
        ),
        "two-analysers": Variant(
            {"text": text, "title": title, "text_en": text, "title_en": title},
            _russian,
            notes="Russian analyser on text/title + English one on a copy of each",
        ),
        "terms": Variant(
            {
                "text_terms": lambda r: kt.index_terms(r["text"]),
                "title_terms": lambda r: kt.index_terms(r["title"]),
            },
            _terms_config,
            kt.query_terms,
            notes="keyword_terms: both stemmers, identifiers whole, stop words left out of queries",
        ),
        "terms-stop-words-in-query": Variant(
            {
                "text_terms": lambda r: kt.index_terms(r["text"]),
                "title_terms": lambda r: kt.index_terms(r["title"]),
            },
            _terms_config,
            kt.index_terms,
            notes="the same, the query's function words kept",
        ),
        "terms-stop-words-out-of-index": Variant(
            {
                "text_terms": lambda r: drop_stops(r["text"]),
                "title_terms": lambda r: drop_stops(r["title"]),
            },
            _terms_config,
            kt.query_terms,
            notes="the same, function words left out of the index too",
        ),
        "terms-no-title": Variant(
            {"text_terms": lambda r: kt.index_terms(r["text"])},
            _terms_config,
            kt.query_terms,
            notes="terms of the text only, no title column",
        ),
        "terms-title-line": Variant(
            {
                "text_terms": lambda r: kt.index_terms(r["text"]),
                "title_terms": lambda r: kt.index_terms(r["title_line"]),
            },
            _terms_config,
            kt.query_terms,
            notes="title column = the document's first paragraph, on every chunk of it",
        ),
    }


@dataclass
class KeywordSide:
    build_seconds: float
    analysis_seconds: float
    index_mb: float
    data_mb: float
    query_ms: list[float] = field(default_factory=list)
    ranked: dict[str, list[list[Key]]] = field(default_factory=dict)  # run -> per question


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def build_keyword_side(
    variant: Variant, rows: list[dict], folder: Path
) -> tuple[object, KeywordSide]:
    import lancedb
    import pyarrow as pa

    started = time.perf_counter()
    data = {"source": [r["source"] for r in rows], "chunk_index": [r["chunk_index"] for r in rows]}
    for column, make in variant.columns.items():
        data[column] = [make(r) for r in rows]
    analysed = time.perf_counter() - started
    db = lancedb.connect(folder)
    table = db.create_table("kw", pa.table(data), mode="overwrite")
    for column in variant.columns:
        table.create_index(column, config=variant.config(column), replace=True)
    built = time.perf_counter() - started
    indices = folder / "kw.lance" / "_indices"
    side = KeywordSide(built, analysed, folder_mb(indices), folder_mb(folder) - folder_mb(indices))
    return table, side


def keyword_ranked(table, variant: Variant, questions: list[str], limit: int, side: KeywordSide):
    from lancedb.query import MultiMatchQuery

    ranked = []
    for question in questions:
        started = time.perf_counter()
        text = variant.query(question)
        hits = []
        if text.strip():
            query = table.search(MultiMatchQuery(text, list(variant.columns)), query_type="fts")
            hits = (
                query.select(["source", "chunk_index", "_score"])
                .limit(limit)
                .to_arrow()
                .to_pylist()
            )
        side.query_ms.append((time.perf_counter() - started) * 1000)
        ranked.append([(h["source"], h["chunk_index"]) for h in hits])
    return ranked


def fused_sources(
    vector: list[Key], keyword: list[Key], weight: float, k: int, n: int
) -> list[str]:
    """What query_documents returns as sources: fused top-10 chunks, distinct sources."""
    from minirag_index.search.fusion import rrf_fuse

    vector = vector[:n] if weight < 1 else []
    keyword = keyword[:n] if weight > 0 else []
    fused = rrf_fuse(vector, keyword, weight, k)[:CUTOFF]
    return list(dict.fromkeys(Path(f.key[0]).name for f in fused))


def evaluate(
    qs: QuerySet, vector, keyword, weight=DEFAULT_WEIGHT, k=DEFAULT_K, n=DEFAULT_CANDIDATES
):
    ranked = [fused_sources(v, kw, weight, k, n) for v, kw in zip(vector, keyword, strict=True)]
    return score(ranked, qs.judged)


def with_prefixes(embedder, query_prefix: str, passage_prefix: str) -> None:
    """Make ``embedder`` put e5-style prefixes before what it embeds (vectors only: the stored
    chunk text stays as it is)."""
    embed_query, embed_passages = embedder.embed_query, embedder.embed_passages
    embedder.embed_query = lambda text: embed_query(query_prefix + text)
    embedder.embed_passages = lambda texts: embed_passages([passage_prefix + t for t in texts])


def synced_index(corpus: str, docs: Path, keep: Path, model_dir: Path, prefixes=None):
    """The corpus synced into ``keep/corpus`` (reused when already there)."""
    from minirag_ingest.sync.run import sync

    db = keep / f"db-{corpus}"
    fresh = not db.exists()
    pipeline = c.open_pipeline([docs], db, model_dir)
    if prefixes:
        rule = pipeline.index.embedder.spec.prefix_rule()
        if rule != "no prefixes":
            raise SystemExit(f"--prefixes: {model_dir} declares its own ({rule})")
        with_prefixes(pipeline.index.embedder, *prefixes)
    if fresh:
        started = time.perf_counter()
        report = sync(pipeline)
        print(
            f"synced {corpus}: {report.ingested} documents "
            f"in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
    return pipeline.index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="default: the MiniLM test model")
    parser.add_argument("--runs", nargs="*", default=list(RUNS), choices=RUNS)
    parser.add_argument("--variants", nargs="*", help="default: all")
    parser.add_argument("--sweep", default="terms", help="the variant whose fusion is swept")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the synced indexes here")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument(
        "--prefixes",
        nargs=2,
        metavar=("QUERY", "PASSAGE"),
        help="embed with these prefixes, for a folder that declares none (use a new --keep)",
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag-tuning-"))
    keep = args.keep or work
    keep.mkdir(parents=True, exist_ok=True)
    model_dir, model = c.model_folder(args.model_dir, keep)
    c.header("Keyword analysis and fusion on the dev halves", model)
    xquad, cranfield = c.data("xquad"), c.data("cranfield")
    sets = {run: query_set(run, xquad, cranfield) for run in args.runs}
    chosen = {n: v for n, v in variants().items() if not args.variants or n in args.variants}
    limit = max(CANDIDATES)
    figures: dict[str, object] = {}
    try:
        vector, rows_of = vector_rankings(sets, xquad, cranfield, keep, model_dir, args, limit)
        print_upgrades(rows_of, keep, work, figures)
        sides = keyword_sides(chosen, sets, rows_of, work, limit)
        print_costs(sides, rows_of, figures)
        print_quality(sets, vector, sides, figures)
        for run, qs in sets.items():
            if args.sweep in sides:
                keyword = sides[args.sweep][qs.corpus].ranked[run]
                found = [
                    len(fused_sources(v, kw, DEFAULT_WEIGHT, DEFAULT_K, DEFAULT_CANDIDATES))
                    for v, kw in zip(vector[run], keyword, strict=True)
                ]
                print(f"{run}: {statistics.mean(found):.1f} distinct documents in the top 10 hits")
        if args.sweep in sides:
            sweep(sets, vector, sides[args.sweep], figures)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        c.footer()
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")


def vector_rankings(sets, xquad, cranfield, keep, model_dir, args, limit):
    """Each run's vector-side ranking, and each corpus's stored rows (title lines added)."""
    vector: dict[str, list[list[Key]]] = {}
    rows_of: dict[str, list[dict]] = {}
    for corpus in sorted({s.corpus for s in sets.values()}):
        docs = corpus_docs(corpus, xquad, cranfield)
        index = synced_index(corpus, docs, keep, model_dir, args.prefixes)
        columns = ["source", "chunk_index", "text", "title", "context_chars"]
        rows_of[corpus] = index.store.rows(None, columns)
        add_title_lines(rows_of[corpus])
        for run, qs in sets.items():
            if qs.corpus == corpus:
                vecs = [index.embedder.embed_query(q) for q in qs.questions]
                found = [index.vector_rows(v, limit, None) for v in vecs]
                vector[run] = [[(r["source"], r["chunk_index"]) for r in f] for f in found]
    return vector, rows_of


def print_upgrades(rows_of, keep, work, figures) -> None:
    print(f"\n## Upgrading an index of the earlier layout on open ({c.load()})\n")
    print("| corpus | chunks | upgrade on open |")
    print("|---|---|---|")
    for corpus, rows in rows_of.items():
        seconds = upgrade_seconds(keep / f"db-{corpus}", work)
        figures[f"upgrade:{corpus}"] = {"seconds": seconds}
        print(f"| {corpus} | {len(rows)} | {seconds:.2f} s |")


def keyword_sides(chosen, sets, rows_of, work, limit) -> dict[str, dict[str, KeywordSide]]:
    """Each keyword variant built over each corpus, with every run's ranking."""
    sides: dict[str, dict[str, KeywordSide]] = {}
    for name, variant in chosen.items():
        sides[name] = {}
        for corpus, rows in rows_of.items():
            table, side = build_keyword_side(variant, rows, work / f"kw-{name}-{corpus}")
            for run, qs in sets.items():
                if qs.corpus == corpus:
                    side.ranked[run] = keyword_ranked(table, variant, qs.questions, limit, side)
            sides[name][corpus] = side
    return sides


def print_costs(sides, rows_of, figures) -> None:
    print(f"\n## Keyword variants ({c.load()})\n")
    print(
        "| variant | corpus | chunks | analysis + index build "
        "| keyword data / index on disk | query p50 |"
    )
    print("|---|---|---|---|---|---|")
    for name, per_corpus in sides.items():
        for corpus, side in per_corpus.items():
            print(
                f"| {name} | {corpus} | {len(rows_of[corpus])} | {side.analysis_seconds:.2f} + "
                f"{side.build_seconds - side.analysis_seconds:.2f} s | {side.data_mb:.2f} / "
                f"{side.index_mb:.2f} MB | {statistics.median(side.query_ms):.1f} ms |"
            )
            figures[f"cost:{name}:{corpus}"] = {
                "analysis_s": side.analysis_seconds,
                "build_s": side.build_seconds,
                "data_mb": side.data_mb,
                "index_mb": side.index_mb,
                "query_p50_ms": statistics.median(side.query_ms),
            }


def print_quality(sets, vector, sides, figures) -> None:
    print(
        "\n## nDCG@10 / MRR@10: vector only, keyword only, hybrid (weight 0.6, k 60, 40 a side)\n"
    )
    print("| variant | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    cells = []
    for run, qs in sets.items():
        s = evaluate(qs, vector[run], [[]] * len(qs.questions), weight=0.0)
        cells.append(f"{s.ndcg10:.3f} / {s.mrr10:.3f}")
        figures[f"vector:{run}"] = s.__dict__
    print("| vector only | " + " | ".join(cells) + " |")
    for name, per_corpus in sides.items():
        for weight, label in ((1.0, "keyword"), (DEFAULT_WEIGHT, "hybrid")):
            cells = []
            for run, qs in sets.items():
                s = evaluate(qs, vector[run], per_corpus[qs.corpus].ranked[run], weight=weight)
                cells.append(f"{s.ndcg10:.3f} / {s.mrr10:.3f}")
                figures[f"{label}:{name}:{run}"] = s.__dict__
            print(f"| {name}, {label} | " + " | ".join(cells) + " |")


def make_old_format(db: Path) -> None:
    """Turn an index into what the version before the term columns wrote: no term columns,
    keyword indexes on text and title with the Russian analyser."""
    import lancedb

    from minirag_index.storage import keyword_index

    table = lancedb.connect(db).open_table("chunks")
    for ix in table.list_indices():
        if ix.index_type == "FTS":
            table.drop_index(ix.name)
    table.drop_columns([c for c in keyword_index.TERM_COLUMNS if c in table.schema.names])
    for column in ("text", "title"):
        table.create_index(column, config=_russian(column), replace=True)
    table.optimize(cleanup_older_than=timedelta(0))


def upgrade_seconds(db: Path, work: Path) -> float:
    """How long opening an index of the earlier layout takes (the upgrade runs on open)."""
    from minirag_index.storage.store import Store

    old = work / f"old-{db.name}"
    shutil.copytree(db, old)
    make_old_format(old)
    started = time.perf_counter()
    store = Store(old)
    store.table()
    seconds = time.perf_counter() - started
    assert not store.warnings, store.warnings
    shutil.rmtree(old, ignore_errors=True)
    return seconds


def sweep(sets: dict[str, QuerySet], vector, per_corpus: dict[str, KeywordSide], figures) -> None:
    def cell(run: str, weight: float, k: int, n: int) -> str:
        qs = sets[run]
        s = evaluate(qs, vector[run], per_corpus[qs.corpus].ranked[run], weight, k, n)
        figures[f"sweep:{run}:w{weight}:k{k}:n{n}"] = s.__dict__
        return f"{s.ndcg10:.3f} / {s.mrr10:.3f}"

    print(f"\n## Weight (k {DEFAULT_K}, {DEFAULT_CANDIDATES} a side): nDCG@10 / MRR@10\n")
    print("| weight | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    for weight in WEIGHTS:
        row = [cell(run, weight, DEFAULT_K, DEFAULT_CANDIDATES) for run in sets]
        print(f"| {weight:.1f} | " + " | ".join(row) + " |")
    for weight in (0.4, 0.5, DEFAULT_WEIGHT, 0.7):
        print(f"\n## RRF k × candidates a side at weight {weight}: nDCG@10 / MRR@10\n")
        print("| k | candidates | " + " | ".join(sets) + " |")
        print("|---|---|" + "---|" * len(sets))
        for k in RRF_KS:
            for n in CANDIDATES:
                row = [cell(run, weight, k, n) for run in sets]
                print(f"| {k} | {n} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
