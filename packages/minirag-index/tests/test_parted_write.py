"""A source too large for one merge is stored by a streamed append and a delete: the same rows
as a merge would store, the old version gone, nothing lost if the second commit never comes."""

from __future__ import annotations

import numpy as np
import pytest

from minirag_index import ChunkInput, SourceDoc
from minirag_index.storage import parted_write
from minirag_index.storage.store import Store
from testsupport.readers import counts_seen_while, errors_of_writers_at_once

COLUMNS = ["id", "source", "chunk_index", "text", "title", "signature", "vector"]


def vectors(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random((n, 384), dtype=np.float32)


def chunks(n: int, tag: str) -> list[ChunkInput]:
    return [ChunkInput(f"{tag} chunk {i}", joiner="\n\n" if i else "") for i in range(n)]


def doc(source: str = "/d/big.txt", title: str = "Big") -> SourceDoc:
    return SourceDoc(source, title=title, content_hash="h", signature=b"sig")


def stored(store: Store, source: str) -> list[dict[str, object]]:
    rows = store.rows(f"source = '{source}'", COLUMNS)
    rows.sort(key=lambda r: r["chunk_index"])  # type: ignore[arg-type, return-value]
    return rows


@pytest.fixture
def small_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sources of more than 5 chunks are stored in parts of 2 rows."""
    monkeypatch.setattr(parted_write, "MERGE_ROWS", 5)
    monkeypatch.setattr(parted_write, "APPEND_ROWS", 2)


def test_a_large_source_gets_the_rows_a_merge_would_give_it(tmp_path, monkeypatch):
    merged = Store(tmp_path / "merged")
    merged.replace_source(doc(), chunks(13, "v1"), vectors(13))
    monkeypatch.setattr(parted_write, "MERGE_ROWS", 5)
    monkeypatch.setattr(parted_write, "APPEND_ROWS", 2)
    calls: list[int] = []
    real = parted_write.store_in_parts

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr("minirag_index.storage.writes.store_in_parts", counted)
    parted = Store(tmp_path / "parted")
    parted.replace_source(doc(), chunks(13, "v1"), vectors(13))
    assert calls == [1]
    want, got = stored(merged, "/d/big.txt"), stored(parted, "/d/big.txt")
    assert [r["chunk_index"] for r in got] == list(range(13))
    for a, b in zip(want, got, strict=True):
        assert {k: v for k, v in a.items() if k != "vector"} == {
            k: v for k, v in b.items() if k != "vector"
        }
        assert np.array_equal(a["vector"], b["vector"])
    assert [r["signature"] for r in got] == [b"sig"] + [None] * 12


def test_storing_it_again_leaves_only_the_new_version(tmp_path, small_merges):
    store = Store(tmp_path / "db")
    store.replace_source(SourceDoc("/d/other.md"), chunks(2, "other"), vectors(2))
    store.replace_source(doc(), chunks(13, "v1"), vectors(13))
    store.replace_source(doc(), chunks(9, "v2"), vectors(9, seed=1))  # large, fewer chunks
    assert [r["text"] for r in stored(store, "/d/big.txt")] == [c.text for c in chunks(9, "v2")]
    store.replace_source(doc(), chunks(3, "v3"), vectors(3))  # small again: one merge
    assert [r["text"] for r in stored(store, "/d/big.txt")] == [c.text for c in chunks(3, "v3")]
    assert store.count_rows("source = '/d/other.md'") == 2


def test_large_and_small_sources_stored_together_and_a_move(tmp_path, small_merges):
    store = Store(tmp_path / "db")
    store.replace_source(doc("/d/old.txt"), chunks(8, "old"), vectors(8))
    items = [
        (SourceDoc("/d/a.md"), chunks(2, "a"), vectors(2)),
        (doc("/d/b.txt"), chunks(7, "b"), vectors(7)),
        (doc("/d/c.txt"), chunks(6, "c"), vectors(6)),
    ]
    assert store.replace_sources(items) == 15
    assert {s: i.chunk_count for s, i in store.sources().items()} == {
        "/d/old.txt": 8,
        "/d/a.md": 2,
        "/d/b.txt": 7,
        "/d/c.txt": 6,
    }
    # a large document moved and edited in one store: the old name's rows go with it
    moved = [(doc("/d/new.txt"), chunks(9, "new"), vectors(9))]
    store.replace_sources(moved, replaces=["/d/old.txt"])
    assert "/d/old.txt" not in store.sources()
    assert store.sources()["/d/new.txt"].chunk_count == 9


def test_a_store_cut_off_between_its_commits_loses_nothing_and_is_seen_as_doubled(
    tmp_path, small_merges, make_index
):
    index = make_index(DB_PATH=tmp_path / "db")
    index.store.replace_source(doc(), chunks(8, "v1"), vectors(8))

    class CutOff(RuntimeError):
        pass

    table = index.store.table()
    original_delete = table.delete

    def fail(where: str) -> None:
        raise CutOff(where)

    table.delete = fail  # the process dies after the append
    with pytest.raises(CutOff):
        index.store.replace_source(doc(), chunks(10, "v2"), vectors(10))
    table.delete = original_delete
    texts = {r["text"] for r in stored(index.store, "/d/big.txt")}
    assert {c.text for c in chunks(8, "v1")} <= texts  # the old version is all there
    assert {c.text for c in chunks(10, "v2")} <= texts  # and the new one
    assert index.stored_twice(["/d/big.txt"]) == {"/d/big.txt"}  # the next sync repairs it


@pytest.mark.parametrize(
    ("setting", "small", "big"), [("small_merges", 8, 12), ("large_table", 3, 5)]
)
def test_a_reader_never_sees_a_source_missing_or_part_stored(
    tmp_path, request, setting, small, big
):
    """A large source, or any source of a large table: stored in two commits."""
    request.getfixturevalue(setting)
    writer = Store(tmp_path / "db")
    writer.replace_source(SourceDoc("/d/other.md"), chunks(4, "other"), vectors(4))
    writer.replace_source(doc(), chunks(small, "v0"), vectors(small))

    def write() -> None:
        for i in range(20):
            n = small if i % 2 else big
            writer.replace_source(doc(), chunks(n, f"v{i}"), vectors(n))

    seen = counts_seen_while(tmp_path / "db", "source = '/d/big.txt'", write)
    assert len(seen) > 10
    # the old version, the new one, or for a moment both; never none and never a part
    allowed = {small, big, small + big}
    assert set(seen) <= allowed, f"a reader saw {sorted(set(seen) - allowed)} chunks"


def test_two_writers_storing_one_large_source_leave_one_copy(tmp_path, small_merges):
    Store(tmp_path / "db").replace_source(doc(), chunks(8, "x"), vectors(8))

    def write(tag: str) -> None:
        store = Store(tmp_path / "db")
        for i in range(5):
            store.replace_source(doc(), chunks(8, f"{tag}{i}"), vectors(8))

    assert errors_of_writers_at_once("ab", write) == []
    assert Store(tmp_path / "db").count_rows("source = '/d/big.txt'") == 8


@pytest.fixture
def large_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables of more than 3 rows are written in parts, and never merged into: the merge
    reads the whole table (1.9 GB at a million chunks)."""
    from lancedb.table import LanceTable

    monkeypatch.setattr(parted_write, "MERGE_TABLE_ROWS", 3)
    monkeypatch.setattr(parted_write, "APPEND_ROWS", 2)
    real = LanceTable.merge_insert

    def merge_unless_large(self: LanceTable, on: str) -> object:
        assert self.count_rows() <= 3, "merged into a large table"
        return real(self, on)

    monkeypatch.setattr(LanceTable, "merge_insert", merge_unless_large)


def test_in_a_large_table_each_source_ends_with_exactly_its_new_chunks(tmp_path, large_table):
    store = Store(tmp_path / "db")
    store.replace_sources(
        [
            (doc("/d/a.md"), chunks(3, "a1"), vectors(3)),
            (doc("/d/b.md"), chunks(2, "b1"), vectors(2)),
        ]
    )
    store.replace_source(doc("/d/gone.md"), chunks(1, "gone"), vectors(1))
    items = [
        (doc("/d/a.md"), chunks(1, "a2"), vectors(1, seed=1)),  # shrank
        (doc("/d/b.md"), chunks(4, "b2"), vectors(4, seed=2)),  # grew
        (doc("/d/c.md"), chunks(3, "c1"), vectors(3, seed=3)),  # new
    ]
    assert store.replace_sources(items, replaces=["/d/gone.md"]) == 8
    for source, tag, n in (("/d/a.md", "a2", 1), ("/d/b.md", "b2", 4), ("/d/c.md", "c1", 3)):
        got = stored(store, source)
        assert [r["text"] for r in got] == [c.text for c in chunks(n, tag)]
        assert [r["signature"] for r in got] == [b"sig"] + [None] * (n - 1)
    assert np.array_equal(stored(store, "/d/c.md")[2]["vector"], vectors(3, seed=3)[2])
    assert sorted(store.sources()) == ["/d/a.md", "/d/b.md", "/d/c.md"]
    assert store.stored_twice(["/d/a.md", "/d/b.md", "/d/c.md"]) == set()


def test_in_a_large_table_moved_sources_keep_their_vectors_and_leave_nothing(tmp_path, large_table):
    store = Store(tmp_path / "db")
    store.replace_source(doc("/d/a.md"), chunks(3, "a"), vectors(3))
    store.replace_source(doc("/d/b.md"), chunks(2, "b"), vectors(2, seed=1))
    moved = store.move_sources({"/d/a.md": doc("/e/a.md"), "/d/b.md": doc("/d/a.md")})
    assert moved == 5
    assert [r["text"] for r in stored(store, "/e/a.md")] == [c.text for c in chunks(3, "a")]
    assert [r["text"] for r in stored(store, "/d/a.md")] == [c.text for c in chunks(2, "b")]
    assert np.array_equal(stored(store, "/d/a.md")[1]["vector"], vectors(2, seed=1)[1])
    assert sorted(store.sources()) == ["/d/a.md", "/e/a.md"]
    assert store.count_rows() == 5
