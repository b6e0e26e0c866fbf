"""A model folder loads without fastembed and embeds exactly as fastembed embeds it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minirag_index import Embedder, ModelLoadError
from minirag_index.embedding.embedder import MAX_SEQUENCE_TOKENS, runtime_modules
from minirag_index.embedding.folder_encoder import FolderEncoder

TEXTS = [
    "hello world",
    "The Normans were a people of northern France. " * 40,  # past the 128-token cap
    "Привет, мир: кириллица по буквам.",
    "",
    "a",
    "Steam engines drove the mills; " * 6,
]


def _fastembed_model(folder: Path, cache: Path):
    """fastembed's own model for the folder, as this index registered it before."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = f"local/parity-{abs(hash(str(folder))) % 10**8}"
    if name not in {m["model"] for m in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=name),
            dim=384,
            model_file="model.onnx",
        )
    model = TextEmbedding(
        name, specific_model_path=str(folder), cache_dir=str(cache), local_files_only=True
    )
    model.model.tokenizer.enable_truncation(max_length=MAX_SEQUENCE_TOKENS)
    return model


def test_a_folder_embeds_as_fastembed_embeds_it(embedder: Embedder, tmp_path: Path) -> None:
    assert isinstance(embedder.model(), FolderEncoder)
    folder = Path(embedder.model_name)
    reference = _fastembed_model(folder, tmp_path / "fastembed-cache")
    for batch_size in (1, 2, 4):
        theirs = list(reference.embed(TEXTS, batch_size=batch_size))
        ours = list(embedder.model().embed(TEXTS, batch_size=batch_size))
        assert len(ours) == len(TEXTS)
        for mine, other in zip(ours, theirs, strict=True):
            assert mine.dtype == other.dtype == np.float32
            np.testing.assert_allclose(mine, other, rtol=0, atol=1e-6)
    query = embedder.embed_query("When were the Normans in Normandy?")
    expected = next(iter(reference.embed(["When were the Normans in Normandy?"])))
    np.testing.assert_allclose(query, expected, rtol=0, atol=1e-6)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5


def test_embedding_with_a_folder_never_imports_fastembed(model_dir: Path, tmp_path: Path) -> None:
    script = f"""
import json, sys
from pathlib import Path
from minirag_index import Embedder
embedder = Embedder({str(model_dir)!r}, Path({str(tmp_path / "cache")!r}))
vector = embedder.embed_query("hello")
passages = embedder.embed_passages(["one", "two", "three"])
print(json.dumps({{"width": len(vector), "passages": len(passages),
                  "fastembed": "fastembed" in sys.modules}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"width": 384, "passages": 3, "fastembed": False}


def test_the_warm_up_imports_what_the_model_loads_with(model_dir: Path) -> None:
    assert runtime_modules(str(model_dir)) == ("onnxruntime", "tokenizers")
    assert runtime_modules("BAAI/bge-small-en-v1.5") == ("fastembed",)


def _copy_of(model_dir: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(model_dir, folder)
    return folder


def test_a_tokenizer_config_without_a_context_length_is_named(
    model_dir: Path, tmp_path: Path
) -> None:
    folder = _copy_of(model_dir, tmp_path)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    config.pop("model_max_length", None)
    config.pop("max_length", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ModelLoadError) as failed:
        Embedder(str(folder), tmp_path / "cache").embed_query("x")
    assert str(folder) in str(failed.value)
    assert "tokenizer_config.json declares no context length" in str(failed.value)


def test_a_broken_model_file_is_named_with_the_folder(model_dir: Path, tmp_path: Path) -> None:
    folder = _copy_of(model_dir, tmp_path)
    (folder / "model.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelLoadError) as failed:
        Embedder(str(folder), tmp_path / "cache").embed_query("x")
    assert str(folder) in str(failed.value)
    assert "MODEL_NAME" in str(failed.value)
