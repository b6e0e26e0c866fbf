"""Model loading: local folders, clear failures without a retry loop, the token counter."""

from __future__ import annotations

import socket

import pytest

from minirag_index import Embedder, ModelLoadError


@pytest.fixture(autouse=True)
def _fastembed_imported():
    import fastembed  # noqa: F401  (imported once so timings measure loading, not importing)


def test_local_folder_embeds_with_the_model_width(embedder):
    vector = embedder.embed_query("hello world")
    assert vector.shape == (384,)
    assert embedder.dim == 384


def test_passages_embed_the_same_after_the_arena_gives_its_memory_back(embedder):
    """A sync shrinks onnxruntime's arena after each batch; the next batch must not change."""
    import numpy as np

    texts = ["The Normans were a people of northern France.", "Steam engines " * 40]
    before = embedder.embed_passages(texts)
    embedder.release_arena()
    embedder.release_arena()  # nothing embedded since: a no-op
    after = embedder.embed_passages(texts)
    for one, other in zip(before, after, strict=True):
        np.testing.assert_allclose(one, other, rtol=0, atol=1e-6)
    assert embedder.embed_query("hello world").shape == (384,)


def test_token_counter_does_not_truncate(embedder):
    count = embedder.token_counter()
    assert count("word " * 900) > 900  # fastembed's own tokenizer stops at the model's limit
    assert count("hello") == 3  # [CLS] hello [SEP]


@pytest.fixture
def no_network(monkeypatch):
    """Any connection attempt fails the test: a failure must not wait on a download retry loop.

    How long failing takes is measured by bench/model_failure.py, not asserted here.
    """
    attempts = []

    def refuse(self, address):
        attempts.append(address)
        raise OSError("network use in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


def test_missing_folder_fails_at_once_naming_the_folder(tmp_path, monkeypatch, no_network):
    import fastembed

    def not_reached(*args, **kwargs):
        raise AssertionError("fastembed was asked to load a folder that does not exist")

    monkeypatch.setattr(fastembed.TextEmbedding, "__init__", not_reached)
    with pytest.raises(ModelLoadError) as info:
        Embedder(str(tmp_path / "no-such-model"), tmp_path / "cache").embed_query("x")
    assert "could not be loaded" in str(info.value)
    assert str(tmp_path / "no-such-model") in str(info.value)
    assert "does not exist" in str(info.value)
    assert "network" not in str(info.value)  # a local folder has nothing to do with it
    assert no_network == []


def test_unknown_model_offline_fails_without_touching_the_network(
    tmp_path, monkeypatch, no_network
):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("acme/no-such-model", "BAAI/bge-small-en-v1.5"):
        with pytest.raises(ModelLoadError, match="could not be loaded"):
            Embedder(name, tmp_path / "empty-cache").embed_query("x")
    assert no_network == []


def test_folder_missing_files_names_them(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "model.onnx").write_bytes(b"")
    with pytest.raises(ModelLoadError, match=r"tokenizer\.json"):
        Embedder(str(tmp_path / "m"), tmp_path / "cache").embed_query("x")


def test_the_embedding_threads_do_not_spin_between_runs(embedder):
    """Spinning threads would hold the cores a search's keyword side and vector scan run on
    while its query is embedded (onnx_options.py); sessions made elsewhere keep the default."""
    import onnxruntime

    session = embedder.session()
    entry = "session.intra_op.allow_spinning"
    assert session.get_session_options().get_session_config_entry(entry) == "0"
    with pytest.raises(Exception, match="does not have configuration"):
        onnxruntime.SessionOptions().get_session_config_entry(entry)


def test_each_run_computes_on_one_thread(embedder):
    """A query's run leaves the other core to the keyword search beside it (embedder.py)."""
    options = embedder.session().get_session_options()
    assert options.intra_op_num_threads == 1


def test_batches_embedded_side_by_side_give_each_text_its_own_vector_in_order(embedder):
    import numpy as np

    texts = [
        f"Paragraph {i}: " + "the river floods the valley every spring. " * (i % 7 + 1)
        for i in range(23)
    ]
    shared = embedder.parallel_batches  # the fixture's embedder serves the whole session
    try:
        embedder.parallel_batches = 1
        one_at_a_time = embedder.embed_passages(texts)
        embedder.parallel_batches = 3
        side_by_side = embedder.embed_passages(texts)
    finally:
        embedder.parallel_batches = shared
    assert len(side_by_side) == len(texts)
    for a, b in zip(one_at_a_time, side_by_side, strict=True):
        assert np.allclose(a, b, atol=1e-5)
    alone = [embedder.embed_passages([text])[0] for text in texts[:3]]
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(alone, side_by_side, strict=False))
