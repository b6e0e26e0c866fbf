"""Changing the chunks table's rows, each change one commit: a source's chunks replaced, sources
moved to new names, some columns of some rows rewritten, a source deleted.

Each function takes the open LanceDB table (the store checks first that it may write) and
commits through :func:`minirag_index.storage.commits.retry`.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from minirag_index.embedding.model_spec import ModelSpec
from minirag_index.search.scope import sql_string
from minirag_index.storage.commits import retry
from minirag_index.storage.parted_write import (
    append_then_delete,
    in_parts,
    large_table,
    store_in_parts,
)
from minirag_index.storage.schema import (
    ChunkInput,
    SourceDoc,
    parent_id_for,
    row_id,
    rows_table,
)

Item = tuple[SourceDoc, Sequence[ChunkInput], Sequence[Sequence[float]]]


def replace_sources(
    table: Any, items: Sequence[Item], *, replaces: Iterable[str], model: ModelSpec | None
) -> int:
    """Store ``items``, each source with exactly its chunks, in one commit (in two when a
    source or the table is large: :mod:`minirag_index.storage.parted_write`); rows of their
    sources and of ``replaces`` that are not among the new chunks are deleted by it."""
    now = time.time()
    if in_parts(table, items):
        return store_in_parts(table, items, now=now, model=model, replaces=replaces, retry=retry)
    owners = {doc.source for doc, _, _ in items} | set(replaces)
    where = "source IN (" + ", ".join(sql_string(s) for s in sorted(owners)) + ")"
    data = rows_table(items, now, table.schema, model)
    retry(
        lambda: (
            table.merge_insert("id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(where)
            .execute(data)
        )
    )
    return int(data.num_rows)


def move_rows(table: Any, rows: list[dict[str, Any]], moves: dict[str, SourceDoc]) -> int:
    """Re-key ``rows`` (every column of the old sources' rows) under their new sources, and
    delete what is left of the old ones, in one commit (two in a large table, as
    :mod:`minirag_index.storage.parted_write` stores). Returns the rows moved."""
    if not rows:
        return 0
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
    import pyarrow as pa

    data = pa.Table.from_pylist(rows, schema=table.schema)
    if large_table(table):
        targets = [doc.source for doc in moves.values()]
        batches = data.to_batches
        append_then_delete(
            table, lambda: iter(batches()), sources=targets, now=now, replaces=moves, retry=retry
        )
        return len(rows)
    olds = "source IN (" + ", ".join(sql_string(s) for s in moves) + ")"
    news = " OR ".join(f"source = {sql_string(d.source)}" for d in moves.values())
    retry(
        lambda: (
            table.merge_insert("id")
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .when_not_matched_by_source_delete(f"{olds} OR {news}")
            .execute(data)
        )
    )
    return len(rows)


def update_columns(table: Any, keys: list[str], columns: dict[str, tuple[list[Any], str]]) -> None:
    """Overwrite only ``columns`` (values and Arrow type name) on the rows matching ``keys``;
    other columns stay."""
    if not next(iter(columns.values()))[0]:
        return
    import pyarrow as pa

    data = pa.table({n: pa.array(v, getattr(pa, t)()) for n, (v, t) in columns.items()})
    retry(lambda: table.merge_insert(keys).when_matched_update_all().execute(data))


def update_source_fields(table: Any, source: str, values: dict[str, Any]) -> None:
    """Rewrite metadata columns (labels, date, signature…) without touching vectors."""
    sql = {k: sql_literal(v) for k, v in values.items()}
    where = f"source = {sql_string(source)}"
    if "signature" in values:
        where += " AND chunk_index = 0"
    retry(lambda: table.update(where=where, values_sql=sql))


def delete_source(table: Any, source: str) -> int:
    """Delete every row of ``source``; returns how many there were."""
    where = f"source = {sql_string(source)}"
    count = int(table.count_rows(where))
    if count:
        retry(lambda: table.delete(where))
    return count


def sql_literal(value: Any) -> str:
    """``value`` as an SQL literal for an update."""
    if value is None:
        return "NULL"
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return sql_string(str(value))
