"""find_mentions: every indexed document that contains a word or phrase, counted.

The engine is pure: it knows nothing about LanceDB. :func:`build_corpus` folds given chunks
into a :class:`MentionCorpus` and :func:`find_mentions` searches it (what an index from before
the mention columns does, once per table version, and what tests use). An index with them
(:mod:`minirag_index.search.mention_scan`) builds a corpus of only the chunks that hold a match and
hands :func:`find_mentions` their hits (``chunk_hits``); counting, ranking and paging are the
same code either way.

Matching rule (see :func:`parse_terms`):

* A term matches from the start of a word; the end is open, so ``акт`` finds ``акта``,
  ``актов`` and ``актуально`` but never ``контакт``. A term in double quotes (``"акт"``, also
  ``“акт”`` / ``«акт»``) must end where the word ends.
* A word starts where the previous character is not a letter or digit: underscores, hyphens,
  punctuation, whitespace and the start of the text all start a new word.
* Whitespace inside a phrase matches any run of whitespace, line breaks included.
* Text and terms are both compared in folded form (:mod:`minirag_index.text.folding`): case, ё/е,
  Unicode composition, Markdown escapes, soft hyphens and zero-width marks are ignored.

How it stays fast: every chunk is folded once, when the corpus is built, and the folded chunks
are joined into one string separated by NUL (which no term can match across). A query runs one
compiled regular expression per term over that string, and maps each hit's offset to its
chunk with ``numpy.searchsorted``. The pattern starts with the term's first word as a literal
and checks the word start with a lookbehind *after* it, which lets the regex engine scan for
the literal prefix instead of trying the lookbehind at every position (about 25x faster).

A heading that every chunk of a section repeats counts once: each chunk's stored text begins
with ``context_chars`` characters of repeated context (heading breadcrumb, table header). The
context is searched only in the first chunk (lowest chunk index) of a document that carries
that same context in the same section; the other chunks are searched from their own body on.
A match that lies wholly in context counts for its section only when no chunk of that section
mentions the term in its own text, and then as one chunk: the heading a breadcrumb repeats is
already in the body of the chunk that opens its section, so breadcrumbs never add to
``matchedChunks`` or to a document's rank.
"""

# Longer than 450 lines: the term grammar, the in-memory corpus and the vectorised scan share
# the array layout of MentionCorpus and _TermHits; apart, each would reach into the other's.

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from minirag_index.text.folding import fold, folds_one_to_one

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
#: Approximate length of a snippet, in characters of the original text.
SNIPPET_CHARS = 200

_SEP = "\x00"
_QUOTES = {'"': '"', "“": "”", "«": "»", "„": "“"}


# --------------------------------------------------------------------------- terms


@dataclass(frozen=True)
class Term:
    """One parsed search term."""

    raw: str
    """The term as given."""
    text: str
    """Folded text of the term, quotes removed, whitespace runs as single spaces."""
    exact: bool
    """True when the term was quoted: the match must end where the word ends."""
    pattern: re.Pattern[str] = field(repr=False, compare=False)
    """Compiled pattern over folded text; each match spans one word form."""

    @property
    def display(self) -> str:
        return f'"{self.text}"' if self.exact else self.text


def _is_word_char(c: str) -> bool:
    # The same set as the regex class [^\W_]: letters and digits, not the underscore.
    return c.isalnum()


def _compile_term(text: str, exact: bool) -> re.Pattern[str]:
    words = text.split(" ")
    first = re.escape(words[0])
    parts = [first]
    if _is_word_char(words[0][0]):
        # Word start, checked after the literal so the engine can search for the literal.
        parts.append(rf"(?<![^\W_]{first})")
    for word in words[1:]:
        parts.append(r"\s+")
        parts.append(re.escape(word))
    if _is_word_char(words[-1][-1]):
        parts.append(r"(?![^\W_])" if exact else r"[^\W_]*")
    return re.compile("".join(parts))


def parse_terms(raw_terms: Sequence[str]) -> list[Term]:
    """Parse search terms; raises ``ValueError`` for no terms or a term with nothing to match."""
    if isinstance(raw_terms, str):
        raw_terms = [raw_terms]
    if not raw_terms:
        raise ValueError("at least one term is required")
    terms: list[Term] = []
    for raw in raw_terms:
        stripped = raw.strip()
        exact = False
        if len(stripped) >= 2 and _QUOTES.get(stripped[0]) == stripped[-1]:
            exact = True
            stripped = stripped[1:-1]
        text = " ".join(fold(stripped).split())
        if not text:
            raise ValueError(f"term {raw!r} has nothing to match")
        terms.append(Term(raw=raw, text=text, exact=exact, pattern=_compile_term(text, exact)))
    return terms


# --------------------------------------------------------------------------- corpus


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

    chunk_starts = _starts(segments)
    folded_titles = [fold(t) for t in titles]
    source_rank = np.empty(len(sources), dtype=np.int64)
    source_rank[np.argsort(np.asarray(sources, dtype=object), kind="stable")] = np.arange(
        len(sources)
    )
    return MentionCorpus(
        sources=sources,
        titles=titles,
        source_rank=source_rank,
        title_text=_SEP.join(folded_titles),
        title_starts=_starts(folded_titles),
        text=_SEP.join(segments),
        chunk_starts=chunk_starts,
        chunk_doc=doc_arr[order].astype(np.int32) if len(order) else np.zeros(0, np.int32),
        chunk_index=index_arr[order] if len(order) else np.zeros(0, np.int64),
        chunk_search_from=search_from,
        chunk_context_len=context_len,
        chunk_section=section_of,
        chunk_texts=chunk_texts,
    )


def _starts(parts: list[str]) -> np.ndarray:
    """Offsets of each part in ``_SEP.join(parts)``."""
    if not parts:
        return np.zeros(0, dtype=np.int64)
    lengths = np.fromiter((len(p) + 1 for p in parts), dtype=np.int64, count=len(parts))
    starts = np.empty(len(parts), dtype=np.int64)
    starts[0] = 0
    np.cumsum(lengths[:-1], out=starts[1:])
    return starts


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


def _scan(
    pattern: re.Pattern[str], text: str, starts: np.ndarray, term: Term
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Segment (chunk or title) of every hit of ``pattern`` in ``text``, the offset where each
    hit ends within its segment, and its word form."""
    positions: list[int] = []
    ends: list[int] = []
    add_pos = positions.append
    add_end = ends.append
    if term.exact:
        # A closed term's form is the term itself: no need to read each match.
        for m in pattern.finditer(text):
            add_pos(m.start())
            add_end(m.end())
        forms = [term.text] * len(positions)
    else:
        forms = []
        add_form = forms.append
        for m in pattern.finditer(text):
            add_pos(m.start())
            add_end(m.end())
            add_form(m.group())
        if " " in term.text:
            forms = [" ".join(f.split()) for f in forms]
    if not positions:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), forms
    where = np.searchsorted(starts, np.asarray(positions, dtype=np.int64), side="right") - 1
    return where, np.asarray(ends, dtype=np.int64) - starts[where], forms


#: Per term: the chunk of every hit, the offset where it ends in the chunk's searched
#: segment, and its word form (what :func:`_scan` returns).
ChunkHits = tuple[np.ndarray, np.ndarray, list[str]]


def scan_segments(segments: list[str], term: Term) -> ChunkHits:
    """Hits of ``term`` in each of ``segments`` (folded text as a chunk is searched), the
    chunks numbered by position in the list."""
    return _scan(term.pattern, _SEP.join(segments), _starts(segments), term)


def _search_term(corpus: MentionCorpus, term: Term, found: ChunkHits | None = None) -> _TermHits:
    if found is None:
        found = _scan(term.pattern, corpus.text, corpus.chunk_starts, term)
    chunks, ends, forms = found
    title_docs, _, title_forms = _scan(term.pattern, corpus.title_text, corpus.title_starts, term)
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
    if match not in ("all", "any"):
        raise ValueError(f"match must be 'all' or 'any', not {match!r}")
    if isinstance(terms, str):
        terms = [terms]
    terms_ = [t if isinstance(t, Term) else parse_terms([t])[0] for t in terms]
    if not terms_:
        raise ValueError("at least one term is required")
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
    forms = _count_forms(hits, matched)

    ranked = _ranked(corpus, matched_docs, per_doc, title_hit)
    page = ranked[offset : offset + limit]

    first_chunk = _first_chunks(corpus, hit_chunks, page)
    texts = corpus.texts_of(sorted(first_chunk.values()))
    patterns = [t.pattern for t in terms_]
    documents = [
        MentionDocument(
            source=corpus.sources[d],
            title=corpus.titles[d],
            matching_chunks=int(per_doc[d]),
            title_match=bool(title_hit[d]),
            first_match=_first_match(corpus, first_chunk.get(d), texts, patterns),
        )
        for d in page.tolist()
    ]

    total = len(ranked)
    next_offset = offset + limit if offset + limit < total else None
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
        forms=forms,
        documents=documents,
        offset=offset,
        limit=limit,
        next_offset=next_offset,
        notice=notice,
    )


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
        snippet=_snippet(texts[chunk], int(corpus.chunk_search_from[chunk]), patterns),
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
    return np.union1d(np.nonzero(body_hit)[0], context_only[first])


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


def _snippet(
    text: str, search_from: int, patterns: list[re.Pattern[str]], width: int = SNIPPET_CHARS
) -> str:
    """About ``width`` characters of ``text`` around its first hit, whitespace collapsed.

    Only ``text[search_from:]`` is searched (the part of the chunk that was counted). The hit
    found in folded text is mapped back to the original by bisecting on the folded length of
    prefixes: folding is local, so that length never decreases as the prefix grows.
    """
    body = text[search_from:]
    folded = fold(body)
    best: tuple[int, int] | None = None
    for p in patterns:
        m = p.search(folded)
        if m is not None and m.end() > m.start() and (best is None or m.start() < best[0]):
            best = (m.start(), m.end())
    if best is None:
        hit_start = hit_end = search_from
    elif len(folded) == len(body) and folds_one_to_one(body):
        hit_start, hit_end = search_from + best[0], search_from + best[1]
    else:
        hit_start = search_from + _prefix_for(body, best[0], end=False)
        hit_end = max(hit_start, search_from + _prefix_for(body, best[1], end=True))
    n = len(text)
    if hit_end - hit_start >= width:
        start, end = hit_start, hit_start + width
    else:
        pad = (width - (hit_end - hit_start)) // 2
        start = max(0, hit_start - pad)
        end = min(n, start + width)
        start = max(0, min(start, end - width))
        # Prefer cutting at whitespace, without losing the hit.
        if start > 0:
            space = text.find(" ", start, hit_start)
            if space != -1 and space - start < 30:
                start = space + 1
        if end < n:
            space = text.rfind(" ", hit_end, end)
            if space != -1 and end - space < 30:
                end = space
    body = " ".join(text[start:end].split())
    return ("…" if start > 0 else "") + body + ("…" if end < n else "")


def _prefix_for(text: str, folded_offset: int, *, end: bool) -> int:
    """Original offset matching ``folded_offset`` in ``fold(text)``.

    For a start (``end=False``): the largest prefix folding to at most ``folded_offset``
    characters; for an end: the smallest prefix folding to at least that many.
    """
    lo, hi = 0, len(text)
    if end:
        while lo < hi:
            mid = (lo + hi) // 2
            if len(fold(text[:mid])) >= folded_offset:
                hi = mid
            else:
                lo = mid + 1
        return lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(fold(text[:mid])) <= folded_offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


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
