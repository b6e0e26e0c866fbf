"""The public face of minirag-index: add sources, search, read back.

>>> index = MiniragIndex.open(IndexSettings(DB_PATH=..., MODEL_NAME=...))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

from minirag_index.embedding.embedder import Embedder
from minirag_index.embedding.model_spec import ModelSpec, index_model_problem
from minirag_index.heap import release_freed_memory
from minirag_index.results import LookAlike, NeighborChunk, SearchResult
from minirag_index.search.filters import sources_filter_sql
from minirag_index.search.hybrid import (
    CANDIDATE_COLUMNS,
    DEFAULT_TOP_K,
    apply_tuning,
    candidate_count,
    clamp_top_k,
    fuse,
    search_filter,
    sources_in_rank_order,
    with_text,
)
from minirag_index.search.reconstruct import document_parts, rebuild_section
from minirag_index.search.scope import in_scope, scope_filter_sql, sql_string
from minirag_index.search.sections import read_missing
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
from minirag_index.storage.summary import IndexSummary, SummaryReads
from minirag_index.versions import READ, PerVersion, Version

if TYPE_CHECKING:  # numpy-backed; imported on first use so opening an index stays light
    from minirag_index.search.lookalike import LookAlikeIndex
    from minirag_index.search.mentions import MentionResult
    from minirag_index.storage.store import Vector

DEFAULT_NEIGHBORS = 2  # chunks read on each side of a hit, unless asked for others
DEFAULT_EMBED_SLICE = 512  # chunks embedded per call when a caller does not say


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
        #: Whole-index views, each kept until the table changes.
        self._views = PerVersion(self.store.version)
        # The keyword search runs beside query embedding + vector search.
        self._keyword_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="keyword")
        self._summary = SummaryReads(self.store)

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
        return self.store.stored_twice(among)

    @property
    def location(self) -> IndexLocation:
        """Where the index lives (a folder or an object-store prefix)."""
        return self.store.location

    @property
    def db_path(self) -> IndexLocation:
        """:attr:`location`, by its older name."""
        return self.store.location

    @property
    def storage_options(self) -> Mapping[str, str]:
        """The object-store options the index is reached with (credentials included: never
        shown), for files kept beside its table."""
        return self.store.access.storage_options

    def has_table(self) -> bool:
        """Whether anything was ever indexed here (StoreUnavailableError when the store
        could not be read)."""
        return self.store.exists()

    def open_table(self) -> None:
        """Open the table now, as the first read would: a writer upgrades an older one, a
        read-only index too old to read raises IndexTooOldError; :attr:`warnings` then says
        what opening found."""
        self.store.table()

    @property
    def warnings(self) -> list[str]:
        """What opening the table found: keyword indexes from an older version, an upgrade
        that could not run (the writer's next sync brings them up to date)."""
        return list(self.store.warnings)

    def refresh(self) -> None:
        """Bring keyword indexes up to date after writes and drop old table versions."""
        self.store.optimize()
        self._views.clear()
        self.write_summary()
        release_freed_memory()

    def write_summary(self, *, only_if_missing: bool = False) -> None:
        """Leave the summary status and list_files read instead of LanceDB (best-effort; see
        :mod:`minirag_index.storage.summary`); ``only_if_missing``: unless the current one is
        there."""
        self._summary.write(only_if_missing=only_if_missing)

    def summary(self) -> IndexSummary | None:
        """The summary of the table's newest version, if one was written for it (see
        :mod:`minirag_index.storage.summary`): what the metadata reads below answer from first."""
        return self._summary.current()

    def version(self) -> int | None:
        """The table version answers come from now (it changes with every commit); None
        without a table. Read from the summary when it is current, so status need not open
        LanceDB."""
        return self._summary.version()

    # -- the model -------------------------------------------------------------------------
    def recorded_model(self) -> ModelSpec | None:
        """The model the index was embedded with (None: empty, or written before the record)."""
        return self._summary.recorded_model()

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
        return self._views.get("model", problem, version)

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
        if not self._views.get("rows", self.store.count_rows, version):
            return SearchResult(
                [], [], {}, notice="The index is empty: nothing has been synced yet."
            )
        self.check_model(version)
        where, scope, notice = search_filter(scope, sources)
        if notice is not None:
            return SearchResult([], [], {}, notice=notice)
        vector_rows, keyword_rows, keyword_error = self._candidates(
            query, candidate_count(top_k), where, version
        )
        if scope and not (vector_rows or keyword_rows) and not self._has_rows_under(scope):
            notice = f"Nothing is indexed under the scope {scope!r}."
            return SearchResult([], [], {}, notice=notice)
        hits = fuse(vector_rows, keyword_rows, self.settings.RAG_HYBRID_WEIGHT)
        hits = apply_tuning(hits, self.settings)[:top_k]
        sections = self.section_chunks([h.parent_id for h in hits], version)
        hits = with_text(hits, sections)  # the candidates were read without it
        return SearchResult(
            hits=hits,
            sources=sources_in_rank_order(hits),
            parents={pid: rebuild_section(chunks) for pid, chunks in sections.items()},
            keyword_error=keyword_error,
            version=version,
        )

    def _candidates(
        self, query: str, n: int, where: str | None, version: Version
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
        """Both sides' ``n`` best rows (keywords in a thread), and why the keyword side failed."""
        weight = self.settings.RAG_HYBRID_WEIGHT
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
        keyword_rows: list[dict[str, Any]] = []
        keyword_error = None
        if future is not None:
            try:
                keyword_rows = future.result()
            except Exception as exc:  # reported, never swallowed
                keyword_error = f"keyword search failed: {exc}"
        return vector_rows, keyword_rows, keyword_error

    def _has_rows_under(self, scope: str) -> bool:
        where = scope_filter_sql(scope)
        return where is None or self.store.any_row(where)

    def vector_rows(
        self, vector: Vector, limit: int, where: str | None, version: Version = READ
    ) -> list[dict[str, Any]]:
        """The vector side of a search: the ``limit`` nearest chunks, with ``_distance``
        (LanceDB's: squared L2), among those ``where`` selects."""
        known, keys = None if version is READ else version, CANDIDATE_COLUMNS
        return self.store.vector_search(vector, limit, where, version=known, columns=keys)

    def keyword_rows(
        self, query: str, limit: int, where: str | None, version: Version = READ
    ) -> list[dict[str, Any]]:
        """The keyword (BM25) side of a search: the ``limit`` best chunks, with ``_score``."""
        indexed = self._views.get("keyword columns", self.store.keyword_columns, version)
        return self.store.keyword_search(query, limit, where, CANDIDATE_COLUMNS, searchable=indexed)

    # -- reading back ----------------------------------------------------------------------
    def sections(self, parent_ids: Sequence[str], version: Version = READ) -> dict[str, str]:
        """The text of each named section (parentId → section), rebuilt from its chunks."""
        return {p: rebuild_section(c) for p, c in self.section_chunks(parent_ids, version).items()}

    def section_chunks(
        self, parent_ids: Sequence[str], version: Version = READ
    ) -> dict[str, list[StoredChunk]]:
        """The chunks of each named section (parentId → chunks), kept per table version."""
        wanted = list(dict.fromkeys(parent_ids))
        known: dict[str, list[StoredChunk]] = self._views.get("sections", dict, version)
        rows = self._views.get("rows", self.store.count_rows, version)
        read_missing(known, wanted, self.store.chunks, rows)
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

    # -- whole-index views, kept per table version ----------------------------------------
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
        (:mod:`minirag_index.search.stored_mentions`)."""
        from minirag_index.search.mentions import MAX_PAGE
        from minirag_index.search.stored_mentions import find_in_store

        def wanted(source: str) -> bool:
            return in_scope(source, scope) and (doc_filter is None or doc_filter(source))

        page = MAX_PAGE if limit is None else limit
        return find_in_store(
            self.store,
            self._views,
            terms,
            match=match,
            doc_filter=wanted,
            offset=offset,
            limit=page,
        )

    def _look_alike_view(
        self, version: Version = READ
    ) -> tuple[LookAlikeIndex, dict[str, str | None]]:
        def build() -> tuple[LookAlikeIndex, dict[str, str | None]]:
            from minirag_index.search.lookalike import LookAlikeIndex

            signatures, dates = self.store.signatures()
            return LookAlikeIndex(signatures), dates

        return self._views.get("lookalikes", build, version)

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
        infos = self._summary.sources(scope_filter_sql(scope))
        return {s: i for s, i in infos.items() if in_scope(s, scope)}

    def sources_among(self, sources: Collection[str]) -> dict[str, SourceInfo]:
        """The stored entries of those of ``sources`` the index holds."""
        return self.store.sources(sources_filter_sql(sources))

    def is_empty(self) -> bool:
        """Nothing embedded yet: no table, or no vectors in it."""
        return self._summary.vector_dim() is None

    def stale_chunk_count(self, current_scheme: int) -> int:
        return self._summary.stale_chunk_count(current_scheme)
