"""find_mentions: every indexed document that contains a word or phrase, counted.

The engine is pure: it knows nothing about LanceDB. :func:`build_corpus` folds given chunks
into a :class:`MentionCorpus` (:mod:`minirag_index.search.mention_corpus`) and
:func:`find_mentions` searches it (what an index from before the mention columns does, once per
table version, and what tests use). An index with them (:mod:`minirag_index.search.mention_scan`)
builds a corpus of only the chunks that hold a match and hands :func:`find_mentions` their hits
(``chunk_hits``); counting, ranking and paging are the same code either way. The matching rule
is :mod:`minirag_index.search.mention_terms`'s.

A match that lies wholly in a chunk's repeated context (a heading breadcrumb, a table header:
see :mod:`minirag_index.search.mention_corpus`) counts for its section only when no chunk of
that section mentions the term in its own text, and then as one chunk: the heading a breadcrumb
repeats is already in the body of the chunk that opens its section, so breadcrumbs never add to
``matchedChunks`` or to a document's rank.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from minirag_index.search.mention_corpus import MentionCorpus, build_corpus
from minirag_index.search.mention_snippets import snippet
from minirag_index.search.mention_terms import ChunkHits, Term, parse_terms, scan, scan_segments

__all__ = [
    "MAX_PAGE",
    "FirstMatch",
    "MentionCorpus",
    "MentionDocument",
    "MentionForm",
    "MentionResult",
    "Term",
    "build_corpus",
    "find_mentions",
    "parse_terms",
    "scan_segments",
]

#: Most documents one page of find_mentions returns.
MAX_PAGE = 200

# --------------------------------------------------------------------------- results


@dataclass
class FirstMatch:
    chunk_index: int
    snippet: str
    pages: str | None = None
    """The PDF page(s) of that chunk, when known (filled in by the index)."""


@dataclass
class MentionDocument:
    source: str
    title: str
    matching_chunks: int
    """Chunks of this document that mention a term (repeated context counted once)."""
    title_match: bool
    first_match: FirstMatch | None
    """The first chunk (lowest chunk index) that mentions a term; None for a title-only match."""


@dataclass
class MentionForm:
    form: str
    """A word form a term matched (folded: lower case, ё as е)."""
    documents: int
    """Matched documents that contain this form."""


@dataclass
class MentionResult:
    terms: list[Term]
    match: Literal["all", "any"]
    searched_documents: int
    matched_documents: int
    matched_chunks: int
    forms: list[MentionForm]
    documents: list[MentionDocument]
    offset: int
    limit: int
    next_offset: int | None = None
    notice: str | None = None


# --------------------------------------------------------------------------- search


@dataclass
class _TermHits:
    chunks: np.ndarray  # chunk id per hit
    in_context: np.ndarray  # per hit: it lies wholly in the chunk's repeated context
    docs: np.ndarray  # document per hit
    forms: list[str]
    title_docs: np.ndarray
    title_forms: list[str]


def _search_term(corpus: MentionCorpus, term: Term, found: ChunkHits | None = None) -> _TermHits:
    if found is None:
        found = scan(term.pattern, corpus.text, corpus.chunk_starts, term)
    chunks, ends, forms = found
    title_docs, _, title_forms = scan(term.pattern, corpus.title_text, corpus.title_starts, term)
    return _TermHits(
        chunks=chunks,
        in_context=ends <= corpus.chunk_context_len[chunks],
        docs=corpus.chunk_doc[chunks].astype(np.int64),
        forms=forms,
        title_docs=title_docs,
        title_forms=title_forms,
    )


def find_mentions(
    corpus: MentionCorpus,
    terms: Sequence[str] | Sequence[Term],
    *,
    match: Literal["all", "any"] = "all",
    doc_filter: Callable[[str], bool] | None = None,
    offset: int = 0,
    limit: int = MAX_PAGE,
    chunk_hits: Sequence[ChunkHits] | None = None,
) -> MentionResult:
    """Every document in scope that mentions the terms, counted and paged.

    ``match="all"`` keeps documents containing every term somewhere (title or text),
    ``"any"`` those with at least one. ``doc_filter(source)`` decides which documents are in
    scope (searched); None searches all. Documents come title matches first, then by number
    of matching chunks (descending), then by source. ``limit`` is capped at :data:`MAX_PAGE`;
    ``next_offset`` is set while more documents remain. The counts and ``forms`` always cover
    every matched document, whatever the page. ``chunk_hits`` (one per term, from
    :func:`scan_segments` over the corpus's chunks) stands in for scanning ``corpus.text``.
    """
    terms_ = _checked_terms(terms, match)
    offset = max(int(offset), 0)
    limit = min(max(int(limit), 1), MAX_PAGE)

    ndocs = corpus.document_count
    scope = _in_scope(corpus, doc_filter)
    searched = int(scope.sum())
    found = list(chunk_hits) if chunk_hits is not None else [None] * len(terms_)
    hits = [_search_term(corpus, t, f) for t, f in zip(terms_, found, strict=True)]
    matched = _matched(hits, ndocs, match) & scope
    hit_chunks, title_hit = _hit_chunks(corpus, hits, matched)
    per_doc = np.bincount(corpus.chunk_doc[hit_chunks], minlength=ndocs)
    matched_docs = np.nonzero(matched)[0]
    ranked = _ranked(corpus, matched_docs, per_doc, title_hit)
    page = ranked[offset : offset + limit]
    patterns = [t.pattern for t in terms_]

    total = len(ranked)
    notice = None
    if total == 0:
        notice = _nothing_notice(terms_, match, searched, ndocs)
    elif offset >= total:
        notice = f"offset {offset} is past the last of the {total} matched documents."
    return MentionResult(
        terms=terms_,
        match=match,
        searched_documents=searched,
        matched_documents=total,
        matched_chunks=int(per_doc[matched_docs].sum()),
        forms=_count_forms(hits, matched),
        documents=_documents(corpus, page, hit_chunks, per_doc, title_hit, patterns),
        offset=offset,
        limit=limit,
        next_offset=offset + limit if offset + limit < total else None,
        notice=notice,
    )


def _checked_terms(terms: Sequence[str] | Sequence[Term], match: str) -> list[Term]:
    """The terms parsed (a bare string is one term); ValueError for a bad ``match`` or none."""
    if match not in ("all", "any"):
        raise ValueError(f"match must be 'all' or 'any', not {match!r}")
    if isinstance(terms, str):
        terms = [terms]
    parsed = [t if isinstance(t, Term) else parse_terms([t])[0] for t in terms]
    if not parsed:
        raise ValueError("at least one term is required")
    return parsed


def _documents(
    corpus: MentionCorpus,
    page: np.ndarray,
    hit_chunks: np.ndarray,
    per_doc: np.ndarray,
    title_hit: np.ndarray,
    patterns: list[re.Pattern[str]],
) -> list[MentionDocument]:
    """The page's documents, each with its first match's snippet."""
    first_chunk = _first_chunks(corpus, hit_chunks, page)
    texts = corpus.texts_of(sorted(first_chunk.values()))
    return [
        MentionDocument(
            source=corpus.sources[d],
            title=corpus.titles[d],
            matching_chunks=int(per_doc[d]),
            title_match=bool(title_hit[d]),
            first_match=_first_match(corpus, first_chunk.get(d), texts, patterns),
        )
        for d in page.tolist()
    ]


def _ranked(
    corpus: MentionCorpus, docs: np.ndarray, per_doc: np.ndarray, title_hit: np.ndarray
) -> np.ndarray:
    """``docs`` ranked: title matches first, then more matching chunks, then source."""
    order = np.lexsort((corpus.source_rank[docs], -per_doc[docs], ~title_hit[docs]))
    return docs[order]


def _in_scope(corpus: MentionCorpus, doc_filter: Callable[[str], bool] | None) -> np.ndarray:
    """Per document: whether it is searched."""
    ndocs = corpus.document_count
    if doc_filter is None:
        return np.ones(ndocs, dtype=bool)
    return np.fromiter((bool(doc_filter(s)) for s in corpus.sources), dtype=bool, count=ndocs)


def _matched(hits: Sequence[_TermHits], ndocs: int, match: str) -> np.ndarray:
    """Per document: whether it holds every term (``all``) or one (``any``), title or text."""
    combined = np.ones(ndocs, dtype=bool) if match == "all" else np.zeros(ndocs, dtype=bool)
    for h in hits:
        has = np.zeros(ndocs, dtype=bool)
        has[h.docs] = True
        has[h.title_docs] = True
        combined = combined & has if match == "all" else combined | has
    return combined


def _hit_chunks(
    corpus: MentionCorpus, hits: Sequence[_TermHits], matched: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The counted matching chunks of the matched documents, and per document whether its
    title matches."""
    body_hit = np.zeros(corpus.chunk_count, dtype=bool)
    context_hit = np.zeros(corpus.chunk_count, dtype=bool)
    title_hit = np.zeros(corpus.document_count, dtype=bool)
    for h in hits:
        keep = matched[h.docs]
        body_hit[h.chunks[keep & ~h.in_context]] = True
        context_hit[h.chunks[keep & h.in_context]] = True
        title_hit[h.title_docs[matched[h.title_docs]]] = True
    return _counted_chunks(corpus, body_hit, context_hit), title_hit


def _first_match(
    corpus: MentionCorpus,
    chunk: int | None,
    texts: dict[int, str],
    patterns: list[re.Pattern[str]],
) -> FirstMatch | None:
    if chunk is None:
        return None
    return FirstMatch(
        chunk_index=int(corpus.chunk_index[chunk]),
        snippet=snippet(texts[chunk], int(corpus.chunk_search_from[chunk]), patterns),
    )


def _counted_chunks(
    corpus: MentionCorpus, body_hit: np.ndarray, context_hit: np.ndarray
) -> np.ndarray:
    """The chunks that count as mentioning the terms, in corpus order.

    Every chunk whose own text matches counts. A match only in repeated context (a
    breadcrumb, a table header) counts once for its section, at the section's first such
    chunk, and only when no chunk of that section matched in its own text.
    """
    if not corpus.chunk_count:
        return np.zeros(0, dtype=np.int64)
    sections_with_body = np.zeros(int(corpus.chunk_section.max()) + 1, dtype=bool)
    sections_with_body[corpus.chunk_section[body_hit]] = True
    context_only = np.nonzero(context_hit & ~body_hit)[0]
    context_only = context_only[~sections_with_body[corpus.chunk_section[context_only]]]
    # Chunks are stored in (document, chunk index) order: the first per section comes first.
    _, first = np.unique(corpus.chunk_section[context_only], return_index=True)
    counted = body_hit.copy()
    counted[context_only[first]] = True
    return np.nonzero(counted)[0]


def _count_forms(hits: list[_TermHits], matched: np.ndarray) -> list[MentionForm]:
    pairs: set[tuple[str, int]] = set()
    for h in hits:
        for docs, forms in ((h.docs, h.forms), (h.title_docs, h.title_forms)):
            if not forms:
                continue
            keep = matched[docs]
            if keep.all():
                pairs.update(zip(forms, docs.tolist(), strict=True))
            elif keep.any():
                idx = np.nonzero(keep)[0].tolist()
                pairs.update((forms[i], int(docs[i])) for i in idx)
    counts = Counter(form for form, _ in pairs)
    out = [MentionForm(form, n) for form, n in counts.items()]
    out.sort(key=lambda f: (-f.documents, f.form))
    return out


def _first_chunks(
    corpus: MentionCorpus, hit_chunks: np.ndarray, docs: np.ndarray
) -> dict[int, int]:
    """For each of ``docs``, its matching chunk with the lowest chunk index."""
    if not len(docs) or not len(hit_chunks):
        return {}
    wanted = np.zeros(corpus.document_count, dtype=bool)
    wanted[docs] = True
    cand = hit_chunks[wanted[corpus.chunk_doc[hit_chunks]]]
    # Chunks are stored in (document, chunk index) order, so the first per document wins.
    cand_docs = corpus.chunk_doc[cand]
    _, first = np.unique(cand_docs, return_index=True)
    return {int(corpus.chunk_doc[c]): int(c) for c in cand[first].tolist()}


def _nothing_notice(terms: list[Term], match: str, searched: int, total_docs: int) -> str:
    if searched == 0:
        if total_docs == 0:
            return "Nothing was searched: the index holds no documents."
        return (
            f"Nothing was searched: none of the {total_docs} indexed documents is in scope "
            "(check the folder and filters)."
        )
    described = ", ".join(
        f"{t.display} (that word only)" if t.exact else f"{t.display} (any word starting so)"
        for t in terms
    )
    if len(terms) > 1:
        described = ("every one of " if match == "all" else "any of ") + described
    plural = "document" if searched == 1 else "documents"
    return (
        f"No document mentions {described}: searched the text and titles of {searched} "
        f"indexed {plural}. Only indexed text is searched (files not yet synced and scans "
        "without OCR have none)."
    )
