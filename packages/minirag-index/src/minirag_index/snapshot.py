"""One version of the chunks table held for searching, small in memory.

LanceDB takes 3-5 ms for any query, however few rows it reads, and a hybrid search made three of
them: the vector search, the keyword search and the read of the hit sections. With the current
table version held here, the vector search is a scan in memory and the sections are a lookup;
only the keyword search still goes to LanceDB. On the XQuAD index that took query p50 from 18
to about 8 ms (docs/benchmarks.md).

What is held in memory is what every search touches: each vector as one byte per dimension
(:mod:`minirag_index.vector_codes`) and the short columns (source, title, section, parentId…)
dictionary-encoded as numpy arrays. What a search reads for a few rows only - the chunk texts
and the exact float32 vectors - is written to an anonymous file and read back by offset
(:mod:`minirag_index.spill`). At 100k chunks of 384 dimensions that holds about 40 MiB instead
of 290 (float32 vectors, Arrow rows and Python dicts before).

The vector side ranks every allowed row by its codes, takes a pool a few times the size asked
for, and ranks the pool again by the exact float32 vectors, so the distances returned are the
ones the old float32 snapshot and LanceDB compute.

A snapshot is built on the first search after the table changes, only while the rows fit
``MiniragIndex.snapshot_budget`` (past that the index searches LanceDB directly).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from minirag_index.scope import in_scope
from minirag_index.spill import Spill
from minirag_index.store import CHUNK_COLUMNS, StoredChunk
from minirag_index.vector_codes import approximate_dots, quantize_rows

if TYPE_CHECKING:
    from minirag_index.store import Vector

SNAPSHOT_COLUMNS = [*CHUNK_COLUMNS, "id", "vector"]
READ_BATCH_ROWS = 4096  # rows read from LanceDB at a time while building
_STRINGS = ("source", "title", "parent_id", "joiner", "pages")  # dictionary-encoded
_NUMBERS = ("chunk_index", "section", "context_chars")


def fits(rows: int, dim: int, budget: int) -> bool:
    """True when ``rows`` float32 vectors of width ``dim`` stay within ``budget`` bytes (the
    snapshot holds a quarter of that: one byte per dimension)."""
    return rows * dim * 4 <= budget


def rescore_pool(limit: int) -> int:
    """How many rows the codes pick for the exact ranking when ``limit`` are asked for. The
    codes' distances are off by about 1e-3, so the true ``limit`` nearest are among these."""
    return max(2 * limit, limit + 32)


class _Strings:
    """One string column, dictionary-encoded: ``values[codes[row]]`` (code -1: null)."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        encoded = pc.dictionary_encode(column).combine_chunks()
        self.values: list[str] = encoded.dictionary.to_pylist()
        self.codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int32)

    def at(self, row: int) -> str | None:
        code = int(self.codes[row])
        return None if code < 0 else self.values[code]


class _SortedStrings(_Strings):
    """A column of many distinct values (a section's id): the values kept as one sorted array
    of UTF-8 bytes rather than Python strings (33k sections at 100k chunks: 0.5 MiB instead of
    2.5), a value's rows found by bisection."""

    def __init__(self, column: pa.ChunkedArray) -> None:
        super().__init__(column)
        keys = np.array([value.encode("utf-8") for value in self.values], dtype=bytes)
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        self.codes = np.where(self.codes < 0, -1, rank[self.codes]).astype(np.int32)
        self.values = []

    def at(self, row: int) -> str | None:
        code = int(self.codes[row])
        return None if code < 0 else bytes(self.keys[code]).decode("utf-8")

    def rows_of(self, value: str) -> np.ndarray:
        """The rows holding ``value``."""
        key = value.encode("utf-8")
        at = int(np.searchsorted(self.keys, key))
        if at == len(self.keys) or self.keys[at] != key:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.codes == at)


class Snapshot:
    def __init__(
        self,
        *,
        strings: dict[str, _Strings],
        numbers: dict[str, np.ndarray],
        codes: np.ndarray,
        scales: np.ndarray,
        squared_norms: np.ndarray,
        id_hashes: np.ndarray,
        text_offsets: np.ndarray,
        vectors: Spill,
        texts: Spill,
    ) -> None:
        self._strings = strings
        self._numbers = numbers
        self._codes = codes  # (rows, dim) uint8, see vector_codes
        self._scales = scales
        self.squared_norms = squared_norms
        self.dim = codes.shape[1]
        # Keyword hits come back by id: each id's hash (this process's str hash), sorted, with
        # the row it names. Two ids of one table sharing a 64-bit hash is not a practical case.
        self._id_order = np.argsort(id_hashes, kind="stable").astype(np.int32)
        self._sorted_ids = id_hashes[self._id_order]
        self._text_offsets = text_offsets  # (rows + 1) byte offsets into ``texts``
        self._vectors = vectors
        self._texts = texts

    @classmethod
    def build(cls, batches: Iterable[pa.RecordBatch], spill_folder: Path | None) -> Snapshot:
        """The snapshot of ``batches`` (SNAPSHOT_COLUMNS, as ``Store.column_batches`` reads
        them), its texts and exact vectors written to an anonymous file in ``spill_folder``."""
        vectors, texts = Spill(spill_folder), Spill(spill_folder)
        codes, scales, norms, hashes, ends = [], [], [], [], []
        kept: dict[str, list[pa.Array]] = {name: [] for name in (*_STRINGS, *_NUMBERS)}
        for batch in batches:
            if batch.num_rows == 0:
                continue
            column = batch.column("vector")
            dim = column.type.list_size
            flat = column.flatten().to_numpy(zero_copy_only=False)
            block = np.ascontiguousarray(flat, dtype=np.float32).reshape(batch.num_rows, dim)
            vectors.append(block.data)
            coded, scale = quantize_rows(block)
            codes.append(coded)
            scales.append(scale)
            norms.append(np.einsum("ij,ij->i", block, block))
            hashes.append(np.fromiter(map(hash, batch.column("id").to_pylist()), np.int64))
            ends.append(_append_texts(texts, batch.column("text")))
            for name in kept:
                kept[name].append(batch.column(name))
        if not codes:
            return cls.empty(vectors, texts)
        return cls(
            strings={
                name: (_SortedStrings if name == "parent_id" else _Strings)(
                    pa.chunked_array(kept[name])
                )
                for name in _STRINGS
            },
            numbers={
                name: pa.chunked_array(kept[name]).to_numpy().astype(np.int32) for name in _NUMBERS
            },
            codes=np.concatenate(codes),
            scales=np.concatenate(scales),
            squared_norms=np.concatenate(norms),
            id_hashes=np.concatenate(hashes),
            text_offsets=np.concatenate([np.zeros(1, np.int64), *ends]),
            vectors=vectors,
            texts=texts,
        )

    @classmethod
    def empty(cls, vectors: Spill, texts: Spill) -> Snapshot:
        nothing = pa.chunked_array([], type=pa.string())
        return cls(
            strings={name: _SortedStrings(nothing) for name in _STRINGS},
            numbers={name: np.zeros(0, np.int32) for name in _NUMBERS},
            codes=np.zeros((0, 0), np.uint8),
            scales=np.zeros(0, np.float32),
            squared_norms=np.zeros(0, np.float32),
            id_hashes=np.zeros(0, np.int64),
            text_offsets=np.zeros(1, np.int64),
            vectors=vectors,
            texts=texts,
        )

    def __len__(self) -> int:
        return len(self._codes)

    @property
    def held_in_memory(self) -> bool:
        """True when no file could be written and the texts and vectors are held here."""
        return self._texts.in_memory or self._vectors.in_memory

    def allowed(self, scope: str | None, sources: Collection[str] | None) -> np.ndarray | None:
        """Which rows a search under ``scope`` limited to ``sources`` may return (None: all)."""
        if not scope and sources is None:
            return None
        names = self._strings["source"].values
        keep = np.fromiter(
            (in_scope(name, scope) and (sources is None or name in sources) for name in names),
            dtype=bool,
            count=len(names),
        )
        return keep[self._strings["source"].codes]

    def nearest(
        self, vector: Vector, limit: int, allowed: np.ndarray | None = None
    ) -> list[dict[str, Any]]:
        """The ``limit`` rows closest to ``vector`` by squared L2 distance (LanceDB's default
        metric, so ``_distance`` means what it means in a LanceDB vector search)."""
        query = np.asarray(vector, dtype=np.float32)
        candidates = None if allowed is None else np.flatnonzero(allowed)
        count = len(self) if candidates is None else int(candidates.size)
        if limit <= 0 or count == 0:
            return []
        keep = rescore_pool(limit)
        if count <= keep:  # few enough to rank exactly as they are
            pool = np.arange(count) if candidates is None else candidates
        else:  # every row is scanned: cheaper than a copy
            rough = self.squared_norms - 2.0 * approximate_dots(self._codes, self._scales, query)
            if candidates is None:
                pool = np.argpartition(rough, keep - 1)[:keep]
            else:
                pool = candidates[np.argpartition(rough[candidates], keep - 1)[:keep]]
        distances = self.squared_norms[pool] - 2.0 * (self.exact_vectors(pool) @ query)
        distances += float(query @ query)
        np.maximum(distances, 0.0, out=distances)
        order = np.lexsort((pool, distances))[:limit]  # by distance, ties by table order
        rows = self.rows_at(pool[order])
        for row, distance in zip(rows, distances[order], strict=True):
            row["_distance"] = float(distance)
        return rows

    def exact_vectors(self, positions: np.ndarray) -> np.ndarray:
        """The float32 vectors of ``positions`` (len × dim), read back from the file."""
        width = self.dim * 4
        out = np.empty((len(positions), self.dim), dtype=np.float32)
        for i, (start, count) in _runs(positions):
            data = self._vectors.read(int(start) * width, count * width)
            out[i : i + count] = np.frombuffer(data, dtype=np.float32).reshape(count, self.dim)
        return out

    def texts_at(self, positions: Sequence[int] | np.ndarray) -> list[str]:
        offsets = self._text_offsets
        texts: list[str] = []
        for _, (start, count) in _runs(positions):
            first, last = int(offsets[start]), int(offsets[start + count])
            data = self._texts.read(first, last - first)
            for row in range(start, start + count):
                a, b = int(offsets[row]) - first, int(offsets[row + 1]) - first
                texts.append(data[a:b].decode("utf-8"))
        return texts

    def rows_at(self, positions: Sequence[int] | np.ndarray) -> list[dict[str, Any]]:
        """The chunk rows (CHUNK_COLUMNS) at ``positions``, in that order."""
        texts = self.texts_at(positions)
        rows = []
        for position, text in zip(positions, texts, strict=True):
            row: dict[str, Any] = {}
            for name in CHUNK_COLUMNS:
                if name == "text":
                    row[name] = text
                elif name in self._strings:
                    row[name] = self._strings[name].at(int(position))
                else:
                    row[name] = int(self._numbers[name][position])
            rows.append(row)
        return rows

    def rows_by_id(self, scored: Sequence[tuple[str, float]]) -> list[dict[str, Any]]:
        """Keyword hits (id, score) as rows with ``_score``; ids this version lacks are left
        out (the table changed between the two reads)."""
        found = [(p, s) for p, s in ((self._position_of(k), s) for k, s in scored) if p >= 0]
        rows = self.rows_at([p for p, _ in found])
        for row, (_, score) in zip(rows, found, strict=True):
            row["_score"] = score
        return rows

    def section_chunks(self, parent_id: str) -> list[StoredChunk]:
        """The chunks of one section in chunk order; empty if the section is unknown."""
        parents = self._strings["parent_id"]
        assert isinstance(parents, _SortedStrings)
        positions = parents.rows_of(parent_id)
        chunks = [StoredChunk(**row) for row in self.rows_at(positions)]
        chunks.sort(key=lambda c: c.chunk_index)
        return chunks

    def _position_of(self, key: str) -> int:
        wanted = hash(key)
        at = int(np.searchsorted(self._sorted_ids, wanted))
        if at == len(self._sorted_ids) or self._sorted_ids[at] != wanted:
            return -1
        return int(self._id_order[at])


def _append_texts(spill: Spill, column: pa.Array) -> np.ndarray:
    """Write a text column's UTF-8 bytes to ``spill``; each row's end offset in it."""
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        offset_type = np.int32 if pa.types.is_string(column.type) else np.int64
        _, offsets_buffer, data_buffer = column.buffers()
        offsets = np.frombuffer(offsets_buffer, dtype=offset_type)
        offsets = offsets[column.offset : column.offset + len(column) + 1].astype(np.int64)
        if column.null_count == 0 and data_buffer is not None:
            base = len(spill)
            spill.append(memoryview(data_buffer)[offsets[0] : offsets[-1]])
            return base + offsets[1:] - offsets[0]
    encoded = [(text or "").encode("utf-8") for text in column.to_pylist()]
    base = len(spill)
    spill.append(b"".join(encoded))
    return base + np.cumsum([len(e) for e in encoded], dtype=np.int64)


def _runs(positions: Sequence[int] | np.ndarray) -> Iterable[tuple[int, tuple[int, int]]]:
    """(index into ``positions``, (first position, count)) for each run of consecutive
    positions, so that neighbouring rows are read in one go."""
    i, n = 0, len(positions)
    while i < n:
        start = int(positions[i])
        j = i + 1
        while j < n and int(positions[j]) == start + (j - i):
            j += 1
        yield i, (start, j - i)
        i = j
