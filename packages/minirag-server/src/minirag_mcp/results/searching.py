"""What query_documents and find_mentions return."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from minirag_mcp.results.base import LabelledRow, Result, omitted
from minirag_mcp.results.labels import FilterCounts, LabelOut

if TYPE_CHECKING:
    from minirag_index import Hit
    from minirag_index.search.mentions import FirstMatch


class LookAlikeOut(Result):
    source: str
    display_path: str
    overlap: float
    date: str | None = omitted()


class HitOut(Result):
    text: str
    source: str
    title: str
    chunk_index: int
    score: float
    distance: float | None
    parent_id: str
    pages: str | None = omitted()

    @classmethod
    def of(cls, hit: Hit) -> HitOut:
        return cls(
            text=hit.text,
            source=hit.source,
            title=hit.title,
            chunk_index=hit.chunk_index,
            score=hit.score,
            distance=hit.distance,
            parent_id=hit.parent_id,
            pages=hit.pages or None,
        )


class SourceOut(LabelledRow):
    source: str
    title: str
    hits: int
    display_path: str
    labels: dict[str, LabelOut] | None = None
    date: str | None = None
    date_source: str | None = None
    look_alikes: list[LookAlikeOut] | None = omitted()


class QueryResult(Result):
    """query_documents."""

    hits: list[HitOut]
    sources: list[SourceOut]
    parents: dict[str, str]
    filter_counts: FilterCounts | None = omitted()
    filter_notice: str | None = omitted()
    notice: str | None = omitted()
    warning: str | None = omitted()


class FirstMatchOut(Result):
    chunk_index: int
    snippet: str
    pages: str | None = omitted()

    @classmethod
    def of(cls, first: FirstMatch) -> FirstMatchOut:
        return cls(chunk_index=first.chunk_index, snippet=first.snippet, pages=first.pages or None)


class FormOut(Result):
    form: str
    documents: int


class MentionDocumentOut(LabelledRow):
    source: str
    display_path: str
    title: str
    matching_chunks: int
    title_match: bool
    first_match: FirstMatchOut | None = omitted()
    labels: dict[str, LabelOut] | None = None
    date: str | None = None
    date_source: str | None = None
    look_alikes: list[LookAlikeOut] | None = omitted()


class MentionsResult(Result):
    """find_mentions."""

    terms: list[str]
    match: Literal["all", "any"]
    searched_documents: int
    matched_documents: int
    matched_chunks: int
    forms: list[FormOut]
    documents: list[MentionDocumentOut]
    offset: int
    next_offset: int | None = omitted()
    notice: str | None = omitted()
    filter_counts: FilterCounts | None = omitted()
    filter_notice: str | None = omitted()
