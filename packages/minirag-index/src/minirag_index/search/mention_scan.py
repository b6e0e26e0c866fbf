"""find_mentions over the table's own columns: candidates from LanceDB, the rule in Python.

What is kept per table version (:class:`MentionView`) is small: every document's source and
folded title, and which chunks search their repeated context (the first chunk of its section
carrying that context: :mod:`minirag_index.search.mentions`). A query asks LanceDB for the chunks
whose
word prefixes can hold a term (:mod:`minirag_index.storage.mention_columns`), reads their folded
text a
batch at a time, keeps only the hits of the exact rule, and hands them to
:func:`minirag_index.search.mentions.find_mentions` for counting, ranking and paging. No text
outlives
its batch; the snippets' original text is read for the page's documents only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from minirag_index.search.mention_corpus import MentionCorpus
from minirag_index.search.mention_terms import ChunkHits, Term, parse_terms, segment_starts
from minirag_index.search.mentions import MentionResult, find_mentions
from minirag_index.search.scope import sql_string
from minirag_index.storage import mention_columns as mc
from minirag_index.text.folding import fold

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["MentionView", "build_view", "candidate_filter", "search"]

BATCH_ROWS = 16_384  # candidate chunks whose folded text is in memory at once
VIEW_COLUMNS = ["source", "title", "section", "chunk_index", mc.KEY_COLUMN]
CANDIDATE_COLUMNS = [
    "source",
    "chunk_index",
    "section",
    "context_chars",
    mc.TEXT_COLUMN,
    mc.CONTEXT_COLUMN,
    mc.KEY_COLUMN,
]
Batches = Callable[[list[str], str | None, int], Iterable["pa.RecordBatch"]]


@dataclass(eq=False)
class MentionView:
    """What find_mentions keeps per table version: documents, titles, context owners."""

    corpus: MentionCorpus
    """The documents and their titles, with no chunks."""
    doc_of: dict[str, int]
    """Each of ``corpus.sources``' document number (finds a row's document)."""
    first_keys: np.ndarray
    """Sorted ``document << 32 | chunk_index`` of the chunks that search their context."""


def _key(doc: np.ndarray, chunk_index: np.ndarray) -> np.ndarray:
    return (doc.astype(np.int64) << 32) | (chunk_index.astype(np.int64) & 0xFFFFFFFF)


def build_view(batches: Iterable[pa.RecordBatch]) -> MentionView:
    """The view of the rows in ``batches`` (the :data:`VIEW_COLUMNS` of every row)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    doc_of: dict[str, int] = {}
    titles: list[str] = []
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for batch in batches:
        grouped = pa.table({"s": batch.column("source"), "t": batch.column("title")})
        per_source = grouped.group_by("s").aggregate([("t", "max")])
        batch_docs = []  # the document number of each of per_source's sources
        for source, title in zip(
            per_source.column("s").to_pylist(), per_source.column("t_max").to_pylist(), strict=True
        ):
            d = doc_of.get(source)
            if d is None:
                d = doc_of[source] = len(titles)
                titles.append(title or "")
            elif title and not titles[d]:
                titles[d] = title
            batch_docs.append(d)
        keyed = batch.filter(pc.is_valid(batch.column(mc.KEY_COLUMN)))
        if keyed.num_rows:
            # Looked up among this batch's sources only: against every source seen so far,
            # the first call at a million chunks spent seconds rebuilding that set per batch.
            local = pc.index_in(keyed.column("source"), value_set=per_source.column("s"))
            docs = np.asarray(batch_docs, dtype=np.int64)[local.to_numpy(zero_copy_only=False)]
            parts.append(
                (
                    docs,
                    keyed.column("section").to_numpy(zero_copy_only=False).astype(np.int64),
                    keyed.column(mc.KEY_COLUMN).to_numpy(zero_copy_only=False),
                    keyed.column("chunk_index").to_numpy(zero_copy_only=False).astype(np.int64),
                )
            )
    return MentionView(
        corpus=_documents_corpus(list(doc_of), titles),
        doc_of=doc_of,
        first_keys=_first_keys(parts),
    )


def _doc_numbers(sources: pa.Array, doc_of: dict[str, int]) -> np.ndarray:
    """Each row's document number in ``doc_of`` (-1: none). The batch's distinct sources are
    looked up, not every row's: ``pc.index_in`` against every source of the view rebuilt a
    hash of all of them per batch (a third of the first call at a million chunks)."""
    encoded = sources.dictionary_encode()
    distinct = encoded.dictionary.to_pylist()
    numbers = np.full(len(distinct) + 1, -1, dtype=np.int64)  # the last: a null source's
    numbers[:-1] = [doc_of.get(s, -1) for s in distinct]
    return numbers[encoded.indices.fill_null(len(distinct)).to_numpy(zero_copy_only=False)]


def _is_first(keys: np.ndarray, first_keys: np.ndarray) -> np.ndarray:
    """Per key: whether it is among the sorted ``first_keys``."""
    if not len(first_keys):
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(first_keys, keys), len(first_keys) - 1)
    return first_keys[at] == keys


def _first_keys(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """Keys of the chunks that open a (document, section, context) group: lowest chunk index."""
    if not parts:
        return np.zeros(0, dtype=np.int64)
    doc, section, key, index = (np.concatenate(c) for c in zip(*parts, strict=True))
    order = np.lexsort((index, key, section, doc))
    doc, section, key, index = doc[order], section[order], key[order], index[order]
    starts = np.ones(len(doc), dtype=bool)
    starts[1:] = (doc[1:] != doc[:-1]) | (section[1:] != section[:-1]) | (key[1:] != key[:-1])
    return np.sort(_key(doc[starts], index[starts]))


def _documents_corpus(sources: list[str], titles: list[str]) -> MentionCorpus:
    """A corpus of the documents and their titles, with no chunks."""
    folded = [fold(t) for t in titles]
    rank = np.empty(len(sources), dtype=np.int64)
    rank[np.argsort(np.asarray(sources, dtype=object), kind="stable")] = np.arange(len(sources))
    none = np.zeros(0, dtype=np.int64)
    return MentionCorpus(
        sources=sources,
        titles=titles,
        source_rank=rank,
        title_text="\x00".join(folded),
        title_starts=segment_starts(folded),
        text="",
        chunk_starts=none,
        chunk_doc=none.astype(np.int32),
        chunk_index=none,
        chunk_search_from=none,
        chunk_context_len=none,
        chunk_section=none,
        chunk_texts=[],
    )


def candidate_filter(terms: Sequence[Term]) -> str | None:
    """A LanceDB filter selecting every chunk that may hold one of ``terms`` (None: any may)."""
    clauses = []
    for term in terms:
        prefixes = mc.term_prefixes(term.text, term.exact)
        if not prefixes:
            return None
        listed = ", ".join(sql_string(p) for p in prefixes)
        clauses.append(f"array_has_all({mc.PREFIX_COLUMN}, [{listed}])")
    return " OR ".join(clauses)


@dataclass
class _Found:
    """Chunks with a hit, in the order they were read, and each term's hits in them."""

    doc: list[np.ndarray]
    index: list[np.ndarray]
    section: list[np.ndarray]
    search_from: list[np.ndarray]
    context_len: list[np.ndarray]
    hits: list[list[tuple[np.ndarray, np.ndarray, list[str]]]]
    count: int = 0


def _literal_rows(texts: Any, terms: list[Term]) -> list[np.ndarray]:
    """Per term, the rows whose folded text holds each of its words literally (a match
    does; a prefix candidate may not)."""
    import pyarrow.compute as pc

    masks = []
    for term in terms:
        mask = None
        for word in term.text.split(" "):
            has = pc.match_substring(texts, word)
            mask = has if mask is None else pc.and_(mask, has)
        assert mask is not None
        masks.append(mask.fill_null(False).to_numpy(zero_copy_only=False))
    return masks


def _segments(
    batch: pa.RecordBatch, view: MentionView
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Each row's document (-1: not in the view's version), the folded text it is searched
    by, where that begins in the original text, and how much of it is context."""
    import pyarrow.compute as pc

    docs = _doc_numbers(batch.column("source"), view.doc_of)
    index = batch.column("chunk_index").to_numpy(zero_copy_only=False).astype(np.int64)
    keyed = pc.is_valid(batch.column(mc.KEY_COLUMN)).to_numpy(zero_copy_only=False)
    first = np.zeros(len(keyed), dtype=bool)
    first[keyed] = _is_first(_key(docs[keyed], index[keyed]), view.first_keys)
    ctx_len = batch.column(mc.CONTEXT_COLUMN).fill_null(0).to_numpy(zero_copy_only=False)
    ctx_chars = batch.column("context_chars").fill_null(0).to_numpy(zero_copy_only=False)
    segments = batch.column(mc.TEXT_COLUMN).fill_null("").to_pylist()
    skip = keyed & ~first  # context already searched in an earlier chunk: body only
    for row in np.nonzero(skip)[0].tolist():
        segments[row] = segments[row][int(ctx_len[row]) :]
    search_from = np.where(skip, ctx_chars, 0).astype(np.int64)
    context_len = np.where(keyed & first, ctx_len, 0).astype(np.int64)
    return docs, segments, search_from, context_len, index


def chunk_hits(
    term: Term,
    segments: list[str],
    context_len: np.ndarray,
    rows: np.ndarray,
    known_forms: dict[str, str],
) -> ChunkHits:
    """The hits of ``term`` in ``segments[rows]``, one per chunk, form and place (context or
    body): what counting needs (:func:`~minirag_index.search.mentions.find_mentions`). A body hit's
    end is past the chunk's context, a context hit's at its end. Each form is kept once in
    ``known_forms`` and shared (a frequent word has millions of hits and a few forms)."""
    head = term.text.split(" ")[0]
    with_context = [
        r
        for r in rows[context_len[rows] > 0].tolist()
        if segments[r].find(head, 0, int(context_len[r])) != -1
    ]
    body_only = np.setdiff1d(rows, with_context, assume_unique=True) if with_context else rows
    chunks, forms = _body_hits(term, segments, body_only, known_forms)
    ends = context_len[chunks] + 1
    if with_context:
        more, more_ends, more_forms = _context_hits(
            term, segments, context_len, with_context, known_forms
        )
        chunks = np.concatenate([chunks, more])
        ends = np.concatenate([ends, more_ends])
        forms = forms + more_forms
    return chunks, ends, forms


def _body_hits(
    term: Term, segments: list[str], rows: np.ndarray, known_forms: dict[str, str]
) -> tuple[np.ndarray, list[str]]:
    """The chunks of ``rows`` where ``term`` matches in a segment searched as body only, and
    each one's forms (a chunk once per form): the bulk of a frequent term's hits, found
    with one regular-expression call per chunk and no per-hit work beyond the forms."""
    intern = known_forms.setdefault
    if term.exact:
        search = term.pattern.search
        found = [r for r in rows.tolist() if search(segments[r])]
        return np.asarray(found, dtype=np.int64), [intern(term.text, term.text)] * len(found)
    findall = term.pattern.findall
    phrase = " " in term.text
    chunks: list[int] = []
    forms: list[str] = []
    add_chunk, add_form = chunks.append, forms.append
    for r in rows.tolist():
        matched = findall(segments[r])
        for f in {" ".join(m.split()) for m in matched} if phrase else set(matched):
            add_chunk(r)
            add_form(intern(f, f))
    return np.asarray(chunks, dtype=np.int64), forms


def _context_hits(
    term: Term,
    segments: list[str],
    context_len: np.ndarray,
    rows: list[int],
    known_forms: dict[str, str],
) -> ChunkHits:
    """The hits of ``term`` in chunks whose searched context holds its first word: each
    form once per place (the context, or the body)."""
    chunks: list[int] = []
    ends: list[int] = []
    forms: list[str] = []
    phrase = " " in term.text
    for row in rows:
        ctx = int(context_len[row])
        found = {(m.end() <= ctx, m.group()) for m in term.pattern.finditer(segments[row])}
        for in_context, form in found:
            chunks.append(row)
            ends.append(ctx if in_context else ctx + 1)
            form = " ".join(form.split()) if phrase else form
            forms.append(known_forms.setdefault(form, form))
    return np.asarray(chunks, dtype=np.int64), np.asarray(ends, dtype=np.int64), forms


def _collect(batches: Iterable[pa.RecordBatch], view: MentionView, terms: list[Term]) -> _Found:
    found = _Found([], [], [], [], [], [[] for _ in terms])
    known_forms: dict[str, str] = {}
    for full in batches:
        literal = _literal_rows(full.column(mc.TEXT_COLUMN), terms)
        any_term = np.logical_or.reduce(literal)
        if not any_term.any():
            continue
        batch = full.filter(any_term) if not any_term.all() else full
        docs, segments, search_from, context_len, index = _segments(batch, view)
        per_term = [
            chunk_hits(t, segments, context_len, np.nonzero(m[any_term])[0], known_forms)
            for t, m in zip(terms, literal, strict=True)
        ]
        hit = np.zeros(len(segments), dtype=bool)
        for chunks, _, _ in per_term:
            hit[chunks] = True
        hit &= docs >= 0
        if not hit.any():
            continue
        renumber = np.cumsum(hit) - 1 + found.count
        for term_hits, (chunks, ends, forms) in zip(found.hits, per_term, strict=True):
            keep = hit[chunks]
            kept_forms = forms if keep.all() else [f for f, k in zip(forms, keep, strict=True) if k]
            term_hits.append((renumber[chunks[keep]], ends[keep], kept_forms))
        found.doc.append(docs[hit])
        found.index.append(index[hit])
        found.section.append(
            batch.column("section").to_numpy(zero_copy_only=False).astype(np.int64)[hit]
        )
        found.search_from.append(search_from[hit])
        found.context_len.append(context_len[hit])
        found.count += int(hit.sum())
    return found


def _corpus_of(
    view: MentionView, found: _Found, load: Callable[[list[tuple[str, int]]], list[str]]
) -> tuple[MentionCorpus, list[ChunkHits]]:
    """A corpus of the found chunks, in (document, chunk index) order, and the terms' hits
    renumbered to it."""

    def cat(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    doc, index, section = cat(found.doc), cat(found.index), cat(found.section)
    order = np.lexsort((index, doc))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    _, section_ids = np.unique(_key(doc[order], section[order]), return_inverse=True)
    base = view.corpus
    sources = base.sources
    doc_sorted, index_sorted = doc[order], index[order]

    def load_texts(chunks: list[int]) -> list[str]:
        return load([(sources[int(doc_sorted[c])], int(index_sorted[c])) for c in chunks])

    corpus = MentionCorpus(
        sources=sources,
        titles=base.titles,
        source_rank=base.source_rank,
        title_text=base.title_text,
        title_starts=base.title_starts,
        text="",
        chunk_starts=np.zeros(len(order), dtype=np.int64),
        chunk_doc=doc_sorted.astype(np.int32),
        chunk_index=index_sorted,
        chunk_search_from=cat(found.search_from)[order],
        chunk_context_len=cat(found.context_len)[order],
        chunk_section=section_ids.reshape(-1).astype(np.int64),
        chunk_texts=[],
        load_texts=load_texts,
    )
    hits: list[ChunkHits] = []
    for parts in found.hits:
        chunks = cat([p[0] for p in parts])
        ends = cat([p[1] for p in parts])
        forms = [f for p in parts for f in p[2]]
        hits.append((position[chunks], ends, forms))
    return corpus, hits


def search(
    view: MentionView,
    batches: Batches,
    load: Callable[[list[tuple[str, int]]], list[str]],
    terms: Sequence[str],
    *,
    match: Literal["all", "any"] = "all",
    doc_filter: Callable[[str], bool] | None = None,
    offset: int = 0,
    limit: int,
) -> MentionResult:
    """find_mentions over a table with the mention columns. ``batches(columns, where, rows)``
    reads rows; ``load`` reads the original text of (source, chunk index) pairs."""
    if match not in ("all", "any"):
        raise ValueError(f"match must be 'all' or 'any', not {match!r}")
    terms_ = parse_terms(terms)
    rows: Iterator[pa.RecordBatch] = iter(
        batches(CANDIDATE_COLUMNS, candidate_filter(terms_), BATCH_ROWS)
    )
    found = _collect(rows, view, terms_)
    corpus, hits = _corpus_of(view, found, load)
    return find_mentions(
        corpus,
        terms_,
        match=match,
        doc_filter=doc_filter,
        offset=offset,
        limit=limit,
        chunk_hits=hits,
    )
