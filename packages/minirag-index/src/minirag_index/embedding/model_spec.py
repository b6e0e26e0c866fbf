"""What identifies an embedding model to an index: its id, vector width and prefix rule.

Vectors of two models cannot be compared even when their widths agree, so an index records the
model it was embedded with (see :mod:`minirag_index.storage.store`) and refuses another one.

Some models (e5) are trained to read queries and passages behind prefixes such as
``"query: "`` and ``"passage: "``. The rule is taken from the model's own description, never
guessed from its name:

- a model folder's ``minirag-model.json`` (``id``, ``query_prefix``, ``passage_prefix``; each
  optional), which the packaged model's prepared folder carries;
- otherwise the ``prompts`` of a sentence-transformers ``config_sentence_transformers.json``
  (``query``, and ``passage`` or ``document``);
- otherwise, when the folder's ``config.json`` says it is one of intfloat's e5 models
  (``_name_or_path``, as Hugging Face exports write it, or a converter's ``_source`` note names
  ``intfloat/e5-…`` or ``intfloat/multilingual-e5-…`` in a small, base or large size), e5's own
  ``"query: "`` / ``"passage: "``, which those models were trained with (the instruct
  variants use other prompts and are not matched);
- fastembed's catalogue states only whether prefixes are needed, not which, so its models are
  embedded without one.

The end of the module holds the record's form (string metadata on the vector column) and the
messages that refuse another model.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minirag_index.errors import MiniragError

DESCRIPTION_FILE = "minirag-model.json"
SENTENCE_TRANSFORMERS_FILE = "config_sentence_transformers.json"
CONFIG_FILE = "config.json"

E5_PREFIXES = ("query: ", "passage: ")
# The e5 models whose cards ask for E5_PREFIXES; "-instruct" and other suffixes do not match.
_E5_NAME = re.compile(r"intfloat/(?:multilingual-)?e5-(?:small|base|large)(?:-v2)?(?![\w-])", re.I)
_CONFIG_NAME_KEYS = ("_name_or_path", "_source")


class ModelDescriptionError(MiniragError, ValueError):
    """A model folder's description cannot be read; the message names the file."""


@dataclass(frozen=True)
class ModelSpec:
    """The identity of an embedding model. ``name`` (the MODEL_NAME it was reached by) is kept
    for messages and is not part of the identity."""

    id: str
    dim: int
    query_prefix: str = ""
    passage_prefix: str = ""
    name: str = field(default="", compare=False)

    def prefix_rule(self) -> str:
        if not self.query_prefix and not self.passage_prefix:
            return "no prefixes"
        return f"queries prefixed {self.query_prefix!r}, passages {self.passage_prefix!r}"

    def describe(self) -> str:
        return f"{self.id!r} ({self.dim} dimensions, {self.prefix_rule()})"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelDescriptionError(f"{path} cannot be read: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ModelDescriptionError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ModelDescriptionError(f"{path} must hold a JSON object")
    return data


def _text(data: dict[str, Any], key: str, path: Path) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ModelDescriptionError(f"{path}: {key!r} must be a string")
    return value


def folder_prefixes(folder: Path) -> tuple[str, str]:
    """(query prefix, passage prefix) a model folder declares; empty strings when none."""
    ours = folder / DESCRIPTION_FILE
    if ours.is_file():
        data = _read_json(ours)
        return _text(data, "query_prefix", ours), _text(data, "passage_prefix", ours)
    theirs = folder / SENTENCE_TRANSFORMERS_FILE
    if theirs.is_file():
        prompts = _read_json(theirs).get("prompts") or {}
        if isinstance(prompts, dict):
            query = prompts.get("query", "")
            passage = prompts.get("passage", prompts.get("document", ""))
            if isinstance(query, str) and isinstance(passage, str):
                return query, passage
    config = folder / CONFIG_FILE
    if config.is_file() and names_e5(_read_json(config)):
        return E5_PREFIXES
    return "", ""


def names_e5(config: dict[str, Any]) -> bool:
    """Whether a ``config.json`` says its model is one of the e5 models trained with
    :data:`E5_PREFIXES`."""
    return any(
        isinstance(value := config.get(key), str) and _E5_NAME.search(value)
        for key in _CONFIG_NAME_KEYS
    )


def folder_dim(folder: Path) -> int:
    """The vector width a model folder declares (its description, else ``config.json``)."""
    ours = folder / DESCRIPTION_FILE
    if ours.is_file() and isinstance(dim := _read_json(ours).get("dim"), int):
        return dim
    config_path = folder / CONFIG_FILE
    config = _read_json(config_path)
    for key in ("hidden_size", "d_model", "dim"):
        if isinstance(config.get(key), int):
            return config[key]
    raise ModelDescriptionError(f"{config_path} names no hidden_size")


def folder_spec(folder: Path, name: str = "") -> ModelSpec:
    """The identity of the model in ``folder``: the id its description declares, else the
    folder's own path (so the same files elsewhere are, to the index, another model)."""
    ours = folder / DESCRIPTION_FILE
    declared = _text(_read_json(ours), "id", ours) if ours.is_file() else ""
    query, passage = folder_prefixes(folder)
    return ModelSpec(
        id=declared.strip() or str(folder),
        dim=folder_dim(folder),
        query_prefix=query,
        passage_prefix=passage,
        name=name or str(folder),
    )


def write_description(folder: Path, spec: ModelSpec, **extra: Any) -> None:
    """Write ``minirag-model.json`` for ``spec`` (plus ``extra`` fields) into ``folder``."""
    data = {
        "id": spec.id,
        "dim": spec.dim,
        "query_prefix": spec.query_prefix,
        "passage_prefix": spec.passage_prefix,
        **extra,
    }
    (folder / DESCRIPTION_FILE).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def passage_key(model: ModelSpec, text: str) -> str:
    """What a stored vector is found again by: the model's identity and the exact text it
    read (the passage prefix and the chunk), hashed. Two chunks with the same key get the same
    vector, so a chunk already in the index is never embedded again; another model, width or
    prefix gives another key, so no vector is ever reused across models."""
    read = "\x1f".join((model.id, str(model.dim), model.passage_prefix + text))
    return hashlib.blake2b(read.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


# -- the record an index keeps (see minirag_index.storage.store) --------------------------------

# Keys of the vector column's metadata that record the model (values are strings).
MODEL_KEYS = {
    "id": "minirag.model.id",
    "dim": "minirag.model.dim",
    "query_prefix": "minirag.model.query_prefix",
    "passage_prefix": "minirag.model.passage_prefix",
    "name": "minirag.model.name",
}


def model_metadata(model: ModelSpec) -> dict[str, str]:
    return {key: str(getattr(model, attribute)) for attribute, key in MODEL_KEYS.items()}


def model_from_metadata(metadata: dict[bytes, bytes] | None) -> ModelSpec | None:
    """The model a vector column records, or None for a column without a record."""
    values = {k.decode("utf-8"): v.decode("utf-8") for k, v in (metadata or {}).items()}
    if MODEL_KEYS["id"] not in values:
        return None
    return ModelSpec(
        id=values[MODEL_KEYS["id"]],
        dim=int(values.get(MODEL_KEYS["dim"], "0")),
        query_prefix=values.get(MODEL_KEYS["query_prefix"], ""),
        passage_prefix=values.get(MODEL_KEYS["passage_prefix"], ""),
        name=values.get(MODEL_KEYS["name"], ""),
    )


def dim_mismatch(db_path: object, stored: int | None, dim: int) -> str | None:
    """Why vectors of width ``dim`` may not join an index holding ``stored``-wide ones."""
    if stored is None or stored == dim:
        return None
    return (
        f"The index at {db_path} holds {stored}-dimensional vectors but the embedding model "
        f"makes {dim}-dimensional ones; vectors of different models cannot be compared. Point "
        "DB_PATH at another folder, or delete this index and re-ingest."
    )


def index_model_problem(
    db_path: object, recorded: ModelSpec | None, stored_dim: int | None, model: ModelSpec
) -> str | None:
    """Why ``model`` may not be used with an index holding ``stored_dim``-wide vectors made by
    ``recorded``: it is not the recorded model (without a record: its vectors have another
    width). None when it may."""
    if recorded is not None:
        return model_mismatch(db_path, recorded, model)
    return dim_mismatch(db_path, stored_dim, model.dim)


def model_mismatch(db_path: object, recorded: ModelSpec, configured: ModelSpec) -> str | None:
    """Why ``configured`` may not search or extend an index built with ``recorded``, if so."""
    if recorded == configured:
        return None
    folder = Path(configured.name or configured.id).expanduser()
    if (recorded.id, recorded.dim) == (configured.id, configured.dim) and folder.is_dir():
        return prefix_mismatch(db_path, recorded, configured, folder)
    return (
        f"The index at {db_path} was embedded with the model {recorded.describe()}, but "
        f"MODEL_NAME selects {configured.describe()}. Vectors of two models cannot be compared, "
        f"even at the same width, so the index refuses to mix them. Either set MODEL_NAME back "
        f"to {recorded.name or recorded.id}, or point DB_PATH at a new folder (or delete this "
        "index) and sync again to embed every document with the new model."
    )


def prefix_mismatch(
    db_path: object, recorded: ModelSpec, configured: ModelSpec, folder: Path
) -> str:
    """The same model ``folder``, read with another prefix rule than the index was embedded
    with (the folder's files changed, or a newer version reads them differently)."""
    return (
        f"The index at {db_path} was embedded with the model {configured.id!r} with "
        f"{recorded.prefix_rule()}, but the model folder {folder} declares "
        f"{configured.prefix_rule()}: the model reads queries and passages differently, so the "
        "index refuses to mix the two rules. To embed everything with the folder's rule, point "
        "DB_PATH at a new folder (or delete this index) and sync again. To keep this index as "
        f"it is, write the rule it was built with into {folder / DESCRIPTION_FILE}: "
        f'{{"query_prefix": {json.dumps(recorded.query_prefix)}, '
        f'"passage_prefix": {json.dumps(recorded.passage_prefix)}}}.'
    )
