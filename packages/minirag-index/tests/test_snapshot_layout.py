"""The snapshot's compact layout: byte codes scanned for a pool, exact vectors and texts read
back from a file, and the same answers as an exact float32 search."""

from __future__ import annotations

import logging
import stat
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from minirag_index import vector_codes
from minirag_index.schema import CHUNK_COLUMNS, parent_id_for, row_id
from minirag_index.snapshot import Snapshot, rescore_pool
from minirag_index.spill import Spill

DIM = 48


def unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.standard_normal((n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def batches(vectors: np.ndarray, per_batch: int, texts: list[str] | None = None):
    """SNAPSHOT_COLUMNS record batches, as LanceDB hands them over: 3 chunks per section,
    7 per document."""
    n = len(vectors)
    texts = texts or [f"chunk {i}: ünïcödé – {'x' * (i % 5)}" for i in range(n)]
    sources = [f"/docs/{i // 7:04d}.md" for i in range(n)]
    columns = {
        "source": sources,
        "title": [f"Document {i // 7}" for i in range(n)],
        "chunk_index": [i % 7 for i in range(n)],
        "section": [(i % 7) // 3 for i in range(n)],
        "parent_id": [parent_id_for(s, (i % 7) // 3) for i, s in enumerate(sources)],
        "text": texts,
        "context_chars": [i % 3 for i in range(n)],
        "joiner": ["" if i % 7 == 0 else "\n\n" for i in range(n)],
        "pages": [None if i % 2 else str(i) for i in range(n)],
        "id": [row_id(s, i % 7) for i, s in enumerate(sources)],
    }
    types = {"chunk_index": pa.int32(), "section": pa.int32(), "context_chars": pa.int32()}
    for start in range(0, n, per_batch):
        part = slice(start, start + per_batch)
        arrays = {
            name: pa.array(values[part], type=types.get(name, pa.string()))
            for name, values in columns.items()
        }
        flat = pa.array(vectors[part].ravel(), type=pa.float32())
        arrays["vector"] = pa.FixedSizeListArray.from_arrays(flat, DIM)
        yield pa.RecordBatch.from_pydict(arrays)


def exact_nearest(vectors: np.ndarray, query: np.ndarray, limit: int, allowed=None):
    distances = (vectors * vectors).sum(axis=1) - 2 * (vectors @ query) + query @ query
    rows = np.arange(len(vectors)) if allowed is None else np.flatnonzero(allowed)
    order = np.lexsort((rows, distances[rows]))[:limit]
    return rows[order], np.maximum(distances[rows][order], 0)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261204)


def test_the_code_scan_is_an_exact_integer_product(rng):
    codes = rng.integers(0, 256, size=(1000, DIM), dtype=np.uint8)
    columns = rng.integers(-127, 128, size=(DIM, 2), dtype=np.int8)
    expected = codes.astype(np.int64) @ columns.astype(np.int64)
    assert np.array_equal(vector_codes.integer_products(codes, columns), expected)


def test_the_hand_written_model_is_valid_onnx():
    onnx = pytest.importorskip("onnx", reason="the offline-model extra installs onnx")
    model = onnx.load_from_string(vector_codes.matmul_integer_model())
    onnx.checker.check_model(model, full_check=True)
    (node,) = model.graph.node
    assert node.op_type == "MatMulInteger"
    assert [i.name for i in model.graph.input] == ["A", "B"]


def test_codes_rank_close_to_the_float_vectors(rng):
    vectors = unit_rows(rng, 2000)
    codes, scales = vector_codes.quantize_rows(vectors)
    assert codes.dtype == np.uint8 and codes.nbytes == vectors.nbytes // 4
    for query in unit_rows(rng, 20):
        error = vector_codes.approximate_dots(codes, scales, query) - vectors @ query
        assert np.abs(error).max() < 0.01  # the pool the exact ranking takes is far wider


def test_a_zero_vector_has_codes_too():
    vectors = np.zeros((2, DIM), dtype=np.float32)
    vectors[1, 3] = 0.5
    codes, scales = vector_codes.quantize_rows(vectors)
    dots = vector_codes.approximate_dots(codes, scales, np.ones(DIM, dtype=np.float32))
    assert dots == pytest.approx([0.0, 0.5], abs=1e-3)


@pytest.mark.parametrize("masked", [False, True])
def test_nearest_rows_and_distances_are_those_of_an_exact_search(tmp_path, rng, masked):
    vectors = unit_rows(rng, 3000)
    snapshot = Snapshot.build(batches(vectors, 700), tmp_path)
    assert not snapshot.held_in_memory
    allowed = rng.random(len(vectors)) < 0.3 if masked else None
    texts = [f"chunk {i}: ünïcödé – {'x' * (i % 5)}" for i in range(len(vectors))]
    for query in unit_rows(rng, 25):
        for limit in (1, 10, 40):
            rows, distances = exact_nearest(vectors, query, limit, allowed)
            found = snapshot.nearest(query, limit, allowed)
            assert [r["text"] for r in found] == [texts[i] for i in rows]
            assert [r["_distance"] for r in found] == pytest.approx(list(distances), abs=1e-5)
    assert len(vectors) > rescore_pool(40)  # the codes chose the pool: the path under test


def test_rows_carry_every_column_across_batches(tmp_path, rng):
    vectors = unit_rows(rng, 50)
    snapshot = Snapshot.build(batches(vectors, 16), tmp_path)
    (expected,) = [b for b in batches(vectors, 50)]
    table = pa.Table.from_batches([expected])
    for position in (0, 15, 16, 17, 49):
        (row,) = snapshot.rows_at([position])
        assert row == {name: table[name][position].as_py() for name in CHUNK_COLUMNS}
    assert np.allclose(snapshot.exact_vectors(np.array([49, 3, 4])), vectors[[49, 3, 4]])


def test_keyword_hits_are_found_by_id_and_sections_by_parent(tmp_path, rng):
    vectors = unit_rows(rng, 30)
    snapshot = Snapshot.build(batches(vectors, 8), tmp_path)
    found = snapshot.rows_by_id(
        [(row_id("/docs/0002.md", 4), 2.5), ("gone#1", 9.0), (row_id("/docs/0000.md", 0), 1.0)]
    )
    assert [(r["source"], r["chunk_index"], r["_score"]) for r in found] == [
        ("/docs/0002.md", 4, 2.5),
        ("/docs/0000.md", 0, 1.0),
    ]
    section = snapshot.section_chunks(parent_id_for("/docs/0001.md", 1))
    assert [(c.source, c.chunk_index) for c in section] == [("/docs/0001.md", i) for i in (3, 4, 5)]
    assert snapshot.section_chunks("no-such-section") == []


def test_an_unwritable_folder_keeps_the_snapshot_in_memory_with_the_same_answers(
    tmp_path, rng, caplog
):
    vectors = unit_rows(rng, 400)
    on_disk = Snapshot.build(batches(vectors, 128), tmp_path / "ok")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    with caplog.at_level(logging.WARNING, logger="minirag_index.spill"):
        in_memory = Snapshot.build(batches(vectors, 128), blocked / "snapshots")
    assert in_memory.held_in_memory and not on_disk.held_in_memory
    assert "kept in memory" in caplog.text and str(blocked) in caplog.text
    for query in unit_rows(rng, 5):
        assert in_memory.nearest(query, 10) == on_disk.nearest(query, 10)


def test_a_read_only_cache_folder_keeps_the_snapshot_in_memory(tmp_path, rng):
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        if Spill(folder).in_memory is False:  # root writes anywhere: nothing to check
            pytest.skip("this user can write into a read-only folder")
        snapshot = Snapshot.build(batches(unit_rows(rng, 10), 4), folder)
        assert snapshot.held_in_memory and len(snapshot) == 10
    finally:
        folder.chmod(stat.S_IRWXU)


class FullDisk:
    """A file that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, room: int) -> None:
        self.room, self.data = room, bytearray()

    def write(self, view) -> int:
        if self.room <= 0:
            raise OSError(28, "No space left on device")
        taken = bytes(view[: self.room])
        self.data += taken
        self.room -= len(taken)
        return len(taken)

    def seek(self, offset: int) -> None:
        self.position = offset

    def read(self, length: int) -> bytes:
        return bytes(self.data[self.position : self.position + length])

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def test_a_disk_that_fills_up_while_writing_loses_nothing(tmp_path, caplog):
    spill = Spill(tmp_path)
    spill._file = FullDisk(room=10)  # type: ignore[assignment]
    with caplog.at_level(logging.WARNING, logger="minirag_index.spill"):
        spill.append(b"0123456789abcdef")
        spill.append(b"ghij")
    assert spill.in_memory and "writing it failed" in caplog.text
    assert spill.read(0, len(spill)) == b"0123456789abcdefghij"


def test_the_file_is_not_left_behind(tmp_path, rng):
    snapshot = Snapshot.build(batches(unit_rows(rng, 20), 8), tmp_path)
    assert len(snapshot) == 20 and not snapshot.held_in_memory
    assert [p for p in Path(tmp_path).iterdir() if p.is_file()] == []  # unlinked from the start
