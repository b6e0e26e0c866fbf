"""A source too large for one merge, stored by one streamed append and one delete.

LanceDB's ``merge_insert`` holds all of its input in memory: about 4 KB a row beyond the rows
themselves (docs/security.md), so one text of a hundred thousand chunks took gigabytes in the
commit alone. An append streams its input. A source of more than :data:`MERGE_ROWS` chunks is
therefore stored in two commits:

1. its new rows appended, built and written :data:`APPEND_ROWS` at a time;
2. its rows older than those deleted (and every row of the sources it ``replaces``).

A reader sees the old version, then both versions of that one document for the moment between
the two commits, then the new one: never a gap, and never a mix of two versions' chunks in one
version's place. A crash between the commits leaves both versions, which the next sync notices
(more rows than distinct chunk numbers, :meth:`MiniragIndex.stored_twice`) and repairs. Two
writers storing the same source at once each delete, after their append, every row older than
the newest version present, so the rows of the one that started last remain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from minirag_index.embedding.model_spec import ModelSpec
from minirag_index.search.scope import sql_string
from minirag_index.storage.schema import ChunkInput, SourceDoc, rows_table

if TYPE_CHECKING:
    import pyarrow as pa

# Sources with more chunks than this are stored in parts. One merge of this many rows holds
# about 130 MB; the sync's batches (512 chunks) stay far below it.
MERGE_ROWS = 20_000
APPEND_ROWS = 4_096


def is_large(chunks: Sequence[ChunkInput]) -> bool:
    return len(chunks) > MERGE_ROWS


def store_in_parts(
    table: Any,
    item: tuple[SourceDoc, Sequence[ChunkInput], Sequence[Any]],
    *,
    now: float,
    model: ModelSpec | None,
    replaces: Iterable[str] = (),
    retry: Callable[[Callable[[], Any]], Any],
) -> int:
    """Store one source's rows as described above; the number of rows stored."""
    doc, chunks, vectors = item
    schema = table.schema

    def batches() -> Iterator[pa.RecordBatch]:
        for start in range(0, len(chunks), APPEND_ROWS):
            end = start + APPEND_ROWS
            part = (doc, chunks[start:end], vectors[start:end])
            yield from rows_table([part], now, schema, model, first_index=start).to_batches()

    def append() -> None:
        import pyarrow as pa

        table.add(pa.RecordBatchReader.from_batches(schema, batches()))

    retry(append)
    newest = max(now, _newest_version(table, doc.source))
    older = f"(source = {sql_string(doc.source)} AND ingested_at < {newest!r})"
    others = sorted(set(replaces) - {doc.source})
    if others:
        older += " OR source IN (" + ", ".join(sql_string(s) for s in others) + ")"
    retry(lambda: table.delete(older))
    return len(chunks)


def _newest_version(table: Any, source: str) -> float:
    """When the newest rows of ``source`` now in the table were stored.

    A writer's own clock does not order the commits: a writer that started first may append
    after another has already deleted what was older than its own rows, and then neither
    delete removes the other's copy. So each deletes what is older than the newest version it
    finds after its append, and the last writer to start wins whatever the commit order."""
    import pyarrow.compute as pc

    found = (
        table.search()
        .where(f"source = {sql_string(source)}")
        .select(["ingested_at"])
        .limit(None)
        .to_arrow()
    )
    newest = pc.max(found["ingested_at"]).as_py() if found.num_rows else None
    return float(newest) if newest is not None else 0.0
