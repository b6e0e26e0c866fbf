"""The rules of a hybrid search, apart from its reads: how many candidates each side fetches,
which rows a scope and a document filter select, how the vector and keyword rankings fuse into
hits, and the distance, grouping and file cuts applied after.

:meth:`minirag_index.index.MiniragIndex.search` reads the candidates and calls these.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from minirag_index.results import Hit, SourceHits
from minirag_index.search.filters import sources_filter_sql
from minirag_index.search.fusion import first_sources, group_cut, rrf_fuse, within_distance
from minirag_index.search.scope import scope_filter_sql

if TYPE_CHECKING:
    from minirag_index.settings import IndexSettings
    from minirag_index.storage.schema import StoredChunk

MAX_TOP_K = 100
DEFAULT_TOP_K = 10
#: What each side of a search reads of its candidates. Their text, title and pages come from
#: the sections read for the final hits: at a million chunks, reading the text of 2 x 40
#: candidates cost about 10 ms a side (docs/benchmarks.md, "Search").
CANDIDATE_COLUMNS = ["source", "chunk_index", "parent_id"]


def candidate_count(top_k: int) -> int:
    """How many candidates each side fetches: a multiple of topK, bounded."""
    return min(max(4 * top_k, 20), 400)


def clamp_top_k(top_k: int) -> int:
    """topK below 1 is refused; above the cap it is clamped rather than rejected."""
    if top_k < 1:
        raise ValueError(f"topK must be at least 1 (got {top_k}); at most {MAX_TOP_K} is used.")
    return min(top_k, MAX_TOP_K)


def search_filter(
    scope: str | None, sources: Collection[str] | None
) -> tuple[str | None, str | None, str | None]:
    """The SQL filter of a search under ``scope`` limited to ``sources`` (when given), the
    scope that still filters (None for the root, which covers everything), and the notice
    answering instead when nothing can match (an empty ``sources``)."""
    where = scope_filter_sql(scope)
    scope = scope if where else None
    if sources is not None:
        if not sources:
            notice = "No indexed document matches the filter" + (
                f" under the scope {scope!r}." if scope else "."
            )
            return where, scope, notice
        only = sources_filter_sql(sources)
        where = f"({where}) AND {only}" if where else only
    return where, scope, None


def fuse(
    vector_rows: list[dict[str, Any]], keyword_rows: list[dict[str, Any]], weight: float
) -> list[Hit]:
    """The two candidate lists as one ranking of hits (:func:`rrf_fuse`), each hit with its
    vector distance when the vector side found it."""

    def key(row: dict[str, Any]) -> tuple[str, int]:
        return (row["source"], row["chunk_index"])

    rows = {key(r): r for r in keyword_rows}
    rows.update({key(r): r for r in vector_rows})
    distance = {key(r): r["_distance"] for r in vector_rows}
    fused = rrf_fuse([key(r) for r in vector_rows], [key(r) for r in keyword_rows], weight)
    return [
        Hit(
            text=rows[f.key].get("text", ""),
            source=rows[f.key]["source"],
            title=rows[f.key].get("title", ""),
            chunk_index=rows[f.key]["chunk_index"],
            score=f.score,
            distance=distance.get(f.key),
            parent_id=rows[f.key]["parent_id"],
            pages=rows[f.key].get("pages"),
        )
        for f in fused
    ]


def with_text(hits: list[Hit], sections: Mapping[str, Sequence[StoredChunk]]) -> list[Hit]:
    """``hits`` with the text, title and pages of their chunks, found among the chunks of
    their sections; a hit whose chunk is no longer there (the table changed between the two
    reads) is left out."""
    chunks = {(c.source, c.chunk_index): c for section in sections.values() for c in section}
    found = []
    for hit in hits:
        chunk = chunks.get((hit.source, hit.chunk_index))
        if chunk is not None:
            found.append(replace(hit, text=chunk.text, title=chunk.title, pages=chunk.pages))
    return found


def apply_tuning(hits: list[Hit], settings: IndexSettings) -> list[Hit]:
    """The cuts the settings ask for: RAG_MAX_DISTANCE, RAG_GROUPING, RAG_MAX_FILES."""
    s = settings
    if s.RAG_MAX_DISTANCE is not None:
        keep = within_distance([h.distance for h in hits], s.RAG_MAX_DISTANCE)
        hits = [h for h, k in zip(hits, keep, strict=True) if k]
    if s.RAG_GROUPING is not None:
        keep = group_cut([h.distance for h in hits], s.RAG_GROUPING)
        hits = [h for h, k in zip(hits, keep, strict=True) if k]
    if s.RAG_MAX_FILES is not None:
        keep = first_sources([h.source for h in hits], s.RAG_MAX_FILES)
        hits = [h for h, k in zip(hits, keep, strict=True) if k]
    return hits


def sources_in_rank_order(hits: list[Hit]) -> list[SourceHits]:
    """Each source the hits come from, in the order of its best hit, with its hit count."""
    order: dict[str, SourceHits] = {}
    for hit in hits:
        current = order.get(hit.source)
        order[hit.source] = SourceHits(hit.source, hit.title, (current.hits if current else 0) + 1)
    return list(order.values())
