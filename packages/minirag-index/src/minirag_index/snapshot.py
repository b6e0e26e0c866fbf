"""One version of the chunks table held in memory for searching.

LanceDB takes 3-5 ms for any query, however few rows it reads, and a hybrid search made three of
them: the vector search, the keyword search and the read of the hit sections. With the vectors
and chunk rows of the current table version in memory, the vector search is one matrix product
and the sections are a lookup; only the keyword search still goes to LanceDB. On the XQuAD
index that took query p50 from 18 to about 8 ms (docs/benchmarks.md).

A snapshot is built on the first search after the table changes. It holds every vector (about
1.5 KB a chunk at 384 dimensions), so the index keeps one only while the vectors fit
``MiniragIndex.snapshot_budget`` (256 MiB by default) and searches LanceDB directly past that.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from minirag_index.scope import in_scope
from minirag_index.store import CHUNK_COLUMNS, StoredChunk

if TYPE_CHECKING:
    from minirag_index.store import Vector

SNAPSHOT_COLUMNS = [*CHUNK_COLUMNS, "id", "vector"]


def fits(rows: int, dim: int, budget: int) -> bool:
    """True when ``rows`` float32 vectors of width ``dim`` stay within ``budget`` bytes."""
    return rows * dim * 4 <= budget


@dataclass
class Snapshot:
    rows: pa.Table  # CHUNK_COLUMNS, one row per chunk
    vectors: np.ndarray  # (rows, dim) float32, same order
    squared_norms: np.ndarray
    position_of_id: dict[str, int]
    source_names: list[str]
    source_codes: np.ndarray  # rows -> index into source_names
    positions_of_parent: dict[str, list[int]]

    @classmethod
    def from_table(cls, table: pa.Table) -> Snapshot:
        """``table`` holds SNAPSHOT_COLUMNS, as ``Store.column_table`` reads them."""
        column = table["vector"].combine_chunks()
        dim = column.type.list_size
        flat = column.flatten().to_numpy(zero_copy_only=False)
        vectors = np.ascontiguousarray(flat, dtype=np.float32).reshape(len(table), dim)
        encoded = pc.dictionary_encode(table["source"]).combine_chunks()
        parents: dict[str, list[int]] = {}
        for position, parent in enumerate(table["parent_id"].to_pylist()):
            parents.setdefault(parent, []).append(position)
        return cls(
            rows=table.select(CHUNK_COLUMNS).combine_chunks(),
            vectors=vectors,
            squared_norms=np.einsum("ij,ij->i", vectors, vectors),
            position_of_id={key: i for i, key in enumerate(table["id"].to_pylist())},
            source_names=encoded.dictionary.to_pylist(),
            source_codes=encoded.indices.to_numpy(zero_copy_only=False),
            positions_of_parent=parents,
        )

    def __len__(self) -> int:
        return self.rows.num_rows

    def allowed(self, scope: str | None, sources: Collection[str] | None) -> np.ndarray | None:
        """Which rows a search under ``scope`` limited to ``sources`` may return (None: all)."""
        if not scope and sources is None:
            return None
        keep = np.fromiter(
            (
                in_scope(name, scope) and (sources is None or name in sources)
                for name in self.source_names
            ),
            dtype=bool,
            count=len(self.source_names),
        )
        return keep[self.source_codes]

    def nearest(
        self, vector: Vector, limit: int, allowed: np.ndarray | None = None
    ) -> list[dict[str, Any]]:
        """The ``limit`` rows closest to ``vector`` by squared L2 distance (LanceDB's default
        metric, so ``_distance`` means what it means in a LanceDB vector search)."""
        query = np.asarray(vector, dtype=np.float32)
        distances = self.squared_norms - 2.0 * (self.vectors @ query) + float(query @ query)
        np.maximum(distances, 0.0, out=distances)
        candidates = np.arange(len(self)) if allowed is None else np.flatnonzero(allowed)
        if limit <= 0 or candidates.size == 0:
            return []
        if candidates.size > limit:
            part = np.argpartition(distances[candidates], limit - 1)[:limit]
            candidates = candidates[part]
        ordered = candidates[np.argsort(distances[candidates], kind="stable")]
        rows = self.rows_at(ordered)
        for row, position in zip(rows, ordered, strict=True):
            row["_distance"] = float(distances[position])
        return rows

    def rows_at(self, positions: Sequence[int] | np.ndarray) -> list[dict[str, Any]]:
        if len(positions) == 0:
            return []
        return self.rows.take(pa.array(positions, type=pa.int64())).to_pylist()

    def rows_by_id(self, scored: Sequence[tuple[str, float]]) -> list[dict[str, Any]]:
        """Keyword hits (id, score) as rows with ``_score``; ids this version lacks are left
        out (the table changed between the two reads)."""
        looked_up = [(self.position_of_id.get(key), score) for key, score in scored]
        found = [(p, s) for p, s in looked_up if p is not None]
        rows = self.rows_at([p for p, _ in found])
        for row, (_, score) in zip(rows, found, strict=True):
            row["_score"] = score
        return rows

    def section_chunks(self, parent_id: str) -> list[StoredChunk]:
        """The chunks of one section in chunk order; empty if the section is unknown."""
        positions = self.positions_of_parent.get(parent_id, [])
        chunks = [StoredChunk(**row) for row in self.rows_at(positions)]
        chunks.sort(key=lambda c: c.chunk_index)
        return chunks
