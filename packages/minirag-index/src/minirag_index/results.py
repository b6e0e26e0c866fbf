"""What :class:`~minirag_index.index.MiniragIndex`'s reads return: search hits, look-alikes,
the chunks around a hit."""

from __future__ import annotations

from dataclasses import dataclass

from minirag_index.versions import READ, Version


@dataclass(frozen=True)
class Hit:
    text: str
    source: str
    title: str
    chunk_index: int
    score: float
    distance: float | None
    parent_id: str
    pages: str | None = None


@dataclass(frozen=True)
class SourceHits:
    source: str
    title: str
    hits: int


@dataclass
class SearchResult:
    hits: list[Hit]
    sources: list[SourceHits]
    parents: dict[str, str]
    keyword_error: str | None = None
    notice: str | None = None
    #: The table version the search read, for follow-up reads of the same state
    #: (:meth:`MiniragIndex.look_alikes_of`).
    version: Version = READ


@dataclass(frozen=True)
class LookAlike:
    source: str
    overlap: float
    date: str | None = None


@dataclass(frozen=True)
class NeighborChunk:
    chunk_index: int
    text: str
    parent_id: str
    pages: str | None = None
    is_target: bool = False
