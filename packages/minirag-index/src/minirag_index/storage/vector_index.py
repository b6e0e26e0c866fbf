"""The vector index of the ``chunks`` table: LanceDB's own, made by the writer past a size.

Below :data:`INDEX_ROWS` chunks a search compares the query with every stored vector (LanceDB's
flat search: exact, and fast enough at that size). Once a writer opens or optimises a table
holding at least that many rows it creates an IVF_SQ index on ``vector`` with the table's
metric, squared L2 (so ``_distance``, RAG_MAX_DISTANCE and grouping keep their meaning), and
BTREE indexes on the lookup columns. Each sync's ``optimize()`` folds the rows added since into
them, and until then LanceDB searches those rows flat beside the index, so a search never
misses them. The IVF partitions are trained once for the table's size; only when the table has
grown to :data:`REGROW` times the rows its partitions were made for is the index trained again
(so a table growing from the threshold to a million chunks is re-trained a few times in all,
never per sync), and when :data:`MAX_SEGMENTS` optimisations have each left their rows in a
segment of their own. A read-only store never creates, optimises or updates any of them.

The index is made with LanceDB's ``target_partition_size`` (rows per partition), not a partition
count: LanceDB's ``optimize()`` joins partitions it finds small for the target the index
records, and an index made with only ``num_partitions`` records LanceDB's default target, so
its first optimise joined a million rows' 976 partitions into 31 (every search then compared
all the rows). An index of this module's recording no target is made again by the writer
(:func:`outdated`); a reader searches it as it is.

A search through the index probes :data:`PROBE_SHARE` of its partitions, at least
:data:`MIN_PROBES` (on vectors drawn like real embeddings, the share probed decides recall; the
int8 codes barely lose any), all of them when a filter left fewer than ``limit`` rows in those
(:func:`minirag_index.storage.searches.vector_search`), and re-ranks its ``limit`` candidates
with their full vectors, so the distances it returns are exact. The figures behind these
choices (recall@10 against an exact search, on vectors drawn like real embeddings, and the
index kinds compared at a million chunks) are in docs/benchmarks.md, "Search".
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, Literal

from minirag_index.storage.commits import best_effort

#: Rows from which the writer indexes the vectors (see the module's text).
INDEX_ROWS = 20_000
INDEX_NAME = "vector_idx_p"  # + the number of partitions it was trained with
INDEX_TYPE = "IVF_SQ"
METRIC: Literal["l2"] = "l2"  # LanceDB's default for a vector search: squared Euclidean distance
#: Rows per IVF partition the index is trained for, and at most this many partitions.
PARTITION_ROWS = 1_024
MAX_PARTITIONS = 1_024
#: The table's rows over what its partitions were trained for that trains them again.
REGROW = 4
#: Index segments past which the writer trains the index again: each optimise that adds rows
#: leaves them in a segment of their own (LanceDB's delta index), and a search probes every
#: segment (15 segments cost a 60,000-row table's search a third more).
MAX_SEGMENTS = 10
#: The share of partitions probed per query, and the candidates re-ranked with the exact
#: vectors (times the limit: 1 re-ranks the ones returned, so their distances are exact).
#: At least MIN_PROBES: 18% of a 100,000-chunk index's 97 partitions (20 probes) had recall@10
#: 0.90 against an exact search (bench/scale.py), 40 probes 0.98 for 1.4 ms more per search.
PROBE_SHARE = 0.18
MIN_PROBES = 40
REFINE_FACTOR = 1
# LanceDB names them IVF_PQ when creating, IvfPq when listing.
#: Columns a large table indexes for lookups: a document's chunks (read_file, neighbours, each
#: write's replacement) and a section's (the sections a search returns).
LOOKUP_COLUMNS = ("source", "parent_id")
_VECTOR_TYPES = {"IVFPQ", "IVFSQ", "IVFFLAT", "IVFRQ", "IVFHNSWSQ", "IVFHNSWPQ", "IVFHNSWFLAT"}


def vector_index(table: Any) -> Any | None:
    """The table's index on ``vector``, if it has one (LanceDB's ``IndexConfig``)."""
    for config in table.list_indices():
        kind = str(config.index_type).upper().replace("_", "")
        if list(config.columns) == ["vector"] and kind in _VECTOR_TYPES:
            return config
    return None


def ensure(table: Any, min_rows: int, retry: Callable[[Callable[[], None]], None]) -> list[str]:
    """Create the vector index, and the lookup indexes of :data:`LOOKUP_COLUMNS`, when the
    table lacks them and holds at least ``min_rows`` rows (the writer's part: never called on
    a read-only store). Returns warnings, as the keyword upgrade does: a failure leaves the
    table searched without them, which is slower, never wrong."""

    def upgrade() -> None:
        indexed = {tuple(config.columns) for config in table.list_indices()}
        lookups = [column for column in LOOKUP_COLUMNS if (column,) not in indexed]
        current = vector_index(table)
        rows = table.count_rows()
        if rows < min_rows:
            return
        if (
            current is None
            or outdated(current)
            or trained_for(current.name) * REGROW <= partitions(rows)
            or segments(table, current.name) > MAX_SEGMENTS
        ):
            retry(lambda: create(table, rows))
        for column in lookups:
            retry(functools.partial(_lookup_index, table, column))

    return best_effort(upgrade, "the vector index could not be created (searched without it)")


def _lookup_index(table: Any, column: str) -> None:
    from lancedb.index import BTree

    table.create_index(column, config=BTree(), name=f"{column}_idx", replace=False)


def create(table: Any, rows: int, index_type: str = INDEX_TYPE) -> None:
    """Train the index on the table's ``rows`` vectors (replacing any it has)."""
    from lancedb.index import HnswSq, IvfPq, IvfSq

    old = vector_index(table)
    count = partitions(rows)
    size = max(PARTITION_ROWS, math.ceil(rows / count))  # LanceDB makes rows / size of them
    config: Any
    if index_type == "IVF_PQ":
        dim = table.schema.field("vector").type.list_size
        config = IvfPq(METRIC, target_partition_size=size, num_sub_vectors=sub_vectors(dim))
    elif index_type == "IVF_SQ":
        config = IvfSq(METRIC, target_partition_size=size)
    elif index_type == "IVF_HNSW_SQ":
        config = HnswSq(METRIC, target_partition_size=size)
    else:
        raise ValueError(f"not a vector index this module makes: {index_type}")
    name = f"{INDEX_NAME}{count}"
    table.create_index("vector", config=config, name=name, replace=True)
    if old is not None and old.name != name and old.name in {c.name for c in table.list_indices()}:
        table.drop_index(old.name)  # trained for a smaller table: its successor replaces it


def segments(table: Any, name: str) -> int:
    """How many segments (the first and its deltas) the index ``name`` is made of."""
    stats = table.index_stats(name)
    return 1 if stats is None else int(stats.num_indices or 1)


def outdated(config: Any) -> bool:
    """Whether an index of this module's was made without a ``target_partition_size``, which
    LanceDB's optimise then shrinks to a few huge partitions (see the module's text)."""
    details = getattr(config, "index_details", None) or {}
    made_here = trained_for(config.name) != _NOT_OURS
    return made_here and "target_partition_size" not in details


def partitions(rows: int) -> int:
    """IVF partitions for a table of ``rows`` rows."""
    return max(1, min(MAX_PARTITIONS, rows // PARTITION_ROWS))


def trained_for(name: str) -> int:
    """The partitions an index of this module's was trained with (from its name); a large
    number for an index made otherwise, which is then left as it is."""
    number = name.removeprefix(INDEX_NAME)
    return int(number) if name.startswith(INDEX_NAME) and number.isdigit() else _NOT_OURS


_NOT_OURS = 10**9


def sub_vectors(dim: int) -> int:
    """PQ sub-vectors: 8 dimensions each where the width allows (384 -> 48)."""
    for width in (8, 16, 4, 2, 1):
        if dim % width == 0:
            return dim // width
    return 1


def tuned(query: Any, partitions: int | None, everywhere: bool = False) -> Any:
    """A vector query with the search parameters of an index of ``partitions`` partitions:
    :func:`probes` of them, or all of them when ``everywhere`` (a filter too narrow for the
    probed ones); None: the table has no index of this module's, LanceDB's defaults."""
    if partitions is None:
        return query
    # nprobes sets LanceDB's minimum and maximum alike: with a higher maximum it searched
    # every partition even when the first ones held enough rows.
    query = query.nprobes(partitions if everywhere else probes(partitions))
    return query.refine_factor(REFINE_FACTOR)


def probes(partitions: int) -> int:
    return min(partitions, max(MIN_PROBES, math.ceil(partitions * PROBE_SHARE)))


def searched_partitions(table: Any) -> int | None:
    """The partitions of the table's vector index when this module made it, else None."""
    config = vector_index(table)
    if config is None:
        return None
    count = trained_for(config.name)
    return None if count == _NOT_OURS else count


def describe(table: Any) -> str:
    """What searches the vectors: the index's type and how many rows it covers, or
    "none (flat search)"."""
    config = vector_index(table)
    if config is None:
        return "none (flat search)"
    stats = table.index_stats(config.name)
    if stats is None:
        return str(config.index_type)
    return (
        f"{stats.index_type} ({stats.distance_type}) over {stats.num_indexed_rows:,} rows, "
        f"{stats.num_unindexed_rows:,} rows not yet in it"
    )
