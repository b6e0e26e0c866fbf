"""find_mentions over a stored index: the scan its table allows, and each first match's pages.

A table with the mention columns (:mod:`minirag_index.storage.mention_columns`) is searched
through its prefix index (:mod:`minirag_index.search.mention_scan`). An index from before them
(a read-only server's, until the writer's next sync adds them) is folded whole into a
:class:`~minirag_index.search.mentions.MentionCorpus` once per table version and searched in
memory. Either way each document's first match gets the PDF pages of its chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from minirag_index.heap import release_freed_memory
from minirag_index.search import mention_scan
from minirag_index.search.mentions import MentionCorpus, MentionResult, build_corpus, find_mentions
from minirag_index.search.scope import sql_string
from minirag_index.storage import mention_columns

if TYPE_CHECKING:
    from minirag_index.storage.store import Store
    from minirag_index.versions import PerVersion

CORPUS_COLUMNS = ["source", "title", "chunk_index", "text", "context_chars", "section"]
VIEW_BATCH_ROWS = 65_536  # rows of the mention view's columns read at a time


def find_in_store(
    store: Store,
    views: PerVersion,
    terms: Sequence[str],
    *,
    match: Literal["all", "any"],
    doc_filter: Callable[[str], bool],
    offset: int,
    limit: int,
) -> MentionResult:
    """Every document ``doc_filter`` keeps that mentions the terms, one page of them (see
    :func:`~minirag_index.search.mentions.find_mentions`); ``views`` keeps what is built per
    table version."""
    table = store.table()
    if table is None or not mention_columns.has_columns(table.schema.names):
        corpus = views.get("mentions", lambda: corpus_of(store))
        result = find_mentions(
            corpus, terms, match=match, doc_filter=doc_filter, offset=offset, limit=limit
        )
        add_pages(store, result, {})
        return result

    def build() -> mention_scan.MentionView:
        batches = store.filtered_batches(mention_scan.VIEW_COLUMNS, None, VIEW_BATCH_ROWS)
        return mention_scan.build_view(batches)

    view = views.get("mention_view", build)
    pages: dict[tuple[str, int], str | None] = {}

    def load(pairs: list[tuple[str, int]]) -> list[str]:
        stored = {(c.source, c.chunk_index): c for c in store.chunks(_chunks_where(pairs))}
        pages.update((key, c.pages) for key, c in stored.items())
        return [stored[p].text if p in stored else "" for p in pairs]

    result = mention_scan.search(
        view,
        store.filtered_batches,
        load,
        terms,
        match=match,
        doc_filter=doc_filter,
        offset=offset,
        limit=limit,
    )
    add_pages(store, result, pages)
    release_freed_memory()  # the batches of folded text read are let go
    return result


def corpus_of(store: Store) -> MentionCorpus:
    """Folded text of every chunk and title: what find_mentions searches in an index from
    before the mention columns."""
    data = store.column_table(CORPUS_COLUMNS)
    if data is None:
        return build_corpus([])
    return build_corpus(zip(*(data.column(c).to_pylist() for c in CORPUS_COLUMNS), strict=True))


def add_pages(
    store: Store, result: MentionResult, known: dict[tuple[str, int], str | None]
) -> None:
    """The PDF pages of each document's first match (``known``: those already read)."""
    firsts = [(d.source, d.first_match) for d in result.documents if d.first_match]
    todo = [(s, m.chunk_index) for s, m in firsts if (s, m.chunk_index) not in known]
    if todo:
        read = {(c.source, c.chunk_index): c.pages for c in store.chunks(_chunks_where(todo))}
        known = {**known, **read}
    for source, first in firsts:
        first.pages = known.get((source, first.chunk_index))


def _chunks_where(pairs: list[tuple[str, int]]) -> str:
    """The filter selecting the chunks named by (source, chunk index)."""
    return " OR ".join(f"(source = {sql_string(s)} AND chunk_index = {i})" for s, i in pairs)
