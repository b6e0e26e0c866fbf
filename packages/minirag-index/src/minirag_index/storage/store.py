"""The LanceDB store: one ``chunks`` table, replaced per source in one commit.

Every row is one chunk and carries its source's metadata (hash, size, mtime, title, scheme,
labels, date…; the columns are declared in :mod:`minirag_index.storage.schema`), so replacing
a source is a single ``merge_insert``: a reader sees the old set or the new one, never a mix
or a gap, and two writers replacing the same source leave one copy. A source too large for one
merge, or any source once the table is too large for merges to be cheap, is stored in two
commits instead (:mod:`minirag_index.storage.parted_write` says what a reader sees).

The ``vector`` column's metadata records the embedding model the vectors were made with (id,
width, prefix rule); an index refuses to mix another model's vectors or queries with them. An
index written before that record existed gets the configured model's on its next write.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from minirag_index.embedding.model_spec import (
    ModelSpec,
    dim_mismatch,
    index_model_problem,
    model_from_metadata,
    model_metadata,
)
from minirag_index.errors import MiniragError, StoreUnavailableError
from minirag_index.search.reconstruct import Piece
from minirag_index.search.scope import sql_string
from minirag_index.storage import keyword_index, reads, upgrades, vector_index, writes
from minirag_index.storage.commits import retry
from minirag_index.storage.location import IndexLocation, StoreAccess, caches, connect
from minirag_index.storage.schema import (
    CHUNK_COLUMNS,
    ChunkInput,
    SourceDoc,
    SourceInfo,
    SourceType,
    StoredChunk,
    arrow_schema,
)
from minirag_index.storage.searches import Searcher

__all__ = [
    "CHUNK_COLUMNS",
    "ChunkInput",
    "IndexMismatchError",
    "IndexTooOldError",
    "ReadOnlyIndexError",
    "SourceDoc",
    "SourceInfo",
    "SourceType",
    "Store",
    "StoredChunk",
]

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

    Vector = Sequence[float] | np.ndarray  # one embedding, as a list or as numpy gives it

log = logging.getLogger(__name__)

TABLE = "chunks"
# Old table versions are removed after this long: long enough for a reader that started on one
# to finish, short enough that the folder does not grow without bound.
VERSION_RETENTION = timedelta(minutes=2)


class IndexMismatchError(MiniragError, RuntimeError):
    """The index was built with another embedding model than the configured one."""


class ReadOnlyIndexError(MiniragError, RuntimeError):
    """A write was asked of a store opened read-only."""


class IndexTooOldError(MiniragError, RuntimeError):
    """A read-only store holds a table lacking columns a read needs (it is never upgraded)."""


class Store:
    """Opens (or creates) the chunks table at ``location`` (a folder or an object-store
    prefix) on first use.

    ``read_only``: nothing is ever written - no folder or table created, no upgrade on open, no
    optimisation; a write raises :class:`ReadOnlyIndexError`, and a table too old to read
    without its upgrade raises :class:`IndexTooOldError` when opened."""

    def __init__(
        self,
        location: IndexLocation | str | os.PathLike[str],
        access: StoreAccess | None = None,
        *,
        read_only: bool = False,
    ):
        self.location = IndexLocation.parse(location)
        self.access = access or StoreAccess()
        self.read_only = read_only
        self._db: Any = None
        self._session: Any = None  # the caches of the connection in _db
        self._table: Any = None
        self._searcher = Searcher(self.location, self.access)
        self.warnings: list[str] = []
        #: Rows from which a writer gives the table its vector index (vector_index.py).
        self.vector_index_rows = vector_index.INDEX_ROWS

    # -- opening ---------------------------------------------------------------------------
    def _connect(self) -> Any:
        if self._db is None:
            self._session = caches(self.access)
            create = not self.read_only
            self._db = connect(self.location, self.access, create=create, session=self._session)
        return self._db

    @property
    def db_path(self) -> IndexLocation:
        """The location (the older name, from when it was always a folder)."""
        return self.location

    def exists(self) -> bool:
        if self._table is not None:
            return True
        folder = self.location.local
        if folder is not None and not folder.is_dir():
            return False
        try:  # an error here says nothing about the content: never read it as "no table"
            return TABLE in self._connect().list_tables().tables
        except Exception as exc:
            raise StoreUnavailableError(self.location, exc) from exc

    def table(self) -> Any | None:
        """The table, or None when nothing was ever indexed here (StoreUnavailableError when
        the store could not be read)."""
        if self._table is None and self.exists():
            try:
                table = self._connect().open_table(TABLE)
            except Exception as exc:
                raise StoreUnavailableError(self.location, exc) from exc
            if self.read_only:
                self._check_readable(table)
            self._table = table
            if not self.read_only:
                self.warnings.extend(upgrades.on_open(table, self.vector_index_rows))
        return self._table

    def _check_readable(self, table: Any) -> None:
        """A read-only open: refuse a table lacking columns reads need, and say what a
        writer's next open would upgrade (a read-only store never does)."""
        missing = upgrades.missing_columns(table)
        if missing:
            raise IndexTooOldError(
                f"the index at {self.db_path} was written by an older version and lacks the "
                f"columns {', '.join(missing)}; a read-only server never upgrades "
                "an index: run a sync with this version on the writer's machine"
            )
        self.warnings.extend(upgrades.reader_notes(table, self.db_path))

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyIndexError(
                f"the index at {self.db_path} is open read-only (READ_ONLY=1 or --read-only): "
                "sync, ingest and delete run on the writer's machine"
            )

    def table_for_writing(self, dim: int, model: ModelSpec | None = None) -> Any:
        """The table, created for ``model`` if missing. A table without a model record gets
        ``model``'s (the upgrade of an index written before the record existed)."""
        self._writable()
        table = self.table()
        if table is None:
            try:
                metadata = model_metadata(model) if model is not None else None
                table = self._connect().create_table(TABLE, schema=arrow_schema(dim, metadata))
            except Exception:  # another writer created it first
                table = self._connect().open_table(TABLE)
            self._table = table
            self.warnings.extend(upgrades.on_create(table))
        if model is not None:
            self.check_model(model)
            if self.recorded_model() is None:
                update = {"path": "vector", "metadata": model_metadata(model)}
                retry(lambda: table.update_field_metadata(update))
        self.check_dim(dim)
        return table

    def recorded_model(self) -> ModelSpec | None:
        """The model the index's vectors were made with; None without a table or a record."""
        table = self.table()
        if table is None:
            return None
        return model_from_metadata(table.schema.field("vector").metadata)

    def model_problem(self, model: ModelSpec) -> str | None:
        """Why ``model`` may not be used here: it is not the recorded one (for an index without
        a record: its vectors have another width). None when it may."""
        return index_model_problem(self.location, self.recorded_model(), self.vector_dim(), model)

    def check_model(self, model: ModelSpec) -> None:
        problem = self.model_problem(model)
        if problem:
            raise IndexMismatchError(problem)

    def vector_dim(self) -> int | None:
        table = self.table()
        if table is None:
            return None
        return table.schema.field("vector").type.list_size

    def check_dim(self, dim: int) -> None:
        problem = dim_mismatch(self.location, self.vector_dim(), dim)
        if problem:
            raise IndexMismatchError(problem)

    def vector_index_description(self) -> str:
        """What searches the vectors: the index's type and how many rows it covers, or
        "none (flat search)"."""
        table = self.table()
        return "none (flat search)" if table is None else vector_index.describe(table)

    # -- writing ---------------------------------------------------------------------------
    def replace_source(
        self,
        doc: SourceDoc,
        chunks: Sequence[ChunkInput],
        vectors: Sequence[Sequence[float]],
        *,
        replaces: Iterable[str] = (),
    ) -> int:
        """Store ``doc`` with exactly these chunks, in one commit.

        Rows of ``doc.source`` (and of every source in ``replaces``, used for moves) that are not
        among the new chunks are deleted by the same commit.
        """
        return self.replace_sources([(doc, chunks, vectors)], replaces=replaces)

    def replace_sources(
        self,
        items: Sequence[tuple[SourceDoc, Sequence[ChunkInput], Sequence[Sequence[float]]]],
        *,
        replaces: Iterable[str] = (),
        model: ModelSpec | None = None,
    ) -> int:
        """Store several sources, each with exactly its chunks, all in one commit (a source
        of more than :data:`~minirag_index.storage.parted_write.MERGE_ROWS` chunks in two).
        ``model``, the one the vectors were made with, is checked against the index's record;
        only vectors stored with their model are found again by :meth:`vectors_for`."""
        for doc, chunks, vectors in items:
            if len(chunks) != len(vectors):
                raise ValueError("one vector per chunk is needed")
            if not chunks:
                raise ValueError(f"{doc.source}: a source needs at least one chunk")
        if not items:
            return 0
        table = self.table_for_writing(len(items[0][2][0]), model)
        return writes.replace_sources(table, items, replaces=replaces, model=model)

    def move_source(self, old: str, new: SourceDoc) -> int:
        """Give ``old``'s chunks (vectors included) to ``new.source`` in one commit."""
        return self.move_sources({old: new})

    def move_sources(self, moves: dict[str, SourceDoc]) -> int:
        """Re-key every old source's rows under its new source, all in one commit.

        Vectors, text, title, labels and signature travel with the rows; the new document's
        hash, size and mtime (when given) replace the old ones. Returns the rows moved.
        """
        self._writable()
        table = self.table()
        if table is None or not moves:
            return 0
        rows = self.rows("source IN (" + ", ".join(sql_string(s) for s in moves) + ")", None)
        return writes.move_rows(table, rows, moves)

    def set_signatures(self, signatures: dict[str, bytes]) -> None:
        """Store look-alike signatures (on each source's chunk 0) in one commit."""
        self._update_columns(
            ["source", "chunk_index"],
            {
                "source": (list(signatures), "string"),
                "chunk_index": ([0] * len(signatures), "int32"),
                "signature": (list(signatures.values()), "binary"),
            },
        )

    def set_file_stats(self, stats: Sequence[tuple[str, int, float]]) -> None:
        """Record new (size, mtime) for sources whose bytes did not change, in one commit."""
        self._update_columns(
            ["source"],
            {
                "source": ([s for s, _, _ in stats], "string"),
                "size": ([size for _, size, _ in stats], "int64"),
                "mtime": ([mtime for _, _, mtime in stats], "float64"),
            },
        )

    def _update_columns(self, keys: list[str], columns: dict[str, tuple[list[Any], str]]) -> None:
        self._writable()
        table = self.table()
        if table is not None:
            writes.update_columns(table, keys, columns)

    def update_source_fields(self, source: str, values: dict[str, Any]) -> None:
        """Rewrite metadata columns (labels, date, signature…) without touching vectors."""
        self._writable()
        table = self.table()
        if table is not None:
            writes.update_source_fields(table, source, values)

    def delete_source(self, source: str) -> int:
        self._writable()
        table = self.table()
        return 0 if table is None else writes.delete_source(table, source)

    def optimize(self) -> None:
        """Fold new rows into the keyword indexes, compact, and drop old versions (never on a
        read-only store: the writer's syncs optimise)."""
        table = None if self.read_only else self.table()
        if table is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                retry(lambda: table.optimize(cleanup_older_than=VERSION_RETENTION))
            except Exception as exc:  # a racing writer: the next optimize catches up
                log.warning("index optimisation skipped: %s", exc)
        self.warnings.extend(vector_index.ensure(table, self.vector_index_rows, retry))
        # A fresh connection lets go of what optimising left cached: without this, a long
        # sync's periodic optimisations kept about 60 MB more per 500 documents.
        self._table = None
        self._db = None

    # -- reading ---------------------------------------------------------------------------
    def count_rows(self, where: str | None = None) -> int:
        table = self.table()
        return 0 if table is None else table.count_rows(where)

    def any_row(self, where: str) -> bool:
        """Whether some row matches ``where`` (the scan stops at the first)."""
        table = self.table()
        return False if table is None else reads.any_row(table, where)

    def rows(self, where: str | None, columns: list[str] | None) -> list[dict[str, Any]]:
        table = self.table()
        return [] if table is None else reads.rows(table, where, columns)

    def column_table(self, columns: list[str], where: str | None = None) -> pa.Table | None:
        table = self.table()
        return None if table is None else reads.column_table(table, columns, where)

    def column_batches(self, columns: list[str], batch_rows: int) -> Iterator[pa.RecordBatch]:
        """Every row's ``columns``, read ``batch_rows`` at a time (nothing without a table)."""
        return self.filtered_batches(columns, None, batch_rows)

    def filtered_batches(
        self, columns: list[str], where: str | None, batch_rows: int
    ) -> Iterator[pa.RecordBatch]:
        """``columns`` of the rows matching ``where`` (every row when None), read
        ``batch_rows`` at a time; LanceDB's scalar indexes select the rows (find_mentions)."""
        table = self.table()
        return iter(()) if table is None else reads.batches(table, columns, where, batch_rows)

    def sources(self, where: str | None = None) -> dict[str, SourceInfo]:
        """Every source ``where`` selects with its metadata and chunk count."""
        table = self.table()
        return {} if table is None else reads.sources(table, where)

    def stored_twice(self, among: Collection[str]) -> set[str]:
        """Those of the file sources ``among`` holding more rows than distinct chunk numbers:
        two writers stored them at once."""
        table = self.table() if among else None
        return set() if table is None else reads.stored_twice(table, among)

    def signatures(self) -> tuple[list[tuple[str, bytes | None]], dict[str, str | None]]:
        """Each source's look-alike signature, and its document date."""
        table = self.table()
        return ([], {}) if table is None else reads.signatures(table)

    def version(self) -> int | None:
        """The table's current version (changes with every commit), None without a table."""
        table = self.table()
        return None if table is None else table.version

    def vectors_for(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vector of each of ``keys`` (passage keys) the index holds."""
        table = self.table()
        return {} if table is None else reads.vectors_for(table, keys)

    def document_pieces(self, where: str) -> Iterator[Piece]:
        """What rebuilding needs of the chunks ``where`` selects, in (section, chunk) order."""
        table = self.table()
        return iter(()) if table is None else reads.document_pieces(table, where)

    def chunks(self, where: str | None) -> list[StoredChunk]:
        """The chunks ``where`` selects (every chunk when None), in document order."""
        rows = self.rows(where, CHUNK_COLUMNS)
        rows.sort(key=lambda r: (r["source"], r["chunk_index"]))
        return [StoredChunk(**r) for r in rows]

    def vector_search(
        self,
        vector: Vector,
        limit: int,
        where: str | None,
        *,
        version: int | None = None,
        columns: list[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The ``limit`` nearest chunks among those ``where`` selects (a pre-filter), with
        ``columns`` (default: the chunk columns) and ``_distance``. ``version``: the table
        version the caller has just read, if it has."""
        table = self.table()
        if table is None:
            return []
        return self._searcher.vector(table, self._session, version, vector, limit, where, columns)

    def keyword_columns(self) -> tuple[list[str], Callable[[str], str]]:
        """The keyword-indexed columns and the query analysis for them
        (:func:`keyword_index.searchable`); none when there is no table."""
        table = self.table()
        return keyword_index.searchable(table) if table is not None else ([], str)

    def keyword_search(
        self,
        text: str,
        limit: int,
        where: str | None,
        columns: list[str] | None = None,
        *,
        searchable: tuple[list[str], Callable[[str], str]] | None = None,
    ) -> list[dict[str, Any]]:
        """BM25 over the text and title terms; rows carry ``columns`` (default: the chunk
        columns) and ``_score``. ``searchable`` is :meth:`keyword_columns` when the caller
        keeps it (it changes only with the table's version)."""
        table = self.table()
        if table is None:
            return []
        return self._searcher.keyword(table, self._session, text, limit, where, columns, searchable)
