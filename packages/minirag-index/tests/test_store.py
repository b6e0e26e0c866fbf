"""Storage rules: one-commit replacement, keyword indexes kept current, old versions cleaned."""

from __future__ import annotations

import numpy as np
import pytest

from minirag_index import ChunkInput, IndexMismatchError, MiniragIndex, SourceDoc
from minirag_index.storage.store import Store
from testsupport.files import files_under
from testsupport.readers import counts_seen_while, errors_of_writers_at_once


def vectors(n: int, dim: int = 384) -> list[np.ndarray]:
    rng = np.random.default_rng(n)
    return [rng.random(dim, dtype=np.float32) for _ in range(n)]


def chunks(n: int, tag: str) -> list[ChunkInput]:
    return [ChunkInput(f"{tag} chunk {i}", joiner="\n\n" if i else "") for i in range(n)]


def test_replacing_a_source_is_one_commit_for_a_concurrent_reader(tmp_path):
    writer = Store(tmp_path / "db")
    writer.replace_source(SourceDoc("/d/a.md"), chunks(3, "v0"), vectors(3))

    def write() -> None:
        for i in range(50):
            n = 3 if i % 2 else 5
            writer.replace_source(SourceDoc("/d/a.md"), chunks(n, f"v{i}"), vectors(n))

    seen = counts_seen_while(tmp_path / "db", "source = '/d/a.md'", write)
    assert len(seen) > 10
    assert set(seen) <= {3, 5}, f"a reader saw {sorted(set(seen) - {3, 5})} chunks"


def test_two_writers_replacing_one_source_leave_one_copy(tmp_path):
    def write(tag: str) -> None:
        store = Store(tmp_path / "db")
        for i in range(10):
            store.replace_source(SourceDoc("/d/a.md"), chunks(4, f"{tag}{i}"), vectors(4))

    Store(tmp_path / "db").replace_source(SourceDoc("/d/a.md"), chunks(4, "x"), vectors(4))
    assert errors_of_writers_at_once("ab", write) == []
    assert Store(tmp_path / "db").count_rows("source = '/d/a.md'") == 4


def test_row_added_after_the_keyword_index_was_built_is_found(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    index.add_source(SourceDoc("/d/first.md"), [ChunkInput("the first document")])
    index.refresh()
    index.add_source(SourceDoc("/d/late.md"), [ChunkInput("zebracorn appears late")])
    assert [h.source for h in index.search("zebracorn").hits] == ["/d/late.md"]
    index.refresh()
    table = index.store.table()
    for ix in table.list_indices():
        assert table.index_stats(ix.name).num_unindexed_rows == 0
    assert [h.source for h in index.search("zebracorn").hits] == ["/d/late.md"]


def test_titles_are_keyword_searchable(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    index.add_source(SourceDoc("/d/x.md", title="SPEC-112 Warehouse stock"), [ChunkInput("body")])
    index.add_source(SourceDoc("/d/y.md", title="Other"), [ChunkInput("warehouse-free body")])
    index.refresh()
    assert index.search("SPEC-112").hits[0].source == "/d/x.md"


def test_old_versions_are_cleaned(tmp_path, monkeypatch):
    from datetime import timedelta

    import minirag_index.storage.store as store_module

    monkeypatch.setattr(store_module, "VERSION_RETENTION", timedelta(0))
    store = Store(tmp_path / "db")
    for i in range(20):
        store.replace_source(SourceDoc("/d/a.md"), chunks(3, f"v{i}"), vectors(3))
    store.optimize()
    versions = store.table().list_versions()
    assert len(versions) <= 3


def test_vector_width_mismatch_is_refused(tmp_path, make_index):
    Store(tmp_path / "db").replace_source(SourceDoc("/d/a.md"), chunks(1, "x"), vectors(1, dim=8))
    index: MiniragIndex = make_index(DB_PATH=tmp_path / "db")
    with pytest.raises(IndexMismatchError, match="DB_PATH"):
        index.add_source(SourceDoc("/d/b.md"), chunks(1, "y"))


def test_move_keeps_vectors_and_replaces_in_one_commit(tmp_path):
    store = Store(tmp_path / "db")
    original = vectors(2)
    store.replace_source(
        SourceDoc("/d/a.md", title="A", content_hash="h"), chunks(2, "a"), original
    )
    store.move_source("/d/a.md", SourceDoc("/e/a.md"))
    assert store.count_rows("source = '/d/a.md'") == 0
    moved = store.rows("source = '/e/a.md'", ["vector", "title", "content_hash", "chunk_index"])
    moved.sort(key=lambda r: r["chunk_index"])
    assert [r["title"] for r in moved] == ["A", "A"]
    assert np.allclose(moved[0]["vector"], original[0])


def test_queries_print_no_warnings(make_index, capfd):
    index = make_index()
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput("alpha beta")])
    index.refresh()
    capfd.readouterr()
    index.search("alpha", scope="/d")
    index.read_document("/d/a.md")
    index.neighbors("/d/a.md", 0)
    index.sources()
    assert "WARN" not in capfd.readouterr().err


def test_the_schema_is_declared_once_and_every_field_has_its_column() -> None:
    from dataclasses import fields

    from minirag_index.storage.schema import (
        CHUNK_COLUMNS,
        COLUMN_TYPES,
        SOURCE_COLUMNS,
        ChunkInput,
        SourceDoc,
        arrow_schema,
        table_row,
    )

    names = [field.name for field in arrow_schema(4)]
    assert names == list(COLUMN_TYPES)
    for record in (SourceDoc, ChunkInput):
        assert {f.name for f in fields(record)} <= set(COLUMN_TYPES), record
    assert set(CHUNK_COLUMNS) <= set(COLUMN_TYPES) and set(SOURCE_COLUMNS) <= set(COLUMN_TYPES)
    row = table_row(SourceDoc("/d/a.md", signature=b"sig"), 1, ChunkInput("x"), [0.0] * 4, 1.0)
    assert set(row) == set(COLUMN_TYPES)  # a row fills every column, no more
    assert row["signature"] is None  # a signature lives on chunk 0 only


def test_a_read_only_store_creates_nothing_and_refuses_every_write(tmp_path):
    from minirag_index import ReadOnlyIndexError

    missing = Store(tmp_path / "nowhere", read_only=True)
    assert not missing.exists() and missing.table() is None and missing.count_rows() == 0
    assert not (tmp_path / "nowhere").exists()
    Store(tmp_path / "db").replace_source(SourceDoc("/d/a.md"), chunks(2, "v0"), vectors(2))
    before = files_under(tmp_path / "db")
    reader = Store(tmp_path / "db", read_only=True)
    assert reader.count_rows() == 2
    writes = [
        lambda: reader.replace_source(SourceDoc("/d/b.md"), chunks(1, "b"), vectors(1)),
        lambda: reader.move_source("/d/a.md", SourceDoc("/d/c.md")),
        lambda: reader.delete_source("/d/a.md"),
        lambda: reader.set_file_stats([("/d/a.md", 1, 1.0)]),
        lambda: reader.update_source_fields("/d/a.md", {"labels": None}),
    ]
    for write in writes:
        with pytest.raises(ReadOnlyIndexError, match="read-only"):
            write()
    reader.optimize()  # a no-op: the writer optimises
    assert reader.count_rows() == 2
    assert files_under(tmp_path / "db") == before


def test_a_read_only_store_reports_an_upgrade_it_does_not_make(tmp_path):
    import lancedb

    from minirag_index import IndexTooOldError
    from minirag_index.storage import keyword_index

    Store(tmp_path / "db").replace_source(SourceDoc("/d/a.md"), chunks(2, "v0"), vectors(2))
    table = lancedb.connect(tmp_path / "db").open_table("chunks")
    table.drop_index(keyword_index.index_name("title_terms"))
    before = files_under(tmp_path / "db")
    reader = Store(tmp_path / "db", read_only=True)
    assert reader.count_rows() == 2
    assert any("older version" in w for w in reader.warnings)
    assert files_under(tmp_path / "db") == before
    lancedb.connect(tmp_path / "old").create_table("chunks", data=[{"id": "x", "text": "t"}])
    with pytest.raises(IndexTooOldError, match="never upgrades"):
        Store(tmp_path / "old", read_only=True).table()
    writer = Store(tmp_path / "db")  # the writer's open does the upgrade
    assert writer.count_rows() == 2 and files_under(tmp_path / "db") != before
