"""Sources stored by a streamed append and a delete, where one merge would cost too much.

A source's rows are normally replaced by one ``merge_insert`` (:mod:`.writes`): one commit, so
a reader sees the old rows or the new ones. That merge has two costs that grow:

- it holds all of its input in memory, about 4 KB a row beyond the rows themselves
  (docs/security.md): one text of a hundred thousand chunks took gigabytes;
- its "not matched by source" side, which finds the old rows to delete, reads every row of the
  table, vectors included: at a million chunks each merge took 1.9 GB and a second however few
  rows it stored (docs/benchmarks.md, the writer's memory at a million chunks).

So when a source has more than :data:`MERGE_ROWS` chunks, or the table holds more than
:data:`MERGE_TABLE_ROWS` rows, the sources are stored in two commits instead:

1. their new rows appended, built and written :data:`APPEND_ROWS` at a time;
2. their rows older than those deleted (and every row of the sources they ``replace``). The
   delete finds them through the ``source`` column's index, reading nothing else.

A reader sees the old version, then both versions of those documents for the moment between
the two commits, then the new one: never a gap, and never a mix of two versions' chunks in one
version's place. A crash between the commits leaves both versions, which the next sync notices
(more rows than distinct chunk numbers, :meth:`MiniragIndex.stored_twice`) and repairs. Two
writers storing the same source at once each delete, after their append, every row older than
the newest version present, so the rows of the one that started last remain.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from minirag_index.embedding.model_spec import ModelSpec
from minirag_index.storage.reads import sources_in
from minirag_index.storage.schema import ChunkInput, SourceDoc, rows_table

if TYPE_CHECKING:
    import pyarrow as pa

# Sources with more chunks than this are stored in parts. One merge of this many rows holds
# about 130 MB; the sync's batches (512 chunks) stay far below it.
MERGE_ROWS = 20_000
# Tables with more rows than this are written in parts: below it a merge reads at most about
# 100 MB of the table (1.9 KB a row measured at a million chunks) and keeps its one commit.
MERGE_TABLE_ROWS = 50_000
APPEND_ROWS = 4_096

Item = tuple[SourceDoc, Sequence[ChunkInput], Sequence[Any]]


def is_large(chunks: Sequence[ChunkInput]) -> bool:
    return len(chunks) > MERGE_ROWS


def in_parts(table: Any, items: Sequence[Item]) -> bool:
    """Whether ``items`` are stored in two commits rather than merged (see the module)."""
    return any(is_large(chunks) for _, chunks, _ in items) or large_table(table)


def large_table(table: Any) -> bool:
    """Whether a merge into ``table`` would read too much of it (see the module)."""
    return int(table.count_rows()) > MERGE_TABLE_ROWS


def store_in_parts(
    table: Any,
    items: Sequence[Item],
    *,
    now: float,
    model: ModelSpec | None,
    replaces: Iterable[str] = (),
    retry: Callable[[Callable[[], Any]], Any],
) -> int:
    """Store ``items`` as described above; the number of rows stored."""
    schema = table.schema

    def batches() -> Iterator[pa.RecordBatch]:
        for part, first in _parts(items):
            yield from rows_table(part, now, schema, model, first_index=first).to_batches()

    rows = sum(len(chunks) for _, chunks, _ in items)
    append_then_delete(
        table,
        batches if rows else None,
        sources=[doc.source for doc, _, _ in items],
        now=now,
        replaces=replaces,
        retry=retry,
    )
    return rows


def append_then_delete(
    table: Any,
    batches: Callable[[], Iterator[pa.RecordBatch]] | None,
    *,
    sources: Collection[str],
    now: float,
    replaces: Iterable[str],
    retry: Callable[[Callable[[], Any]], Any],
) -> None:
    """Append the rows ``batches`` yields (stored at ``now``, of ``sources``; None: no rows),
    then delete the rows of ``sources`` older than their newest version and every row of
    ``replaces``."""
    import pyarrow as pa

    if batches is not None:
        reader = batches
        retry(lambda: table.add(pa.RecordBatchReader.from_batches(table.schema, reader())))
    older = _older_rows(_newest_versions(table, sources), now, set(replaces) - set(sources))
    if older:
        retry(lambda: table.delete(older))


def _parts(items: Sequence[Item]) -> Iterator[tuple[list[Item], int]]:
    """Groups of whole items of at most :data:`APPEND_ROWS` rows, and slices of larger
    items, each with the chunk number its items start at."""
    group: list[Item] = []
    rows = 0
    for doc, chunks, vectors in items:
        if group and rows + len(chunks) > APPEND_ROWS:
            yield group, 0
            group, rows = [], 0
        if len(chunks) <= APPEND_ROWS:
            group.append((doc, chunks, vectors))
            rows += len(chunks)
            continue
        for start in range(0, len(chunks), APPEND_ROWS):
            end = start + APPEND_ROWS
            yield [(doc, chunks[start:end], vectors[start:end])], start
    if group:
        yield group, 0


def _newest_versions(table: Any, sources: Collection[str]) -> dict[str, float]:
    """When the newest rows of each of ``sources`` now in the table were stored.

    A writer's own clock does not order the commits: a writer that started first may append
    after another has already deleted what was older than its own rows, and then neither
    delete removes the other's copy. So each deletes what is older than the newest version it
    finds after its append, and the last writer to start wins whatever the commit order."""
    if not sources:
        return {}
    found = (
        table.search()
        .where(sources_in(set(sources)))
        .select(["source", "ingested_at"])
        .limit(None)
        .to_arrow()
    )
    if found.num_rows == 0:
        return {}
    newest = found.group_by("source").aggregate([("ingested_at", "max")])
    names = newest.column("source").to_pylist()
    return dict(zip(names, newest.column("ingested_at_max").to_pylist(), strict=True))


def _older_rows(newest: dict[str, float], now: float, replaced: Collection[str]) -> str | None:
    """The SQL condition selecting each source's rows older than its newest version (never
    newer than ``now``'s), and every row of ``replaced``; None when it selects nothing."""
    by_cutoff: dict[float, list[str]] = {}
    for source, stored in sorted(newest.items()):
        by_cutoff.setdefault(max(now, float(stored)), []).append(source)
    terms = [f"({sources_in(names)} AND ingested_at < {at!r})" for at, names in by_cutoff.items()]
    if replaced:
        terms.append(sources_in(replaced))
    return " OR ".join(terms) or None
