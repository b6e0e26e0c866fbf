"""How much of the table's indexes LanceDB keeps in memory: INDEX_CACHE_MB bounds the cache of
every connection, a writer's and a read-only reader's, and a reader bounded that way still
writes nothing.

The table is made large enough for the writer to index its vectors (the threshold lowered to
a few hundred rows, as in test_vector_index.py)."""

from __future__ import annotations

from typing import Any

import lancedb
import numpy as np
import pytest

from minirag_index import ChunkInput, IndexSettings, MiniragIndex, SourceDoc
from minirag_index.storage import location, vector_index
from testsupport.files import files_under

MIB = 1024 * 1024
ROWS_INDEXED_FROM = 300  # the writer's threshold here
NAMES = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "heron", "iris", "juniper"]


def indexed_writer(make_index: Any, **settings: object) -> MiniragIndex:
    """A writer over 150 documents of three chunks (450 rows, random unit vectors), optimised:
    past its threshold, so the table has its vector index."""
    writer: MiniragIndex = make_index(**settings)
    writer.store.vector_index_rows = ROWS_INDEXED_FROM
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((450, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    items = []
    for doc in range(150):
        words = [NAMES[(doc + k) % len(NAMES)] for k in range(4)]
        chunks = [ChunkInput(f"{' '.join(words)} part {part}", section=part) for part in range(3)]
        items.append((SourceDoc(f"/c/d{doc}.md", title=words[0]), chunks, vectors[doc * 3 :][:3]))
    writer.store_many(items)
    writer.refresh()
    assert vector_index.vector_index(writer.store.table()) is not None
    return writer


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], Any]]:
    """Every LanceDB session a connection is made with: its arguments and the session."""
    made: list[tuple[dict[str, Any], Any]] = []
    real = lancedb.Session

    def recording(**sizes: Any) -> Any:
        session = real(**sizes)
        made.append((sizes, session))
        return session

    monkeypatch.setattr(lancedb, "Session", recording)
    return made


def test_the_setting_bounds_every_connections_index_cache(make_index, sessions):
    writer = indexed_writer(make_index, INDEX_CACHE_MB=24)
    assert writer.search("amber birch").hits
    assert sessions, "the writer connected through a session of its own"
    for sizes, _ in sessions:
        assert sizes["index_cache_size_bytes"] == 24 * MIB
        assert sizes["metadata_cache_size_bytes"] == location.METADATA_CACHE_BYTES
    held = sessions[-1][1]
    assert 0 < held.size_bytes <= (24 * MIB + location.METADATA_CACHE_BYTES)


def test_the_default_cache_is_the_documented_size(make_index, sessions):
    index = make_index()
    index.add_source(SourceDoc("/c/one.md"), [ChunkInput("a single amber chunk")])
    assert index.search("amber").hits
    assert [sizes["index_cache_size_bytes"] for sizes, _ in sessions] == [
        location.INDEX_CACHE_BYTES
    ]
    assert IndexSettings().INDEX_CACHE_MB * MIB == location.INDEX_CACHE_BYTES


def test_a_bounded_read_only_reader_writes_nothing(make_index, sessions, tmp_path):
    writer = indexed_writer(make_index)
    folder = tmp_path / "db"
    before = files_under(folder)
    settings = IndexSettings(
        DB_PATH=folder,
        MODEL_NAME=writer.embedder.model_name,
        CACHE_DIR=writer.embedder.cache_dir,
        INDEX_CACHE_MB=16,
    )
    reader = MiniragIndex(settings, embedder=writer.embedder, read_only=True)
    for query in ("amber birch", "heron iris", "ember fjord"):
        assert reader.search(query).hits
    assert reader.look_alikes_of([reader.search("cedar").hits[0].source])
    assert reader.find_mentions(["garnet"]).documents
    reader.refresh()
    assert sessions[-1][0]["index_cache_size_bytes"] == 16 * MIB
    assert files_under(folder) == before
