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


def test_a_reader_never_sees_a_large_source_missing_or_part_stored(tmp_path, small_merges):
    writer = Store(tmp_path / "db")
    writer.replace_source(doc(), chunks(8, "v0"), vectors(8))

    def write() -> None:
        for i in range(20):
            n = 8 if i % 2 else 12
            writer.replace_source(doc(), chunks(n, f"v{i}"), vectors(n))

    seen = counts_seen_while(tmp_path / "db", "source = '/d/big.txt'", write)
    assert len(seen) > 10
    # the old version, the new one, or for a moment both; never none and never a part
    assert set(seen) <= {8, 12, 20}, f"a reader saw {sorted(set(seen) - {8, 12, 20})} chunks"


def test_two_writers_storing_one_large_source_leave_one_copy(tmp_path, small_merges):
    Store(tmp_path / "db").replace_source(doc(), chunks(8, "x"), vectors(8))

    def write(tag: str) -> None:
        store = Store(tmp_path / "db")
        for i in range(5):
            store.replace_source(doc(), chunks(8, f"{tag}{i}"), vectors(8))

    assert errors_of_writers_at_once("ab", write) == []
    assert Store(tmp_path / "db").count_rows("source = '/d/big.txt'") == 8
