"""The LanceDB store: one ``chunks`` table, replaced per source in one commit.

Every row is one chunk and carries its source's metadata (hash, size, mtime, title, scheme,
labels, date…; the columns are declared in :mod:`minirag_index.storage.schema`), so replacing a
source
is a single ``merge_insert``: a reader sees the old set or the new one, never a mix or a gap,
and two writers replacing the same source leave one copy. A source too large for one merge
is stored in two commits instead (:mod:`minirag_index.storage.parted_write` says what a reader
sees).

The ``vector`` column's metadata records the embedding model the vectors were made with (id,
width, prefix rule); an index refuses to mix another model's vectors or queries with them. An
index written before that record existed gets the configured model's on its next write.
"""

# Longer than 450 lines: the one class doing the table's I/O (writes with their retries, reads,
# the model record, the keyword indexes' upkeep); the schema already lives in schema.py.

from __future__ import annotations

import logging
import os
import random
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

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
from minirag_index.storage import keyword_index, mention_columns, vector_index
from minirag_index.storage.location import IndexLocation, StoreAccess
from minirag_index.storage.parted_write import is_large, store_in_parts
from minirag_index.storage.schema import (
    CHUNK_COLUMNS,
    SOURCE_COLUMNS,
    ChunkInput,
    SourceDoc,
    SourceInfo,
    SourceType,
    StoredChunk,
    arrow_schema,
    parent_id_for,
    row_id,
    rows_table,
    source_infos,
)

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
# LanceDB's default caches (1 GB of metadata, 6 GB of index data) fill with every commit's
# manifest: a 10,000-file sync grew the process by about 0.7 MB a commit. Bounded, the same
# commits stay flat (docs/benchmarks.md, "Memory"). The index cache holds the vector index's
# int8 codes as queries probe them (384 bytes a chunk at 384 dimensions): at 64 MiB a
# 300,000-chunk search re-read them every query (590 ms p50 against 29 ms at 512 MiB, issue 36).
METADATA_CACHE_BYTES = 32 * 1024 * 1024
INDEX_CACHE_BYTES = 512 * 1024 * 1024
# Old table versions are removed after this long: long enough for a reader that started on one
# to finish, short enough that the folder does not grow without bound.
VERSION_RETENTION = timedelta(minutes=2)
_COMMIT_ATTEMPTS = 8
# Stored vectors are looked up by this many passage keys per query.
LOOKUP_KEYS = 2048
PIECE_BATCH = 4096  # chunks turned into Python objects at a time when a document is rebuilt

T = TypeVar("T")


class IndexMismatchError(MiniragError, RuntimeError):
    """The index was built with another embedding model than the configured one."""


class ReadOnlyIndexError(MiniragError, RuntimeError):
    """A write was asked of a store opened read-only."""


class IndexTooOldError(MiniragError, RuntimeError):
    """A read-only store holds a table lacking columns a read needs (it is never upgraded)."""


def _is_conflict(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(word in text for word in ("conflict", "retryable", "concurrent", "commit"))


def _retry(action: Callable[[], T]) -> T:
    """Run a commit, retrying on optimistic-concurrency conflicts with jittered backoff."""
    for attempt in range(_COMMIT_ATTEMPTS):
        try:
            return action()
        except Exception as exc:
            if attempt == _COMMIT_ATTEMPTS - 1 or not _is_conflict(exc):
                raise
            time.sleep(random.uniform(0.01, 0.05) * (2**attempt))
    raise AssertionError("unreachable")


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
        self._table: Any = None
        self.warnings: list[str] = []
        #: Rows from which a writer gives the table its vector index (vector_index.py).
        self.vector_index_rows = vector_index.INDEX_ROWS
        self._partitions: tuple[int, int | None] | None = None

    # -- opening ---------------------------------------------------------------------------
    def _connect(self) -> Any:
        if self._db is None:
            import lancedb

            folder = self.location.local
            if folder is not None and not self.read_only:
                folder.mkdir(parents=True, exist_ok=True)
            caches = lancedb.Session(
                index_cache_size_bytes=INDEX_CACHE_BYTES,
                metadata_cache_size_bytes=METADATA_CACHE_BYTES,
            )
            self._db = lancedb.connect(
                self.location.address,
                read_consistency_interval=self.access.read_consistency,
                storage_options=dict(self.access.storage_options) or None,
                session=caches,
            )
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
                return table
            self._table = table
            self._ensure_text_indexes()
            self._ensure_passage_keys()
            self._ensure_mention_columns()
            self._ensure_vector_index()
        return self._table

    def _check_readable(self, table: Any) -> None:
        """A read-only open: refuse a table lacking columns reads need, and say what a
        writer's next open would upgrade (a read-only store never does)."""
        missing = [c for c in (*CHUNK_COLUMNS, *SOURCE_COLUMNS) if c not in table.schema.names]
        if missing:
            raise IndexTooOldError(
                f"the index at {self.db_path} was written by an older version and lacks the "
                f"columns {', '.join(sorted(set(missing)))}; a read-only server never upgrades "
                "an index: run a sync with this version on the writer's machine"
            )
        indexed, _ = keyword_index.searchable(table)
        if list(indexed) != list(keyword_index.TERM_COLUMNS):
            self.warnings.append(
                f"the keyword indexes of {self.db_path} are from an older version (searched "
                "as they are); the writer's next sync with this version brings them up to date"
            )

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
            self._ensure_text_indexes()
            self._ensure_mention_columns()
        if model is not None:
            self.check_model(model)
            if self.recorded_model() is None:
                update = {"path": "vector", "metadata": model_metadata(model)}
                _retry(lambda: table.update_field_metadata(update))
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

    def _ensure_text_indexes(self) -> None:
        """Bring the keyword side up to date (an older index gains it; see keyword_index.py).

        Best-effort: a read-only folder or a racing writer leaves the index as it was, with a
        warning, and search still works (on whatever keyword indexes it has).
        """
        self.warnings.extend(keyword_index.ensure_current(self._table, _retry))

    def _ensure_vector_index(self) -> None:
        """A writer's table past :attr:`vector_index_rows` rows gains its vector index (an
        index from before it included); best-effort, as the keyword upgrade."""
        self.warnings.extend(vector_index.ensure(self._table, self.vector_index_rows, _retry))

    def vector_index_description(self) -> str:
        """What searches the vectors: the index's type and how many rows it covers, or
        "none (flat search)"."""
        table = self.table()
        config = None if table is None else vector_index.vector_index(table)
        if table is None or config is None:
            return "none (flat search)"
        stats = table.index_stats(config.name)
        if stats is None:
            return str(config.index_type)
        return (
            f"{stats.index_type} ({stats.distance_type}) over {stats.num_indexed_rows:,} rows, "
            f"{stats.num_unindexed_rows:,} rows not yet in it"
        )

    def _ensure_passage_keys(self) -> None:
        """An index from before the passage keys gains the column, empty: its chunks are
        reused once they are stored again. Best-effort, as the keyword upgrade."""
        if "passage_key" in self._table.schema.names:
            return
        import pyarrow as pa

        table = self._table
        try:
            _retry(lambda: table.add_columns([pa.field("passage_key", pa.string())]))
        except Exception as exc:
            message = f"the passage keys could not be added (nothing is reused): {exc}"
            log.warning(message)
            self.warnings.append(message)

    def _ensure_mention_columns(self) -> None:
        """An index from before the find_mentions columns gains them and their index
        (mention_columns.py). Best-effort, as the keyword upgrade."""
        self.warnings.extend(mention_columns.ensure_current(self._table, _retry))

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
        ``model``,
        the one the vectors were made with, is checked against the index's record; only
        vectors stored with their model are found again by :meth:`vectors_for`."""
        for doc, chunks, vectors in items:
            if len(chunks) != len(vectors):
                raise ValueError("one vector per chunk is needed")
            if not chunks:
                raise ValueError(f"{doc.source}: a source needs at least one chunk")
        if not items:
            return 0
        table = self.table_for_writing(len(items[0][2][0]), model)
        now = time.time()
        large = [item for item in items if is_large(item[1])]
        if large:  # each in two streamed commits (parted_write.py), the rest merged as usual
            rest = [item for item in items if not is_large(item[1])]
            stored = self.replace_sources(rest, replaces=replaces, model=model) if rest else 0
            for position, item in enumerate(large):
                moved = replaces if not rest and position == 0 else ()
                stored += store_in_parts(
                    table, item, now=now, model=model, replaces=moved, retry=_retry
                )
            return stored
        owners = {doc.source for doc, _, _ in items} | set(replaces)
        where = "source IN (" + ", ".join(sql_string(s) for s in sorted(owners)) + ")"
        data = rows_table(items, now, table.schema, model)
        _retry(
            lambda: (
                table.merge_insert("id")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(where)
                .execute(data)
            )
        )
        return data.num_rows

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
        olds = "source IN (" + ", ".join(sql_string(s) for s in moves) + ")"
        rows = self.rows(olds, columns=None)
        now = time.time()
        for row in rows:
            new = moves[row["source"]]
            row.update(
                id=row_id(new.source, row["chunk_index"]),
                source=new.source,
                parent_id=parent_id_for(new.source, row["section"]),
                content_hash=new.content_hash or row["content_hash"],
                size=new.size or row["size"],
                mtime=new.mtime or row["mtime"],
                ingested_at=now,
            )
        if not rows:
            return 0
        import pyarrow as pa

        data = pa.Table.from_pylist(rows, schema=table.schema)
        news = " OR ".join(f"source = {sql_string(d.source)}" for d in moves.values())
        _retry(
            lambda: (
                table.merge_insert("id")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(f"{olds} OR {news}")
                .execute(data)
            )
        )
        return len(rows)

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
        """Overwrite only ``columns`` on the rows matching ``keys``; other columns stay."""
        self._writable()
        table = self.table()
        if table is None or not next(iter(columns.values()))[0]:
            return
        import pyarrow as pa

        data = pa.table({n: pa.array(v, getattr(pa, t)()) for n, (v, t) in columns.items()})
        _retry(lambda: table.merge_insert(keys).when_matched_update_all().execute(data))

    def update_source_fields(self, source: str, values: dict[str, Any]) -> None:
        """Rewrite metadata columns (labels, date, signature…) without touching vectors."""
        self._writable()
        table = self.table()
        if table is None:
            return
        sql = {k: _sql_literal(v) for k, v in values.items()}
        where = f"source = {sql_string(source)}"
        if "signature" in values:
            where += " AND chunk_index = 0"
        _retry(lambda: table.update(where=where, values_sql=sql))

    def delete_source(self, source: str) -> int:
        self._writable()
        table = self.table()
        if table is None:
            return 0
        where = f"source = {sql_string(source)}"
        count = table.count_rows(where)
        if count:
            _retry(lambda: table.delete(where))
        return count

    def optimize(self) -> None:
        """Fold new rows into the keyword indexes, compact, and drop old versions (never on a
        read-only store: the writer's syncs optimise)."""
        table = None if self.read_only else self.table()
        if table is None:
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                _retry(lambda: table.optimize(cleanup_older_than=VERSION_RETENTION))
            except Exception as exc:  # a racing writer: the next optimize catches up
                log.warning("index optimisation skipped: %s", exc)
        self.warnings.extend(vector_index.ensure(table, self.vector_index_rows, _retry))
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
        if table is None:
            return False
        return bool(table.search().where(where).select(["id"]).limit(1).to_arrow().num_rows)

    def rows(self, where: str | None, columns: list[str] | None) -> list[dict[str, Any]]:
        table = self.table()
        if table is None:
            return []
        query = table.search()
        if where:
            query = query.where(where)
        if columns is not None:
            query = query.select(columns)
        return query.limit(None).to_arrow().to_pylist()

    def column_table(self, columns: list[str], where: str | None = None) -> pa.Table | None:
        table = self.table()
        if table is None:
            return None
        query = table.search().select(columns)
        if where:
            query = query.where(where)
        return query.limit(None).to_arrow()

    def column_batches(self, columns: list[str], batch_rows: int) -> Iterator[pa.RecordBatch]:
        """Every row's ``columns``, read ``batch_rows`` at a time (nothing without a table)."""
        table = self.table()
        if table is None:
            return iter(())
        return iter(table.search().select(columns).limit(None).to_batches(batch_rows))

    def filtered_batches(
        self, columns: list[str], where: str | None, batch_rows: int
    ) -> Iterator[pa.RecordBatch]:
        """``columns`` of the rows matching ``where`` (every row when None), read
        ``batch_rows`` at a time; LanceDB's scalar indexes select the rows (find_mentions)."""
        table = self.table()
        if table is None:
            return iter(())
        query = table.search().select(columns)
        if where:
            query = query.where(where)
        return iter(query.limit(None).to_batches(batch_rows))

    def sources(self, where: str | None = None) -> dict[str, SourceInfo]:
        """Every source with its metadata and chunk count. The chunks are counted in Arrow
        and only each source's chunk 0 becomes Python objects: at a million chunks, every
        row's metadata as Python values took gigabytes."""
        import pyarrow.compute as pc

        data = self.column_table(["source", "chunk_index", "pages"], where)
        if data is None or data.num_rows == 0:
            return {}
        counted = data.group_by("source").aggregate([("chunk_index", "count"), ("pages", "count")])
        del data
        names = counted.column("source").to_pylist()
        count = dict(zip(names, counted.column("chunk_index_count").to_pylist(), strict=True))
        has_pages = pc.greater(counted.column("pages_count"), 0).to_pylist()
        paged = dict(zip(names, has_pages, strict=True))
        first = "chunk_index = 0" if where is None else f"({where}) AND chunk_index = 0"
        heads = self.column_table(SOURCE_COLUMNS, first)
        infos = {} if heads is None else _infos(heads)
        headless = [name for name in names if name not in infos]
        if headless:  # a source without its chunk 0 (stored before a renumbering): its first row
            rest = self.column_table(SOURCE_COLUMNS, _sources_in(headless))
            infos.update({} if rest is None else _infos(rest))
        return {
            name: replace(info, chunk_count=count[name], paged=paged[name])
            for name, info in infos.items()
            if name in count
        }

    def version(self) -> int | None:
        """The table's current version (changes with every commit), None without a table."""
        table = self.table()
        return None if table is None else table.version

    def vectors_for(self, keys: Iterable[str]) -> dict[str, np.ndarray]:
        """The stored vector of each of ``keys`` (passage keys) the index holds."""
        table = self.table()
        wanted = sorted(set(keys))
        if table is None or not wanted or "passage_key" not in table.schema.names:
            return {}
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(wanted), LOOKUP_KEYS):
            part = wanted[start : start + LOOKUP_KEYS]
            where = "passage_key IN (" + ", ".join(sql_string(k) for k in part) + ")"
            data = self.column_table(["passage_key", "vector"], where)
            if data is None or data.num_rows == 0:
                continue
            column = data.column("vector").combine_chunks()
            matrix = column.flatten().to_numpy().reshape(len(column), column.type.list_size)
            found.update(zip(data.column("passage_key").to_pylist(), matrix, strict=True))
        return found

    def document_pieces(self, where: str) -> Iterator[Piece]:
        """What rebuilding needs of the chunks ``where`` selects, in (section, chunk) order,
        turned into Python a batch at a time: a document of 50 MB costs its text in Arrow and
        the pieces, not a dict of every column per chunk."""
        data = self.column_table([*Piece._fields, "chunk_index"], where)
        if data is None:
            return
        data = data.sort_by([("section", "ascending"), ("chunk_index", "ascending")])
        for batch in data.to_batches(max_chunksize=PIECE_BATCH):
            yield from map(Piece, *(batch.column(name).to_pylist() for name in Piece._fields))

    def chunks(self, where: str) -> list[StoredChunk]:
        rows = self.rows(where, CHUNK_COLUMNS)
        rows.sort(key=lambda r: (r["source"], r["chunk_index"]))
        return [StoredChunk(**r) for r in rows]

    def vector_search(
        self, vector: Vector, limit: int, where: str | None, *, version: int | None = None
    ) -> list[dict[str, Any]]:
        """The ``limit`` nearest chunks among those ``where`` selects (a pre-filter), with
        ``_distance``. ``version``: the table version the caller has just read, if it has."""
        table = self.table()
        if table is None:
            return []
        query = table.search(list(vector), vector_column_name="vector")
        query = vector_index.tuned(query, self._index_partitions(table, version))
        if where:
            query = query.where(where, prefilter=True)
        return query.select([*CHUNK_COLUMNS, "_distance"]).limit(limit).to_arrow().to_pylist()

    def _index_partitions(self, table: Any, version: int | None) -> int | None:
        """:func:`vector_index.searched_partitions`, read once per table version."""
        version = table.version if version is None else version
        if self._partitions is None or self._partitions[0] != version:
            self._partitions = (version, vector_index.searched_partitions(table))
        return self._partitions[1]

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
        from lancedb.query import FullTextOperator, MultiMatchQuery

        table = self.table()
        if table is None:
            return []
        indexed, analyse = searchable or keyword_index.searchable(table)
        query_text = analyse(text)
        if not indexed or not query_text.strip():
            return []
        query = table.search(
            MultiMatchQuery(query_text, indexed, boosts=None, operator=FullTextOperator.OR),
            query_type="fts",
        )
        if where:
            query = query.where(where, prefilter=True)
        wanted = [*(columns or CHUNK_COLUMNS), "_score"]
        return query.select(wanted).limit(limit).to_arrow().to_pylist()


def _infos(data: pa.Table) -> dict[str, SourceInfo]:
    return source_infos({name: data.column(name).to_pylist() for name in SOURCE_COLUMNS})


def _sources_in(sources: Iterable[str]) -> str:
    return "source IN (" + ", ".join(sql_string(s) for s in sorted(sources)) + ")"


def _sql_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return sql_string(str(value))
