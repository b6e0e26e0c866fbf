"""The folded, searchable form of stored chunks that find_mentions searches.

Every chunk is folded once, when the corpus is built, and the folded chunks are joined into one
string (:data:`~minirag_index.search.mention_terms.SEP` between them), in (document, chunk
index) order, beside arrays saying which document, chunk and section each segment is.

A heading that every chunk of a section repeats counts once: each chunk's stored text begins
with ``context_chars`` characters of repeated context (heading breadcrumb, table header). The
context is searched only in the first chunk (lowest chunk index) of a document that carries
that same context in the same section; the other chunks are searched from their own body on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minirag_index.search.mention_terms import SEP, segment_starts
from minirag_index.text.folding import fold

__all__ = ["MentionCorpus", "Row", "build_corpus"]


@dataclass(eq=False)
class MentionCorpus:
    """Folded, searchable form of every stored chunk. Build with :func:`build_corpus`."""

    sources: list[str]
    """One entry per document."""
    titles: list[str]
    """Original title per document."""
    source_rank: np.ndarray
    """Position of each document's source in sorted order (ties in ranking break by source)."""
    title_text: str
    """Folded titles joined by NUL."""
    title_starts: np.ndarray
    """Offset of each document's folded title in ``title_text``."""
    text: str
    """Folded chunk segments joined by NUL, in (document, chunk index) order."""
    chunk_starts: np.ndarray
    """Offset of each chunk's segment in ``text``."""
    chunk_doc: np.ndarray
    """Document of each chunk (index into ``sources``)."""
    chunk_index: np.ndarray
    """Chunk ordinal within its document."""
    chunk_search_from: np.ndarray
    """Original-text offset where the searched part of each chunk begins (0, or the length of
    a context already counted in an earlier chunk)."""
    chunk_context_len: np.ndarray
    """Length of the folded context at the start of each chunk's searched segment (0 when the
    segment starts at the body)."""
    chunk_section: np.ndarray
    """Section of each chunk, numbered across the corpus (chunks of one document and one
    section share the number)."""
    chunk_texts: list[str]
    """Original stored text of each chunk, for snippets (empty when ``load_texts`` reads
    them)."""
    load_texts: Callable[[list[int]], list[str]] | None = None
    """Reads the original text of the given chunks, when ``chunk_texts`` does not hold it."""

    @property
    def document_count(self) -> int:
        return len(self.sources)

    @property
    def chunk_count(self) -> int:
        return len(self.chunk_index)

    def texts_of(self, chunks: list[int]) -> dict[int, str]:
        """Original text of each of ``chunks``."""
        if self.load_texts is None:
            return {c: self.chunk_texts[c] for c in chunks}
        return dict(zip(chunks, self.load_texts(chunks), strict=True)) if chunks else {}

    def chunk_folded(self, chunk: int) -> str:
        """The folded text searched for one chunk."""
        start = int(self.chunk_starts[chunk])
        end = int(self.chunk_starts[chunk + 1]) - 1 if chunk + 1 < self.chunk_count else None
        return self.text[start:end]


Row = tuple[str, str | None, int, str | None, int | None, Any]


def build_corpus(rows: Iterable[Row]) -> MentionCorpus:
    """Build the searchable corpus from stored chunks.

    Each row is ``(source, title, chunk_index, text, context_chars, section)``: ``text`` is the
    stored chunk text whose first ``context_chars`` characters are repeated context (0 or None
    for none) and ``section`` is any hashable key naming the chunk's section (None when
    unknown). Rows may come in any order; a document's title is taken from its first row with
    a non-empty one. A document with no text still counts as searched (its title is searched).
    """
    doc_of: dict[str, int] = {}
    sources: list[str] = []
    titles: list[str] = []
    r_doc: list[int] = []
    r_index: list[int] = []
    r_text: list[str] = []
    r_ctx: list[int] = []
    r_section: list[Any] = []
    for source, title, chunk_index, text, context_chars, section in rows:
        d = doc_of.get(source)
        if d is None:
            d = doc_of[source] = len(sources)
            sources.append(source)
            titles.append(title or "")
        elif title and not titles[d]:
            titles[d] = title
        r_doc.append(d)
        r_index.append(int(chunk_index))
        r_text.append(text or "")
        r_ctx.append(int(context_chars or 0))
        r_section.append(section)
    return _assemble(sources, titles, r_doc, r_index, r_text, r_ctx, r_section)


def _assemble(
    sources: list[str],
    titles: list[str],
    r_doc: list[int],
    r_index: list[int],
    r_text: list[str],
    r_ctx: list[int],
    r_section: list[Any],
) -> MentionCorpus:
    doc_arr = np.asarray(r_doc, dtype=np.int64)
    index_arr = np.asarray(r_index, dtype=np.int64)
    order = np.lexsort((index_arr, doc_arr)) if len(r_doc) else np.zeros(0, dtype=np.int64)

    segments: list[str] = []
    chunk_texts: list[str] = []
    search_from = np.zeros(len(order), dtype=np.int64)
    context_len = np.zeros(len(order), dtype=np.int64)
    section_of = np.zeros(len(order), dtype=np.int64)
    section_ids: dict[tuple[int, Any], int] = {}
    seen_context: set[tuple[int, Any, str]] = set()
    for pos, row in enumerate(order.tolist()):
        text = r_text[row]
        chunk_texts.append(text)
        section_of[pos] = section_ids.setdefault((r_doc[row], r_section[row]), len(section_ids))
        ctx = min(max(r_ctx[row], 0), len(text))
        if ctx:
            context = fold(text[:ctx])
            body = fold(text[ctx:])
            key = (r_doc[row], r_section[row], context)
            if key in seen_context:
                segments.append(body)
                search_from[pos] = ctx
            else:
                seen_context.add(key)
                segments.append(context + body)
                context_len[pos] = len(context)
        else:
            segments.append(fold(text))

    chunk_starts = segment_starts(segments)
    folded_titles = [fold(t) for t in titles]
    source_rank = np.empty(len(sources), dtype=np.int64)
    source_rank[np.argsort(np.asarray(sources, dtype=object), kind="stable")] = np.arange(
        len(sources)
    )
    return MentionCorpus(
        sources=sources,
        titles=titles,
        source_rank=source_rank,
        title_text=SEP.join(folded_titles),
        title_starts=segment_starts(folded_titles),
        text=SEP.join(segments),
        chunk_starts=chunk_starts,
        chunk_doc=doc_arr[order].astype(np.int32) if len(order) else np.zeros(0, np.int32),
        chunk_index=index_arr[order] if len(order) else np.zeros(0, np.int64),
        chunk_search_from=search_from,
        chunk_context_len=context_len,
        chunk_section=section_of,
        chunk_texts=chunk_texts,
    )
