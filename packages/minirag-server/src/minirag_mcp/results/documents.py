"""What the tools that read, list and delete documents return: read_chunk_neighbors, read_file,
list_files and delete_file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from minirag_mcp.results.base import LabelledRow, Result, omitted
from minirag_mcp.results.labels import FilterCounts, LabelOut

if TYPE_CHECKING:
    from minirag_index import NeighborChunk


class NeighborOut(Result):
    chunk_index: int
    text: str
    parent_id: str
    pages: str | None = omitted()
    is_target: Literal[True] | None = omitted()

    @classmethod
    def of(cls, chunk: NeighborChunk) -> NeighborOut:
        return cls(
            chunk_index=chunk.chunk_index,
            text=chunk.text,
            parent_id=chunk.parent_id,
            pages=chunk.pages or None,
            is_target=True if chunk.is_target else None,
        )


class NeighborsResult(Result):
    """read_chunk_neighbors."""

    source: str
    display_path: str
    chunks: list[NeighborOut]


class DocumentText(Result):
    """read_file: one page of the document (``nextOffset`` while more remains)."""

    source: str
    title: str
    text: str
    offset: int = 0
    next_offset: int | None = omitted()
    total_chars: int


class Deleted(Result):
    """delete_file."""

    source: str
    deleted: int


FileState = Literal[
    "indexed", "not_indexed", "stale", "stale_pages", "unreadable", "missing", "unlisted"
]


class FileRow(LabelledRow):
    """A file under the roots (``path``), or an indexed data or URL item (``source``)."""

    path: str | None = omitted()
    source: str | None = omitted()
    display_path: str
    state: FileState
    chunks: int
    title: str | None = omitted()
    ocr_engine: str | None = omitted()
    source_type: str | None = omitted()
    labels: dict[str, LabelOut] | None = None
    date: str | None = None
    date_source: str | None = None


class UnlistedOut(Result):
    path: str
    reason: str


class ListResult(Result):
    """list_files."""

    files: list[FileRow]
    filter_counts: FilterCounts | None = omitted()
    filter_notice: str | None = omitted()
    ignored: int | None = omitted()
    unlisted_folders: list[UnlistedOut] | None = omitted()
