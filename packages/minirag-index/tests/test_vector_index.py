"""The vector index LanceDB keeps for a large table: made by the writer past a row count, kept
current by each optimise, never touched by a reader; filters and keywords still answer.

The threshold is lowered to a few hundred rows; the chunks carry random unit vectors (what the
index is built on does not depend on the model), queries are embedded by the test model.
"""

from __future__ import annotations

import numpy as np
import pytest

from minirag_index import ChunkInput, IndexSettings, MiniragIndex, SourceDoc
from minirag_index.storage import vector_index as vi

DOCS = 200  # in 100 folders: one folder holds 1% of the documents
CHUNKS = 2
THRESHOLD = 300
WORDS = [
    "river",
    "stone",
    "cloud",
    "lamp",
    "orchard",
    "violet",
    "harbour",
    "meadow",
    "copper",
    "lantern",
]


def source_of(doc: int) -> str:
    return f"/c/f{doc % 100:03d}/doc-{doc:04d}.md"


def fill(index: MiniragIndex, docs: range, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    items = []
    for doc in docs:
        vectors = rng.standard_normal((CHUNKS, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        text = [" ".join(rng.choice(WORDS, size=12)) for _ in range(CHUNKS)]
        chunks = [ChunkInput(t, section=i) for i, t in enumerate(text)]
        items.append((SourceDoc(source_of(doc), title=f"doc {doc}"), chunks, list(vectors)))
    index.store_many(items)


def has_index(index: MiniragIndex) -> bool:
    return vi.vector_index(index.store.table()) is not None


def unindexed(index: MiniragIndex) -> int:
    table = index.store.table()
    stats = table.index_stats(vi.vector_index(table).name)
    return int(stats.num_unindexed_rows)


@pytest.fixture
def large(make_index):
    """A writer whose threshold is THRESHOLD rows, holding DOCS * CHUNKS of them."""

    def make(**settings: object) -> MiniragIndex:
        index = make_index(**settings)
        index.store.vector_index_rows = THRESHOLD
        fill(index, range(DOCS))
        return index

    return make


def test_the_writer_indexes_the_vectors_once_past_the_threshold(make_index):
    index = make_index()
    index.store.vector_index_rows = THRESHOLD
    fill(index, range(THRESHOLD // CHUNKS - 10))
    index.refresh()
    assert not has_index(index), "below the threshold the search stays flat (exact)"
    fill(index, range(THRESHOLD // CHUNKS - 10, DOCS))
    index.refresh()
    assert has_index(index)
    assert index.store.vector_index_description().startswith("IVF_SQ (l2)")
    assert unindexed(index) == 0


def test_an_index_without_one_gains_it_when_a_writer_opens_it(make_index):
    old = make_index()
    old.store.vector_index_rows = 10**9  # as an index written before the vector index
    fill(old, range(DOCS))
    old.refresh()
    assert not has_index(old)
    writer = make_index()
    writer.store.vector_index_rows = THRESHOLD
    assert has_index(writer), "the writer's open upgraded it"


def test_rows_added_after_the_index_are_searched_before_and_after_optimising(
    large, make_index, monkeypatch
):
    index = large(RAG_HYBRID_WEIGHT=0.0)
    index.refresh()
    query = index.embedder.embed_query("where the new note went")
    note = SourceDoc("/c/new/note.md", title="note")
    index.store_many([(note, [ChunkInput("fresh")], [query])])
    assert unindexed(index) == 1, "not in the index yet"
    assert index.search("where the new note went").hits[0].source == "/c/new/note.md"
    built = []
    monkeypatch.setattr(vi, "create", lambda *a, **k: built.append(a))
    index.refresh()
    assert built == [], "optimize folds new rows in; the index is never rebuilt"
    assert unindexed(index) == 0
    assert index.search("where the new note went").hits[0].source == "/c/new/note.md"


def test_a_read_only_store_never_creates_or_updates_the_index(large, make_index, tmp_path):
    writer = large()
    writer.store.vector_index_rows = 10**9
    writer.refresh()  # optimised, still no index: the writer's threshold is out of reach
    assert not has_index(writer)
    settings = IndexSettings(
        DB_PATH=tmp_path / "db",
        MODEL_NAME=writer.embedder.model_name,
        CACHE_DIR=writer.embedder.cache_dir,
    )
    reader = MiniragIndex(settings, embedder=writer.embedder, read_only=True)
    reader.store.vector_index_rows = 1
    version = reader.version()
    assert reader.search("river stone").hits
    reader.refresh()
    assert not has_index(reader) and reader.version() == version
    writer.store.vector_index_rows = THRESHOLD
    writer.refresh()  # now indexed; a row added after it is not in the index
    fill(writer, range(DOCS, DOCS + 1), seed=2)
    version = reader.version()
    assert reader.search("river stone").hits
    reader.refresh()
    assert unindexed(reader) == CHUNKS and reader.version() == version


@pytest.mark.parametrize("indexed", [True, False], ids=["index", "flat"])
@pytest.mark.parametrize("how", ["scope", "sources"])
def test_a_filter_matching_one_percent_still_fills_top_k(large, indexed, how):
    index = large(RAG_HYBRID_WEIGHT=0.0)  # the vector side alone: its pool is what is filtered
    if not indexed:
        index.store.vector_index_rows = 10**9
    index.refresh()
    assert has_index(index) == indexed
    wanted = {source_of(doc) for doc in range(DOCS) if doc % 100 == 7}
    if how == "scope":
        result = index.search("lantern by the harbour", top_k=3, scope="/c/f007")
    else:
        result = index.search("lantern by the harbour", top_k=3, sources=wanted)
    assert len(result.hits) == 3
    assert {hit.source for hit in result.hits} <= wanted


def test_hybrid_search_still_finds_an_exact_keyword_past_the_index(large):
    index = large()
    code = SourceDoc("/c/codes.md", title="codes")
    rng = np.random.default_rng(5)
    vector = rng.standard_normal(384).astype(np.float32)
    text = "Reference code ERR-4711 belongs to the invoice archive."
    index.store_many([(code, [ChunkInput(text)], [vector / np.linalg.norm(vector)])])
    index.refresh()
    assert has_index(index)
    hits = index.search("ERR-4711", top_k=5).hits
    assert "/c/codes.md" in [hit.source for hit in hits]


def test_the_partitions_are_trained_again_only_once_the_table_has_grown_fourfold(
    make_index, monkeypatch
):
    monkeypatch.setattr(vi, "PARTITION_ROWS", 100)
    index = make_index()
    index.store.vector_index_rows = THRESHOLD
    fill(index, range(150))
    index.refresh()
    assert vi.vector_index(index.store.table()).name == "vector_idx_p3"
    fill(index, range(150, 400))  # 800 rows: 8 partitions' worth, not yet 4 times 3
    index.refresh()
    assert vi.vector_index(index.store.table()).name == "vector_idx_p3"
    assert unindexed(index) == 0, "folded into the index it has"
    fill(index, range(400, 600))  # 1,200 rows: 12 partitions, 4 times what it was made for
    index.refresh()
    assert [c.name for c in index.store.table().list_indices() if c.columns == ["vector"]] == [
        "vector_idx_p12"
    ]
    assert unindexed(index) == 0


def test_an_index_made_without_a_partition_size_is_made_again_by_the_writer_only(
    large, make_index, tmp_path
):
    from lancedb.index import IvfSq

    old = large()
    old.store.vector_index_rows = 10**9
    old.refresh()
    table = old.store.table()  # as versions before it made it: a partition count, no target
    table.create_index("vector", config=IvfSq("l2", num_partitions=2), name="vector_idx_p2")
    assert vi.outdated(vi.vector_index(table))
    settings = IndexSettings(
        DB_PATH=tmp_path / "db",
        MODEL_NAME=old.embedder.model_name,
        CACHE_DIR=old.embedder.cache_dir,
    )
    reader = MiniragIndex(settings, embedder=old.embedder, read_only=True)
    reader.store.vector_index_rows = THRESHOLD
    assert reader.search("river stone", top_k=3).hits, "searched through the old index"
    reader.refresh()
    assert vi.outdated(vi.vector_index(reader.store.table())), "a reader never rebuilds it"
    writer = make_index()
    writer.store.vector_index_rows = THRESHOLD
    config = vi.vector_index(writer.store.table())
    assert not vi.outdated(config)
    assert config.index_details["target_partition_size"] == vi.PARTITION_ROWS
    assert len(writer.search("river stone", top_k=3).hits) == 3


def test_a_filter_too_narrow_for_the_probed_partitions_still_fills_top_k(make_index, monkeypatch):
    monkeypatch.setattr(vi, "PARTITION_ROWS", 10)  # 40 partitions, 1 probed
    monkeypatch.setattr(vi, "MIN_PROBES", 1)
    monkeypatch.setattr(vi, "PROBE_SHARE", 0.01)
    index = make_index(RAG_HYBRID_WEIGHT=0.0)
    index.store.vector_index_rows = THRESHOLD
    fill(index, range(DOCS))
    index.refresh()
    assert vi.vector_index(index.store.table()).name == "vector_idx_p40"
    wanted = {source_of(doc) for doc in (3, 77, 151)}
    result = index.search("lantern by the harbour", top_k=6, sources=wanted)
    assert len(result.hits) == 6, "more partitions searched until the filter's rows are found"
    assert {hit.source for hit in result.hits} == wanted


def test_the_index_is_trained_again_once_optimising_has_left_too_many_segments(large, monkeypatch):
    monkeypatch.setattr(vi, "MAX_SEGMENTS", 2)
    index = large()
    index.refresh()
    name = vi.vector_index(index.store.table()).name
    counts = []
    for n in range(3):  # each optimise leaves the new rows in a segment of their own
        fill(index, range(DOCS + n, DOCS + n + 1), seed=3 + n)
        index.refresh()
        counts.append(vi.segments(index.store.table(), name))
    assert counts == [2, 1, 2], "past two segments, one index again"
    assert unindexed(index) == 0
    assert index.search("river stone").hits
