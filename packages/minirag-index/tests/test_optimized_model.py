"""The embedding model loads from a copy onnxruntime optimised once, kept under CACHE_DIR."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minirag_index import Embedder
from minirag_index.embedding import optimized_model as om

_LOAD_PEAK = """
import sys
import onnxruntime as ort

def high_water():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) // 1024

before = high_water()
ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
print(high_water() - before)
"""


def _load_peak_mib(model: Path) -> int:
    """How far loading ``model`` raises a fresh process's peak resident memory."""
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_PEAK, str(model)], capture_output=True, text=True, check=True
    )
    return int(done.stdout.split()[-1])


def _vectors(model: Path, texts_ids: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    feed = {}
    for node in session.get_inputs():
        if node.name == "input_ids":
            feed[node.name] = texts_ids
        elif node.name == "attention_mask":
            feed[node.name] = np.ones_like(texts_ids)
        else:
            feed[node.name] = np.zeros_like(texts_ids)
    return session.run(None, feed)[0]


@pytest.fixture(autouse=True)
def _forget_failures():
    om._failed.clear()
    yield
    om._failed.clear()


def test_the_embedder_loads_the_copy_it_made_under_the_cache_folder(model_dir, tmp_path):
    cache = tmp_path / "cache"
    embedder = Embedder(str(model_dir), cache)
    vector = embedder.embed_query("tomatoes need full sun")
    copies = list((cache / "optimized").iterdir())
    assert len(copies) == 1 and (copies[0] / om.READY_FILE).is_file()
    session = embedder.session()
    assert Path(session._model_path) == copies[0] / om.MODEL_FILE
    assert vector.shape == (embedder.dim,)


def test_the_copy_computes_what_the_model_file_does(model_dir, tmp_path):
    copy = om.optimized_copy(model_dir / "model.onnx", tmp_path)
    assert copy is not None
    ids = np.random.default_rng(3).integers(1000, 20000, (2, 24)).astype(np.int64)
    original, optimised = _vectors(model_dir / "model.onnx", ids), _vectors(copy, ids)
    assert np.allclose(original, optimised, atol=1e-5)


def test_loading_the_copy_peaks_far_lower_than_loading_the_model_file(model_dir, tmp_path):
    """Optimising while loading holds the file, its int8 weights and their float32 folds at
    once; the copy's weights are mapped from its weights file instead."""
    copy = om.optimized_copy(model_dir / "model.onnx", tmp_path)
    assert copy is not None
    original, optimised = _load_peak_mib(model_dir / "model.onnx"), _load_peak_mib(copy)
    assert optimised < original - 100, (original, optimised)


def test_a_copy_is_made_once_and_again_when_the_model_file_changes(model_dir, tmp_path):
    model = tmp_path / "model" / "model.onnx"
    model.parent.mkdir()
    model.write_bytes((model_dir / "model.onnx").read_bytes())
    first = om.optimized_copy(model, tmp_path / "cache")
    assert first is not None
    made = first.stat().st_mtime_ns
    assert om.optimized_copy(model, tmp_path / "cache") == first
    assert first.stat().st_mtime_ns == made  # reused, not made again
    model.write_bytes(model.read_bytes())  # a new modification time: maybe another model
    second = om.optimized_copy(model, tmp_path / "cache")
    assert second is not None and second != first and second.is_file()
    assert not first.exists()  # the copy of the file as it was is deleted


def test_a_cache_folder_it_cannot_write_leaves_the_model_loading_from_its_file(
    model_dir, tmp_path, caplog
):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "optimized").write_text("not a folder")
    with caplog.at_level(logging.WARNING, logger="minirag_index.embedding.optimized_model"):
        embedder = Embedder(str(model_dir), cache)
        vector = embedder.embed_query("tomatoes need full sun")
    assert vector.shape == (embedder.dim,)
    session = embedder.session()
    assert Path(session._model_path) == model_dir / "model.onnx"
    assert any(
        str(cache / "optimized") in record.getMessage() and "works as before" in record.getMessage()
        for record in caplog.records
    )


def test_a_failed_optimisation_names_its_reason_and_leaves_no_partial_copy(tmp_path, caplog):
    broken = tmp_path / "model" / "model.onnx"
    broken.parent.mkdir()
    broken.write_bytes(b"this is not an onnx model")
    with caplog.at_level(logging.WARNING, logger="minirag_index.embedding.optimized_model"):
        assert om.optimized_copy(broken, tmp_path / "cache") is None
    assert [p.name for p in (tmp_path / "cache" / "optimized").iterdir()] == []
    assert any(str(broken) in record.getMessage() for record in caplog.records)


def test_a_model_whose_weights_are_already_float_keeps_no_copy(model_dir, tmp_path):
    """The copy of a float32 model would double its disk for little: a note says so."""
    folded = om.optimized_copy(model_dir / "model.onnx", tmp_path / "first")
    assert folded is not None  # the test model's int8 weights fold into a larger copy
    assert om.optimized_copy(folded, tmp_path / "cache") is None
    (folder,) = (tmp_path / "cache" / "optimized").iterdir()
    assert [p.name for p in folder.iterdir()] == [om.READY_FILE]
    assert om.optimized_copy(folded, tmp_path / "cache") is None  # and is not made again


def test_a_new_copy_replaces_the_older_ones_of_its_model_and_of_models_gone(model_dir, tmp_path):
    """Each copy takes the disk of the float32 weights: one per model file is kept."""
    cache = tmp_path / "cache"
    model, gone = tmp_path / "model" / "model.onnx", tmp_path / "gone" / "model.onnx"
    for path in (model, gone):
        path.parent.mkdir()
        path.write_bytes((model_dir / "model.onnx").read_bytes())
    first, of_gone = om.optimized_copy(model, cache), om.optimized_copy(gone, cache)
    assert first is not None and of_gone is not None
    gone.unlink()
    model.write_bytes(model.read_bytes())  # changed: the next load makes a new copy
    second = om.optimized_copy(model, cache)
    assert second is not None and second.is_file()
    assert [p.parent for p in (cache / "optimized").glob(f"*/{om.MODEL_FILE}")] == [second.parent]


def test_a_copy_whose_ready_note_is_damaged_is_made_again(model_dir, tmp_path):
    """A note cut short or overwritten (a disk error, another program) must not stop the model
    from loading: the copy is made again."""
    first = om.optimized_copy(model_dir / "model.onnx", tmp_path / "cache")
    assert first is not None
    (first.parent / om.READY_FILE).write_bytes(b"\xff\xfe not text")
    first.unlink()
    again = om.optimized_copy(model_dir / "model.onnx", tmp_path / "cache")
    assert again == first and again.is_file()
    assert om._read_ready(again.parent)[0]
