"""Reading the chunks table: rows and columns, every source's metadata, stored vectors, the
pieces a document is rebuilt from (the searches themselves are in
:mod:`minirag_index.storage.searches`).

Each function takes the open LanceDB table (:meth:`minirag_index.storage.store.Store.table`);
the store answers "nothing" itself when there is no table yet.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from minirag_index.search.reconstruct import Piece
from minirag_index.search.scope import sql_string
from minirag_index.storage.schema import SOURCE_COLUMNS, SourceInfo, source_infos

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa

# Stored vectors are looked up by this many passage keys per query.
LOOKUP_KEYS = 2048
PIECE_BATCH = 4096  # chunks turned into Python objects at a time when a document is rebuilt


def rows(table: Any, where: str | None, columns: list[str] | None) -> list[dict[str, Any]]:
    """The rows ``where`` selects (every row when None), with ``columns`` (None: all)."""
    query = table.search()
    if where:
        query = query.where(where)
    if columns is not None:
        query = query.select(columns)
    result: list[dict[str, Any]] = query.limit(None).to_arrow().to_pylist()
    return result


def any_row(table: Any, where: str) -> bool:
    """Whether some row matches ``where`` (the scan stops at the first)."""
    return bool(table.search().where(where).select(["id"]).limit(1).to_arrow().num_rows)


def column_table(table: Any, columns: list[str], where: str | None = None) -> pa.Table:
    """``columns`` of the rows ``where`` selects, as one Arrow table."""
    query = table.search().select(columns)
    if where:
        query = query.where(where)
    return query.limit(None).to_arrow()


def batches(
    table: Any, columns: list[str], where: str | None, batch_rows: int
) -> Iterator[pa.RecordBatch]:
    """``columns`` of the rows ``where`` selects, ``batch_rows`` at a time."""
    query = table.search().select(columns)
    if where:
        query = query.where(where)
    return iter(query.limit(None).to_batches(batch_rows))


def sources(table: Any, where: str | None = None) -> dict[str, SourceInfo]:
    """Every source with its metadata and chunk count. The chunks are counted in Arrow
    and only each source's chunk 0 becomes Python objects: at a million chunks, every
    row's metadata as Python values took gigabytes."""
    import pyarrow.compute as pc

    data = column_table(table, ["source", "chunk_index", "pages"], where)
    if data.num_rows == 0:
        return {}
    counted = data.group_by("source").aggregate([("chunk_index", "count"), ("pages", "count")])
    del data
    names = counted.column("source").to_pylist()
    count = dict(zip(names, counted.column("chunk_index_count").to_pylist(), strict=True))
    has_pages = pc.greater(counted.column("pages_count"), 0).to_pylist()
    paged = dict(zip(names, has_pages, strict=True))
    first = "chunk_index = 0" if where is None else f"({where}) AND chunk_index = 0"
    infos = _infos(column_table(table, SOURCE_COLUMNS, first))
    headless = [name for name in names if name not in infos]
    if headless:  # a source without its chunk 0 (stored before a renumbering): its first row
        infos.update(_infos(column_table(table, SOURCE_COLUMNS, sources_in(headless))))
    return {
        name: replace(info, chunk_count=count[name], paged=paged[name])
        for name, info in infos.items()
        if name in count
    }


def stored_twice(table: Any, among: Collection[str]) -> set[str]:
    """Those of the file sources ``among`` holding more rows than distinct chunk numbers."""
    data = column_table(table, ["source", "chunk_index"], "source_type = 'file'")
    if data.num_rows == 0:
        return set()
    grouped = data.group_by("source").aggregate(
        [("chunk_index", "count"), ("chunk_index", "count_distinct")]
    )
    names = grouped.column("source").to_pylist()
    counts = grouped.column("chunk_index_count").to_pylist()
    distinct = grouped.column("chunk_index_count_distinct").to_pylist()
    wanted = set(among)
    counted = zip(names, counts, distinct, strict=True)
    return {source for source, n, d in counted if n != d and source in wanted}


def signatures(table: Any) -> tuple[list[tuple[str, bytes | None]], dict[str, str | None]]:
    """Each source's look-alike signature and its document date (from its chunk 0)."""
    data = column_table(table, ["source", "signature", "doc_date"], "chunk_index = 0")
    names = data.column("source").to_pylist()
    signed = list(zip(names, data.column("signature").to_pylist(), strict=True))
    return signed, dict(zip(names, data.column("doc_date").to_pylist(), strict=True))


def vectors_for(table: Any, keys: Iterable[str]) -> dict[str, np.ndarray]:
    """The stored vector of each of ``keys`` (passage keys) the index holds."""
    wanted = sorted(set(keys))
    if not wanted or "passage_key" not in table.schema.names:
        return {}
    found: dict[str, np.ndarray] = {}
    for start in range(0, len(wanted), LOOKUP_KEYS):
        part = wanted[start : start + LOOKUP_KEYS]
        where = "passage_key IN (" + ", ".join(sql_string(k) for k in part) + ")"
        data = column_table(table, ["passage_key", "vector"], where)
        if data.num_rows == 0:
            continue
        column = data.column("vector").combine_chunks()
        matrix = column.flatten().to_numpy().reshape(len(column), column.type.list_size)
        found.update(zip(data.column("passage_key").to_pylist(), matrix, strict=True))
    return found


def document_pieces(table: Any, where: str) -> Iterator[Piece]:
    """What rebuilding needs of the chunks ``where`` selects, in (section, chunk) order,
    turned into Python a batch at a time: a document of 50 MB costs its text in Arrow and
    the pieces, not a dict of every column per chunk."""
    data = column_table(table, [*Piece._fields, "chunk_index"], where)
    data = data.sort_by([("section", "ascending"), ("chunk_index", "ascending")])
    for batch in data.to_batches(max_chunksize=PIECE_BATCH):
        yield from map(Piece, *(batch.column(name).to_pylist() for name in Piece._fields))


def sources_in(names: Iterable[str]) -> str:
    """The filter selecting the rows of ``names``."""
    return "source IN (" + ", ".join(sql_string(s) for s in sorted(names)) + ")"


def _infos(data: pa.Table) -> dict[str, SourceInfo]:
    return source_infos({name: data.column(name).to_pylist() for name in SOURCE_COLUMNS})
