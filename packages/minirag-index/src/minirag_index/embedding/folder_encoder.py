"""Embeddings from a model folder with onnxruntime and tokenizers alone.

A model folder (MODEL_NAME a path, or a packaged model prepared under CACHE_DIR) used to be
registered with fastembed as a custom model with mean pooling and normalisation. Importing
fastembed also imports what it needs to download models and to embed images (huggingface_hub,
requests, tqdm, Pillow): about 150 modules and 15 MiB resident in a server that never
downloads anything for a folder (docs/benchmarks.md, "Memory, issue 22: fastmcp's state store
and the folder encoder"). :class:`FolderEncoder` does for a folder what fastembed did, in the
same steps, and gives the same vectors (``test_folder_encoder.py`` compares them with
fastembed's):

- the tokenizer is ``tokenizer.json`` truncated at the context that ``tokenizer_config.json``
  declares, with the special tokens of ``special_tokens_map.json`` added, padding to the
  longest text of a batch with the pad token the files name;
- the model gets ``input_ids``, and ``attention_mask`` and zero ``token_type_ids`` where it
  takes them; its first output is averaged over the real tokens (in float64), normalised to
  unit length and cast back to the model's type.

fastembed still loads a model id: it is what downloads it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_index.errors import MiniragError

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

MODEL_FILE = "model.onnx"


class FolderModelError(MiniragError, ValueError):
    """The folder's files do not describe a usable tokenizer; the message says which."""


def _read_json(path: Path, required: bool) -> dict[str, Any]:
    if not path.is_file():
        if required:
            raise FolderModelError(f"{path.name} is missing")
        return {}
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise FolderModelError(f"{path.name} does not hold a JSON object")
    return data


def _context_limit(value: Any) -> int | None:
    """A truncation limit as written, or None when it is not one (transformers writes 1e30 for
    "unknown"; some files hold 0 or null)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= sys.maxsize:
        return None
    return value


def _special_tokens(tokens_map: dict[str, Any]) -> Iterator[Any]:
    for value in tokens_map.values():
        if isinstance(value, list):
            yield from value
        else:
            yield value


def load_folder_tokenizer(folder: Path) -> Tokenizer:
    """The folder's tokenizer, truncating and padding as the model reads its inputs."""
    from tokenizers import AddedToken, Tokenizer

    config = _read_json(folder / "config.json", required=False)
    tokenizer_config = _read_json(folder / "tokenizer_config.json", required=True)
    tokens_map = _read_json(folder / "special_tokens_map.json", required=False)
    limits = [
        limit
        for limit in (
            _context_limit(tokenizer_config.get("model_max_length")),
            _context_limit(tokenizer_config.get("max_length")),
        )
        if limit is not None
    ]
    if not limits:
        raise FolderModelError(
            "tokenizer_config.json declares no context length (model_max_length or max_length)"
        )
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=min(limits),
        direction=tokenizer_config.get("truncation_side") or truncation.get("direction", "right"),
    )
    for token in _special_tokens(tokens_map):
        if isinstance(token, str):
            tokenizer.add_special_tokens([token])
        elif isinstance(token, dict):
            tokenizer.add_special_tokens([AddedToken(**token)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or tokenizer_config.get("pad_token")
    if pad_token is None:
        raise FolderModelError("no pad token is named in tokenizer.json or tokenizer_config.json")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None:
        pad_id = tokenizer.token_to_id(pad_token)
    if pad_id is None:
        raise FolderModelError(f"the pad token {pad_token!r} has no id in tokenizer.json")
    tokenizer.enable_padding(
        direction=tokenizer_config.get("padding_side") or padding.get("direction", "right"),
        pad_id=pad_id,
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"),
        length=None,
    )
    return tokenizer


class FolderEncoder:
    """Mean-pooled, normalised embeddings of a folder's ``model.onnx`` (see the module)."""

    def __init__(self, session: Any, tokenizer: Tokenizer) -> None:
        self.session = session
        self.tokenizer = tokenizer
        self._inputs = {node.name for node in session.get_inputs()}

    @classmethod
    def load(
        cls, folder: Path, session_options: Any, model_path: Path | None = None
    ) -> FolderEncoder:
        """The encoder of ``folder``; ``model_path`` is the model file to run when it is not
        the folder's own (an optimised copy of it)."""
        import onnxruntime as ort  # type: ignore[import-untyped]

        tokenizer = load_folder_tokenizer(folder)
        session = ort.InferenceSession(
            str(model_path or folder / MODEL_FILE),
            sess_options=session_options,
            providers=["CPUExecutionProvider"],
        )
        return cls(session, tokenizer)

    def embed(self, texts: Sequence[str], batch_size: int = 256) -> Iterator[np.ndarray]:
        """One vector per text, in order, ``batch_size`` texts to a run."""
        for start in range(0, len(texts), batch_size):
            yield from self._embed_batch(list(texts[start : start + batch_size]))

    def _embed_batch(self, texts: list[str]) -> Iterator[np.ndarray]:
        import numpy as np

        encoded = self.tokenizer.encode_batch(texts)
        input_ids = np.array([e.ids for e in encoded], dtype=np.int64)
        attention_mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": input_ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = attention_mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        output = self.session.run(None, feed)[0]
        summed = np.sum(
            output, axis=1, where=attention_mask[:, :, np.newaxis].astype(bool), dtype=np.float64
        )
        pooled = summed / np.maximum(np.sum(attention_mask, axis=1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
        yield from (pooled / norms).astype(output.dtype, copy=False)
