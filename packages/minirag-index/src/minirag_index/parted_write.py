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
writers storing the same source at once each delete only rows older than their own, so the
later one's rows remain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from minirag_index.model_spec import ModelSpec
from minirag_index.schema import ChunkInput, SourceDoc, rows_table
from minirag_index.scope import sql_string

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
    older = f"(source = {sql_string(doc.source)} AND ingested_at < {now!r})"
    others = sorted(set(replaces) - {doc.source})
    if others:
        older += " OR source IN (" + ", ".join(sql_string(s) for s in others) + ")"
    retry(lambda: table.delete(older))
    return len(chunks)
