"""The keyword (BM25) side of the chunks table: term columns, their indexes, and the upgrade.

Every row carries ``text_terms`` and ``title_terms``: its text and its document's title as
:mod:`minirag_index.text.keyword_terms` analyses them (English and Russian stems, whole
identifiers), written by the store with the row. LanceDB indexes the two columns with its
whitespace tokenizer and no analysis of its own, and a query is analysed by the same rule before
it is looked up. One column per text serves both languages, where LanceDB's own analysers take
one language per index (docs/benchmarks.md compares the two ways).

An index's name carries the analysis version, so a table opened by a newer rule is re-analysed;
a table from before the term columns (its keyword indexes on ``text`` and ``title``) gains them
and loses the old indexes. The upgrade is best-effort: when it cannot be written (a read-only
folder, a racing writer) the table stays as it was, a warning says why, and the search uses the
old indexes, if any, with the query as typed.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from minirag_index.storage.commits import best_effort
from minirag_index.text.keyword_terms import (
    ANALYSIS_VERSION,
    MAX_TERM_CHARS,
    index_terms,
    query_terms,
)

log = logging.getLogger(__name__)

#: Term column -> the column it is computed from.
TERM_COLUMNS = {"text_terms": "text", "title_terms": "title"}
#: Columns indexed by versions before the term columns, with LanceDB's own analyser.
LEGACY_COLUMNS = ("text", "title")
UPGRADE_BATCH = 5_000
_UNCHANGED = "target.text = source.text"


def index_name(column: str) -> str:
    return f"{column}_fts_v{ANALYSIS_VERSION}"


def term_values(text: str, title: str) -> dict[str, str]:
    """The term columns of one row."""
    return {"text_terms": index_terms(text), "title_terms": index_terms(title)}


def fts_config() -> Any:
    """LanceDB's settings for a term column: split at spaces, nothing else."""
    from lancedb.index import FTS

    return FTS(
        base_tokenizer="whitespace",
        lower_case=False,
        stem=False,
        remove_stop_words=False,
        ascii_folding=False,
        max_token_length=MAX_TERM_CHARS,
    )


def searchable(table: Any) -> tuple[list[str], Callable[[str], str]]:
    """The indexed columns a keyword query should search, and how to turn a query into text
    for them: the term columns with the analysed query, else an older table's text and title
    indexes with the query as typed."""
    by_column = {
        tuple(ix.columns): ix.name for ix in table.list_indices() if ix.index_type == "FTS"
    }
    terms = [c for c in TERM_COLUMNS if by_column.get((c,)) == index_name(c)]
    if terms:
        return terms, query_terms
    return [c for c in LEGACY_COLUMNS if (c,) in by_column], str


def ensure_current(table: Any, retry: Callable[[Callable[[], Any]], Any]) -> list[str]:
    """Bring the term columns and their indexes up to date; returns warnings (empty when all
    went well). ``retry`` runs a commit with the store's conflict retries."""
    import pyarrow as pa

    try:
        listed = list(table.list_indices())
    except Exception as exc:
        return [f"could not list the index's keyword indexes: {exc}"]
    indices = {ix.name: tuple(ix.columns) for ix in listed if ix.index_type == "FTS"}
    current = {index_name(c) for c in TERM_COLUMNS}
    old_indexes = [
        name
        for name, columns in indices.items()
        if name not in current
        and (columns in {(c,) for c in LEGACY_COLUMNS} or columns in {(c,) for c in TERM_COLUMNS})
    ]
    if current <= indices.keys() and not old_indexes:
        return []
    names = set(table.schema.names)
    missing = [c for c in TERM_COLUMNS if c not in names]
    # Terms written by another analysis version: every row is analysed again.
    stale = any(indices[n] in {(c,) for c in TERM_COLUMNS} for n in old_indexes)

    def fill() -> None:
        if missing:
            retry(lambda: table.add_columns([pa.field(c, pa.string()) for c in missing]))
        _fill_terms(table, retry, "" if stale else " IS NULL")

    written = best_effort(fill, "the keyword terms could not be written")
    if written:
        return written
    problems: list[str] = []
    for name in old_indexes:
        try:
            retry(functools.partial(table.drop_index, name))
        except Exception as exc:
            problems.append(f"the old keyword index {name!r} could not be dropped: {exc}")
    for column in TERM_COLUMNS:
        if index_name(column) in indices:
            continue
        try:
            table.create_index(column, config=fts_config(), name=index_name(column), replace=True)
        except Exception as exc:
            problems.append(f"keyword index on {column!r} could not be built: {exc}")
    for message in problems:
        log.warning(message)
    return problems


def _fill_terms(table: Any, retry: Callable[[Callable[[], Any]], Any], condition: str) -> None:
    """Compute the term columns of the rows where ``text_terms`` matches ``condition`` ("" for
    every row), in batches, each its own commit (an interrupted upgrade resumes)."""
    import pyarrow as pa

    where = f"text_terms{condition}" if condition else None
    todo = table.count_rows(where)
    if not todo:
        return
    log.info("analysing the keyword terms of %d chunks", todo)
    query = table.search().select(["id", "text", "title"])
    if where:
        query = query.where(where)
    data = query.limit(None).to_arrow()
    for start in range(0, data.num_rows, UPGRADE_BATCH):
        part = data.slice(start, UPGRADE_BATCH).to_pylist()
        values = [term_values(r["text"] or "", r["title"] or "") for r in part]
        batch = pa.table(
            {
                **{c: pa.array([r[c] for r in part], pa.string()) for c in ("id", "text")},
                **{c: pa.array([v[c] for v in values], pa.string()) for c in TERM_COLUMNS},
            }
        )

        # A row another writer replaced since it was read keeps the terms written with it.
        def commit(batch: Any = batch) -> Any:
            update = table.merge_insert("id").when_matched_update_all(where=_UNCHANGED)
            return update.execute(batch)

        retry(commit)
        log.info("keyword terms: %d of %d chunks", min(start + UPGRADE_BATCH, todo), todo)
