"""The public face of minirag-index: add sources, search, read back.

>>> index = MiniragIndex.open(IndexSettings(DB_PATH=..., MODEL_NAME=...))  # doctest: +SKIP
"""

# Longer than 450 lines: MiniragIndex is the package's whole public face, one short method per
# operation delegating to a module of its own; its result dataclasses sit beside it so the face
# reads in one file.

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from minirag_index.embedding.embedder import Embedder
from minirag_index.embedding.model_spec import ModelSpec, index_model_problem
from minirag_index.heap import release_freed_memory
from minirag_index.search.filters import sources_filter_sql
from minirag_index.search.fusion import first_sources, group_cut, rrf_fuse, within_distance
from minirag_index.search.reconstruct import document_parts, rebuild_section
from minirag_index.search.scope import in_scope, scope_filter_sql, sql_string
from minirag_index.settings import IndexSettings
from minirag_index.storage.location import IndexLocation
from minirag_index.storage.store import (
    ChunkInput,
    IndexMismatchError,
    SourceDoc,
    SourceInfo,
    Store,
    StoredChunk,
)

if TYPE_CHECKING:  # numpy-backed; imported on first use so opening an index stays light
    from minirag_index.search.lookalike import LookAlikeIndex
    from minirag_index.search.mentions import MentionCorpus, MentionResult
    from minirag_index.storage.store import Vector
    from minirag_index.storage.summary import IndexSummary

T = TypeVar("T")


class _Unread(Enum):
    READ = "read"


#: A table version not read yet: the method reads it. A search reads the version once and hands
#: it on, since every read asks the storage for the latest one.
READ = _Unread.READ
Version = int | None | Literal[_Unread.READ]
SECTION_CACHE_LIMIT = 5_000  # rebuilt sections kept per table version
MAX_TOP_K = 100
DEFAULT_TOP_K = 10
DEFAULT_NEIGHBORS = 2  # chunks read on each side of a hit, unless asked for others
DEFAULT_EMBED_SLICE = 512  # chunks embedded per call when a caller does not say


def candidate_count(top_k: int) -> int:
    """How many candidates each side fetches: a multiple of topK, bounded."""
    return min(max(4 * top_k, 20), 400)


def clamp_top_k(top_k: int) -> int:
    """topK below 1 is refused; above the cap it is clamped rather than rejected."""
    if top_k < 1:
        raise ValueError(f"topK must be at least 1 (got {top_k}); at most {MAX_TOP_K} is used.")
    return min(top_k, MAX_TOP_K)


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


class MiniragIndex:
    """An index at ``settings.DB_PATH`` searched with ``settings.MODEL_NAME``; with
    ``read_only`` nothing is ever written there (see
    :class:`~minirag_index.storage.store.Store`)."""

    def __init__(
        self, settings: IndexSettings, embedder: Embedder | None = None, *, read_only: bool = False
    ):
        if settings.DB_PATH is None:
            raise ValueError("DB_PATH is required to open an index")
        self.settings = settings
        self.embedder = embedder or Embedder(settings.MODEL_NAME, settings.CACHE_DIR)
        self.store = Store(settings.DB_PATH, settings.store_access(), read_only=read_only)
        self._cache: dict[str, tuple[int | None, Any]] = {}
        # The keyword search runs beside query embedding + vector search.
        self._keyword_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="keyword")
        self._cache_lock = threading.Lock()
        self._summary_held: tuple[list[Any], IndexSummary | None] | None = None

    @classmethod
    def open(cls, settings: IndexSettings) -> MiniragIndex:
        return cls(settings)

    # -- writing ---------------------------------------------------------------------------
    def add_source(self, doc: SourceDoc, chunks: Sequence[ChunkInput]) -> int:
        """Embed ``chunks`` and make them the whole content of ``doc.source`` (one commit)."""
        vectors = self.passage_vectors([c.text for c in chunks])
        return self.store_embedded(doc, chunks, vectors)

    def passage_vectors(
        self,
        texts: Sequence[str],
        *,
        slice_size: int = DEFAULT_EMBED_SLICE,
        on_embedded: Callable[[int, int], None] | None = None,
    ) -> list[Any]:
        """A vector for each chunk text: the index's own when it holds the same text embedded
        by this model, else newly embedded (see :mod:`minirag_index.storage.reuse`); ``slice_size``
        texts per embedding call, ``on_embedded(done, total)`` after each when they take more."""
        from minirag_index.storage.reuse import passage_vectors

        self.check_model()  # before embedding anything another model's index would refuse
        vectors = passage_vectors(
            texts,
            self.embedder.spec,
            self.store.vectors_for,
            self.embedder.embed_passages,
            slice_size=slice_size,
            on_embedded=on_embedded,
        )
        self.embedder.release_arena()  # before the commit, which can use that memory instead
        return vectors

    def store_embedded(
        self, doc: SourceDoc, chunks: Sequence[ChunkInput], vectors: Sequence[Any]
    ) -> int:
        return self.store_many([(doc, chunks, vectors)])

    def store_many(
        self, items: Sequence[tuple[SourceDoc, Sequence[ChunkInput], Sequence[Any]]]
    ) -> int:
        """Store already-embedded sources, each replacing its old chunks, in one commit."""
        stored = self.store.replace_sources(items, model=self.embedder.spec)
        release_freed_memory()  # a commit's transient buffers would otherwise stay resident
        return stored

    def delete_source(self, source: str) -> int:
        return self.store.delete_source(source)

    def move_sources(self, moves: dict[str, SourceDoc]) -> int:
        """Re-key each old source's chunks (vectors included) under its new source, in one
        commit; the new document's hash, size and mtime replace the old ones."""
        return self.store.move_sources(moves)

    def move_source(self, old: str, new: SourceDoc) -> int:
        return self.store.move_source(old, new)

    def record_file_stats(self, stats: Sequence[tuple[str, int, float]]) -> None:
        """New (size, mtime) of sources whose bytes did not change, in one commit."""
        self.store.set_file_stats(stats)

    def set_signatures(self, signatures: dict[str, bytes]) -> None:
        """Look-alike signatures of several sources, in one commit."""
        self.store.set_signatures(signatures)

    def set_labels(self, source: str, labels: str | None) -> None:
        """A source's stored labels, rewritten in place (nothing is embedded)."""
        self.store.update_source_fields(source, {"labels": labels})

    def stored_twice(self, among: Collection[str]) -> set[str]:
        """Those of the file sources ``among`` holding more rows than distinct chunk numbers:
        two writers stored them at once."""
        if not among:
            return set()
        table = self.store.column_table(["source", "chunk_index"], "source_type = 'file'")
        if table is None or table.num_rows == 0:
            return set()
        grouped = table.group_by("source").aggregate(
            [("chunk_index", "count"), ("chunk_index", "count_distinct")]
        )
        sources = grouped.column("source").to_pylist()
        rows = grouped.column("chunk_index_count").to_pylist()
        distinct = grouped.column("chunk_index_count_distinct").to_pylist()
        wanted = set(among)
        counted = zip(sources, rows, distinct, strict=True)
        return {source for source, n, d in counted if n != d and source in wanted}

    @property
    def location(self) -> IndexLocation:
        """Where the index lives (a folder or an object-store prefix)."""
        return self.store.location

    @property
    def db_path(self) -> IndexLocation:
        """:attr:`location`, by its older name."""
        return self.store.location

    def refresh(self) -> None:
        """Bring keyword indexes up to date after writes and drop old table versions."""
        self.store.optimize()
        with self._cache_lock:  # views of older versions would only hold memory until rebuilt
            self._cache.clear()
        self.write_summary()
        release_freed_memory()

    def write_summary(self, *, only_if_missing: bool = False) -> None:
        """Leave the summary status and list_files read instead of LanceDB (best-effort; see
        :mod:`minirag_index.storage.summary`); ``only_if_missing``: unless the current one is
        there."""
        from minirag_index.storage import summary

        if self.store.read_only:  # a reader writes nothing, this file included
            return
        if not (only_if_missing and self.summary() is not None):
            summary.write(self.store)
            self._summary_held = None  # read again: the version may be the one held as None

    def summary(self) -> IndexSummary | None:
        """The summary of the table's newest version, if one was written for it (see
        :mod:`minirag_index.storage.summary`): what the metadata reads below answer from first."""
        from minirag_index.storage import summary

        key = summary.version_key(self.db_path)
        if key is None:
            return None
        held = self._summary_held
        if held is None or held[0] != key:
            held = self._summary_held = (key, summary.read_current(self.db_path))
        return held[1]

    def version(self) -> int | None:
        """The table version answers come from now (it changes with every commit); None
        without a table. Read from the summary when it is current, so status need not open
        LanceDB."""
        from minirag_index.storage import summary

        key = summary.version_key(self.db_path)
        if key is not None and self.summary() is not None:
            return summary.manifest_version(key[0])
        return self.store.version()

    # -- the model -------------------------------------------------------------------------
    def recorded_model(self) -> ModelSpec | None:
        """The model the index was embedded with (None: empty, or written before the record)."""
        held = self.summary()
        return held.model if held is not None else self.store.recorded_model()

    def model_problem(self, version: Version = READ) -> str | None:
        """Why the configured model may not be used with this index, or None; read once per
        table version (``version``: the one the caller read already)."""

        def problem() -> str | None:
            if self.is_empty():
                return None  # nothing embedded yet: any model may start it
            return self.store.model_problem(self.embedder.spec)

        held = self.summary() if version is READ else None
        if held is not None:
            if held.vector_dim is None:
                return None
            spec = self.embedder.spec
            return index_model_problem(self.db_path, held.model, held.vector_dim, spec)
        return self._per_version("model", problem, version)

    def check_model(self, version: Version = READ) -> None:
        """Raise :class:`IndexMismatchError` unless the configured model is the index's."""
        problem = self.model_problem(version)
        if problem:
            raise IndexMismatchError(problem)

    # -- searching -------------------------------------------------------------------------
    def search(
        self,
        query: str,
        top_k: int = DEFAULT_TOP_K,
        scope: str | None = None,
        *,
        sources: Collection[str] | None = None,
    ) -> SearchResult:
        """Hybrid search. ``sources``, when given, limits it to those documents (a label or
        date filter's matches) inside the store queries, so ``top_k`` counts only them."""
        top_k = clamp_top_k(top_k)
        if not query.strip():
            raise ValueError("query must not be empty")
        version = self.store.version()  # read once (see READ)
        if not self._per_version("rows", self.store.count_rows, version):
            return SearchResult(
                [], [], {}, notice="The index is empty: nothing has been synced yet."
            )
        self.check_model(version)
        where = scope_filter_sql(scope)
        scope = scope if where else None  # a scope with no filter (the root) covers everything
        if sources is not None:
            if not sources:
                notice = "No indexed document matches the filter" + (
                    f" under the scope {scope!r}." if scope else "."
                )
                return SearchResult([], [], {}, notice=notice)
            only = sources_filter_sql(sources)
            where = f"({where}) AND {only}" if where else only
        weight = self.settings.RAG_HYBRID_WEIGHT
        n = candidate_count(top_k)
        keyword_rows: list[dict[str, Any]] = []
        keyword_error = None
        future = (
            self._keyword_pool.submit(self.keyword_rows, query, n, where, version)
            if weight > 0
            else None
        )
        vector_rows = (
            self.vector_rows(self.embedder.embed_query(query), n, where, version)
            if weight < 1
            else []
        )
        if future is not None:
            try:
                keyword_rows = future.result()
            except Exception as exc:  # reported, never swallowed
                keyword_error = f"keyword search failed: {exc}"
        if scope and not (vector_rows or keyword_rows) and not self._has_rows_under(scope):
            notice = f"Nothing is indexed under the scope {scope!r}."
            return SearchResult([], [], {}, notice=notice)
        hits = self._fuse(vector_rows, keyword_rows, weight)
        hits = self._apply_tuning(hits)[:top_k]
        return SearchResult(
            hits=hits,
            sources=_sources_in_rank_order(hits),
            parents=self.sections([h.parent_id for h in hits], version),
            keyword_error=keyword_error,
            version=version,
        )

    def _has_rows_under(self, scope: str) -> bool:
        where = scope_filter_sql(scope)
        return where is None or self.store.any_row(where)

    def vector_rows(
        self, vector: Vector, limit: int, where: str | None, version: Version = READ
    ) -> list[dict[str, Any]]:
        """The vector side of a search: the ``limit`` nearest chunks, with ``_distance``
        (LanceDB's: squared L2), among those ``where`` selects."""
        known = None if version is READ else version
        return self.store.vector_search(vector, limit, where, version=known)

    def keyword_rows(
        self, query: str, limit: int, where: str | None, version: Version = READ
    ) -> list[dict[str, Any]]:
        """The keyword (BM25) side of a search: the ``limit`` best chunks, with ``_score``."""
        searchable = self._per_version("keyword columns", self.store.keyword_columns, version)
        return self.store.keyword_search(query, limit, where, searchable=searchable)

    def _fuse(
        self, vector_rows: list[dict[str, Any]], keyword_rows: list[dict[str, Any]], weight: float
    ) -> list[Hit]:
        def key(row: dict[str, Any]) -> tuple[str, int]:
            return (row["source"], row["chunk_index"])

        rows = {key(r): r for r in keyword_rows}
        rows.update({key(r): r for r in vector_rows})
        distance = {key(r): r["_distance"] for r in vector_rows}
        fused = rrf_fuse([key(r) for r in vector_rows], [key(r) for r in keyword_rows], weight)
        return [
            Hit(
                text=rows[f.key]["text"],
                source=rows[f.key]["source"],
                title=rows[f.key]["title"],
                chunk_index=rows[f.key]["chunk_index"],
                score=f.score,
                distance=distance.get(f.key),
                parent_id=rows[f.key]["parent_id"],
                pages=rows[f.key]["pages"],
            )
            for f in fused
        ]

    def _apply_tuning(self, hits: list[Hit]) -> list[Hit]:
        s = self.settings
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

    # -- reading back ----------------------------------------------------------------------
    def sections(self, parent_ids: Sequence[str], version: Version = READ) -> dict[str, str]:
        """The text of each named section (parentId → section), rebuilt from its chunks."""
        wanted = list(dict.fromkeys(parent_ids))
        if not wanted:
            return {}
        # Sections rebuilt earlier stay valid until the table changes.
        known: dict[str, str] = self._per_version("sections", dict, version)
        missing = [pid for pid in wanted if pid not in known]
        if missing:
            where = "parent_id IN (" + ", ".join(sql_string(p) for p in missing) + ")"
            by_parent: dict[str, list[StoredChunk]] = {}
            for chunk in self.store.chunks(where):
                by_parent.setdefault(chunk.parent_id, []).append(chunk)
            if len(known) > SECTION_CACHE_LIMIT:
                known.clear()
            known.update((pid, rebuild_section(chunks)) for pid, chunks in by_parent.items())
        return {pid: known[pid] for pid in wanted if pid in known}

    def source_chunks(self, source: str) -> list[StoredChunk]:
        return self.store.chunks(f"source = {sql_string(source)}")

    def chunks_of(self, sources: Collection[str]) -> dict[str, list[StoredChunk]]:
        """The stored chunks of each of ``sources`` (one read), in chunk order."""
        by_source: dict[str, list[StoredChunk]] = {}
        if sources:
            for chunk in self.store.chunks(sources_filter_sql(sources)):
                by_source.setdefault(chunk.source, []).append(chunk)
        return by_source

    def read_document(self, source: str) -> str | None:
        """The whole document rebuilt from its chunks, or None if the source is not indexed."""
        pieces = self.store.document_pieces(f"source = {sql_string(source)}")
        parts = list(document_parts(pieces))  # the rows are let go before the join
        return "".join(parts) if parts else None

    def neighbors(
        self,
        source: str,
        chunk_index: int,
        before: int = DEFAULT_NEIGHBORS,
        after: int = DEFAULT_NEIGHBORS,
    ) -> list[NeighborChunk] | None:
        """The chunks around ``chunk_index`` (inclusive), or None if the source is unknown."""
        if before < 0 or after < 0:
            raise ValueError("before and after must not be negative")
        low, high = chunk_index - before, chunk_index + after
        where = f"source = {sql_string(source)} AND chunk_index >= {low} AND chunk_index <= {high}"
        chunks = self.store.chunks(where)
        if not chunks and not self.store.count_rows(f"source = {sql_string(source)}"):
            return None
        return [
            NeighborChunk(c.chunk_index, c.text, c.parent_id, c.pages, c.chunk_index == chunk_index)
            for c in chunks
        ]

    # -- whole-index views, cached per table version ---------------------------------------
    def _per_version(self, key: str, build: Callable[[], T], version: Version = READ) -> T:
        """``build()``, kept until the table changes. ``version`` is the table's version when
        the caller has just read it (:data:`READ`: read it here)."""
        if version is READ:
            version = self.store.version()
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None and cached[0] == version:
                return cached[1]
            self._cache.pop(key, None)  # not kept alive while its successor is built
        value = build()
        with self._cache_lock:
            self._cache[key] = (version, value)
        return value

    def mention_corpus(self) -> MentionCorpus:
        """Folded text of every chunk and title, rebuilt only when the table changes: what
        find_mentions searches in an index from before the mention columns (a read-only
        server's, until the writer's next sync adds them)."""
        columns = ["source", "title", "chunk_index", "text", "context_chars", "section"]

        def build() -> MentionCorpus:
            from minirag_index.search.mentions import build_corpus

            data = self.store.column_table(columns)
            if data is None:
                return build_corpus([])
            return build_corpus(zip(*(data.column(c).to_pylist() for c in columns), strict=True))

        return self._per_version("mentions", build)

    def find_mentions(
        self,
        terms: Sequence[str],
        *,
        match: Literal["all", "any"] = "all",
        scope: str | None = None,
        doc_filter: Callable[[str], bool] | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> MentionResult:
        """Every document in scope mentioning the terms (see :mod:`minirag_index.search.mentions`):
        candidates from the table's prefix index, the rule applied to their folded text
        (:mod:`minirag_index.search.mention_scan`)."""

        def wanted(source: str) -> bool:
            return in_scope(source, scope) and (doc_filter is None or doc_filter(source))

        from minirag_index.search import mention_scan
        from minirag_index.search.mentions import MAX_PAGE, find_mentions
        from minirag_index.storage import mention_columns

        page = MAX_PAGE if limit is None else limit
        table = self.store.table()
        if table is None or not mention_columns.has_columns(table.schema.names):
            result = find_mentions(
                self.mention_corpus(),
                terms,
                match=match,
                doc_filter=wanted,
                offset=offset,
                limit=page,
            )
            self._add_pages(result, {})
            return result

        def build() -> mention_scan.MentionView:
            return mention_scan.build_view(
                self.store.filtered_batches(mention_scan.VIEW_COLUMNS, None, 65_536)
            )

        view = self._per_version("mention_view", build)
        pages: dict[tuple[str, int], str | None] = {}

        def load(pairs: list[tuple[str, int]]) -> list[str]:
            where = " OR ".join(
                f"(source = {sql_string(s)} AND chunk_index = {i})" for s, i in pairs
            )
            stored = {(c.source, c.chunk_index): c for c in self.store.chunks(where)}
            pages.update((key, c.pages) for key, c in stored.items())
            return [stored[p].text if p in stored else "" for p in pairs]

        result = mention_scan.search(
            view,
            self.store.filtered_batches,
            load,
            terms,
            match=match,
            doc_filter=wanted,
            offset=offset,
            limit=page,
        )
        self._add_pages(result, pages)
        release_freed_memory()  # the batches of folded text read are let go
        return result

    def _add_pages(self, result: MentionResult, known: dict[tuple[str, int], str | None]) -> None:
        """The PDF pages of each document's first match (``known``: those already read)."""
        firsts = [(d.source, d.first_match) for d in result.documents if d.first_match]
        todo = [(s, m) for s, m in firsts if (s, m.chunk_index) not in known]
        if todo:
            where = " OR ".join(
                f"(source = {sql_string(s)} AND chunk_index = {m.chunk_index})" for s, m in todo
            )
            known = {
                **known,
                **{(c.source, c.chunk_index): c.pages for c in self.store.chunks(where)},
            }
        for source, first in firsts:
            first.pages = known.get((source, first.chunk_index))

    def _look_alike_view(
        self, version: Version = READ
    ) -> tuple[LookAlikeIndex, dict[str, str | None]]:
        def build() -> tuple[LookAlikeIndex, dict[str, str | None]]:
            from minirag_index.search.lookalike import LookAlikeIndex

            data = self.store.column_table(["source", "signature", "doc_date"], "chunk_index = 0")
            if data is None:
                return LookAlikeIndex({}), {}
            sources = data.column("source").to_pylist()
            signatures = data.column("signature").to_pylist()
            dates = dict(zip(sources, data.column("doc_date").to_pylist(), strict=True))
            return LookAlikeIndex(list(zip(sources, signatures, strict=True))), dates

        return self._per_version("lookalikes", build, version)

    def look_alikes(self, source: str, limit: int = 3) -> list[LookAlike]:
        """Other documents sharing at least half their five-word runs with ``source``.

        Taken from the whole index, whatever scope or filter the caller searched with.
        """
        return self.look_alikes_of([source], limit)[source]

    def look_alikes_of(
        self, sources: Iterable[str], limit: int = 3, version: Version = READ
    ) -> dict[str, list[LookAlike]]:
        """:meth:`look_alikes` of each of ``sources``, from one read of the table's version
        (a result listing 200 documents would otherwise read it 200 times); ``version`` when
        the caller has it (a :class:`SearchResult`'s)."""
        finder, dates = self._look_alike_view(version)
        return {
            source: [
                LookAlike(other, overlap, dates.get(other))
                for other, overlap in finder.look_alikes(source, limit=limit)
            ]
            for source in sources
        }

    def sources(self, scope: str | None = None) -> dict[str, SourceInfo]:
        held = self.summary()
        infos = held.sources if held is not None else self.store.sources(scope_filter_sql(scope))
        return {s: i for s, i in infos.items() if in_scope(s, scope)}

    def sources_among(self, sources: Collection[str]) -> dict[str, SourceInfo]:
        """The stored entries of those of ``sources`` the index holds."""
        from minirag_index.search.filters import sources_filter_sql

        return self.store.sources(sources_filter_sql(sources))

    def is_empty(self) -> bool:
        """Nothing embedded yet: no table, or no vectors in it."""
        held = self.summary()
        return (held.vector_dim if held is not None else self.store.vector_dim()) is None

    def stale_chunk_count(self, current_scheme: int) -> int:
        held = self.summary()
        if held is not None:
            return held.stale_chunk_count(current_scheme)
        return self.store.count_rows(f"scheme < {int(current_scheme)}")


def _sources_in_rank_order(hits: list[Hit]) -> list[SourceHits]:
    order: dict[str, SourceHits] = {}
    for hit in hits:
        current = order.get(hit.source)
        order[hit.source] = SourceHits(hit.source, hit.title, (current.hits if current else 0) + 1)
    return list(order.values())
