"""A chunk whose exact text the index holds, embedded by the same model, is not embedded again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from minirag_index import ChunkInput, Embedder, SourceDoc
from minirag_index.embedding.model_spec import passage_key
from minirag_index.storage.store import Store
from testsupport.embedding import count_passages

PARAGRAPHS = [
    "The alpha protocol answers on port 4242 and logs every handshake.",
    "Crates of item seven are counted by the night shift every Friday.",
    "The beta relay forwards traffic from the harbour office to the depot.",
]


@pytest.fixture
def embedded(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the shared embedder is asked to embed as a passage."""
    return count_passages(embedder, monkeypatch)


def stored_vectors(index, source: str) -> list[np.ndarray]:
    table = index.store.column_table(["chunk_index", "vector"], f"source = '{source}'")
    order = np.argsort(table.column("chunk_index").to_numpy())
    return [np.asarray(table.column("vector")[int(i)].as_py()) for i in order]


def test_a_second_copy_under_another_name_embeds_nothing(make_index, embedded) -> None:
    index = make_index()
    chunks = [ChunkInput(text) for text in PARAGRAPHS]
    index.add_source(SourceDoc("/d/report.md"), chunks)
    assert embedded == PARAGRAPHS
    embedded.clear()

    index.add_source(SourceDoc("/d/report copy.md"), chunks)
    assert embedded == []
    copies = stored_vectors(index, "/d/report copy.md")
    originals = stored_vectors(index, "/d/report.md")
    assert len(copies) == len(originals) == 3
    for copy, original in zip(copies, originals, strict=True):
        assert np.array_equal(copy, original)
    index.refresh()
    hits = index.search("harbour office depot relay", top_k=2).hits
    assert {h.source for h in hits} == {"/d/report.md", "/d/report copy.md"}


def test_an_edited_chunk_is_embedded_and_the_others_are_reused(
    make_index, embedder: Embedder, embedded
) -> None:
    index = make_index()
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput(text) for text in PARAGRAPHS])
    embedded.clear()
    edited = [*PARAGRAPHS[:1], "Crates of item eight are counted on Mondays.", *PARAGRAPHS[2:]]
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput(text) for text in edited])
    assert embedded == [edited[1]]
    # The reused vectors are the model's own for those texts.
    fresh = embedder.embed_passages(edited)
    for vector, expected in zip(stored_vectors(index, "/d/a.md"), fresh, strict=True):
        assert np.allclose(vector, expected, atol=1e-5)


def test_a_text_repeated_in_one_store_is_embedded_once(make_index, embedded) -> None:
    index = make_index()
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput("Same line."), ChunkInput("Same line.")])
    assert embedded == ["Same line."]


def test_only_the_context_makes_a_chunk_new(make_index, embedded) -> None:
    """The text embedded is the whole chunk text, breadcrumb included: the same body under
    another heading is another passage."""
    index = make_index()
    body = PARAGRAPHS[0]
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput("Setup > " + body, context_chars=8)])
    embedded.clear()
    index.add_source(SourceDoc("/d/b.md"), [ChunkInput("Removal > " + body, context_chars=10)])
    assert embedded == ["Removal > " + body]


def test_the_passage_key_names_the_model(embedder: Embedder) -> None:
    spec = embedder.spec
    text = PARAGRAPHS[0]
    assert passage_key(spec, text) == passage_key(replace(spec, name="elsewhere"), text)
    others = [
        replace(spec, id="another-model"),
        replace(spec, dim=spec.dim * 2),
        replace(spec, passage_prefix="passage: "),
    ]
    keys = {passage_key(spec, text), *(passage_key(other, text) for other in others)}
    assert len(keys) == 4


def test_vectors_stored_without_their_model_are_never_reused(
    make_index, embedded, tmp_path: Path
) -> None:
    """Rows written by an older version, or by a caller handing in vectors of its own, carry
    no key: the same text is embedded by the model rather than given their vector."""
    rng = np.random.default_rng(3)
    Store(tmp_path / "db").replace_source(
        SourceDoc("/d/old.md"), [ChunkInput(PARAGRAPHS[0])], [rng.random(384, dtype=np.float32)]
    )
    index = make_index()
    index.add_source(SourceDoc("/d/new.md"), [ChunkInput(PARAGRAPHS[0])])
    assert embedded == [PARAGRAPHS[0]]


def test_an_index_from_before_the_passage_keys_gains_them(
    make_index, embedder: Embedder, embedded, tmp_path: Path
) -> None:
    import lancedb
    import pyarrow as pa

    from minirag_index.storage.schema import arrow_schema, table_row

    old_schema = pa.schema([f for f in arrow_schema(384) if f.name != "passage_key"])
    vector = embedder.embed_passages([PARAGRAPHS[0]])[0]
    row = table_row(SourceDoc("/d/old.md"), 0, ChunkInput(PARAGRAPHS[0]), vector, 0.0)
    del row["passage_key"]
    lancedb.connect(tmp_path / "db").create_table(
        "chunks", pa.Table.from_pylist([row], schema=old_schema)
    )
    embedded.clear()
    index = make_index()
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput(PARAGRAPHS[0]), ChunkInput(PARAGRAPHS[1])])
    assert embedded == PARAGRAPHS[:2]  # the old row has no key yet: nothing to reuse
    embedded.clear()
    index.add_source(SourceDoc("/d/b.md"), [ChunkInput(PARAGRAPHS[1])])
    assert embedded == []
    assert index.read_document("/d/old.md") == PARAGRAPHS[0]
