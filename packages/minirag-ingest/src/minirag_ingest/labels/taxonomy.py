"""The taxonomy file, ``<first root>/.minirag/classify.toml``: facets, their values, the model.

Parsing is strict. Only ``[model]`` and ``[facets.<name>]`` exist; any other table or key is an
error that names it, because a misspelt key silently ignored would label a corpus by rules the
user never wrote. Cross-field rules (a facet the model answers needs ``[model]``, a pinned
download needs all four of repo/file/revision/sha256…) are checked after the shapes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from minirag_ingest.errors import IngestError

TAXONOMY_FILE = Path(".minirag") / "classify.toml"
DEFAULT_QUESTION = "What kind of document is this?"
DEFAULT_FILE_NAME_LABEL = "File name"
DEFAULT_UNCERTAIN_BELOW = 0.7
MAX_MODEL_VALUES = 16
_SLUG = re.compile(r"^[a-z0-9_-]+$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class TaxonomyError(IngestError, ValueError):
    """The taxonomy file cannot be used; the message names the file and the offending key."""


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def normalize_folder(raw: str) -> str:
    """A folder rule as compared: NFC, ``/`` separators, no leading ``./`` or trailing ``/``.

    Raises ValueError for an absolute path, ``..`` or an empty rule.
    """
    text = nfc(raw.strip()).replace("\\", "/")
    if not text or text in (".", "./"):
        raise ValueError("a folder must not be empty")
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        raise ValueError(f"{raw!r} must be relative to the root, not absolute")
    parts = [part for part in PurePosixPath(text).parts if part not in ("", ".")]
    if ".." in parts:
        raise ValueError(f"{raw!r} must not contain '..'")
    if not parts:
        raise ValueError("a folder must not be empty")
    return "/".join(parts)


# -- the file's shapes (pydantic) ---------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ValueSpec(_Strict):
    description: str
    paths: list[str] = Field(default_factory=list)

    @field_validator("description")
    @classmethod
    def _described(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("description must not be empty")
        return value.strip()

    @field_validator("paths")
    @classmethod
    def _folders(cls, value: list[str]) -> list[str]:
        return [normalize_folder(folder) for folder in value]


class FacetSpec(_Strict):
    values: dict[str, ValueSpec]
    question: str = DEFAULT_QUESTION
    within: list[str] = Field(default_factory=list)
    default: str | None = None
    override_at: float | None = None

    @field_validator("question")
    @classmethod
    def _asked(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question must not be empty")
        return value.strip()

    @field_validator("within")
    @classmethod
    def _within(cls, value: list[str]) -> list[str]:
        return [normalize_folder(folder) for folder in value]

    @field_validator("override_at", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("override_at")
    @classmethod
    def _threshold(cls, value: float | None) -> float | None:
        if value is not None and not 0 < value <= 1:
            raise ValueError(f"must be in (0, 1], got {value}")
        return value


class ModelSpec(_Strict):
    path: str | None = None
    repo: str | None = None
    file: str | None = None
    revision: str | None = None
    sha256: str | None = None
    temperature: float
    uncertain_below: float = DEFAULT_UNCERTAIN_BELOW
    file_name_label: str = DEFAULT_FILE_NAME_LABEL

    @field_validator("temperature", "uncertain_below", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("temperature")
    @classmethod
    def _positive(cls, value: float) -> float:
        if not value > 0:
            raise ValueError(f"must be greater than 0, got {value}")
        return value

    @field_validator("uncertain_below")
    @classmethod
    def _open_unit(cls, value: float) -> float:
        if not 0 < value < 1:
            raise ValueError(f"must be in (0, 1), got {value}")
        return value

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and not _SHA256.match(value.strip().lower()):
            raise ValueError("must be 64 hexadecimal digits")
        return value.strip().lower() if value is not None else None

    @field_validator("file_name_label")
    @classmethod
    def _label(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value.strip()

    @property
    def local_path(self) -> Path | None:
        return Path(self.path).expanduser() if self.path is not None else None

    @property
    def download_url_path(self) -> str:
        """``{repo}/resolve/{revision}/{file}``: where a pinned file sits on a Hugging Face host."""
        return f"{self.repo}/resolve/{self.revision}/{self.file}"

    def describe(self) -> str:
        if self.path is not None:
            return str(self.local_path)
        return f"{self.repo}/{self.file}@{self.revision}"


class _FileShape(_Strict):
    model: ModelSpec | None = None
    facets: dict[str, FacetSpec] = Field(default_factory=dict)


# -- the parsed taxonomy ------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    id: str
    description: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class Facet:
    name: str
    values: tuple[Value, ...]
    question: str = DEFAULT_QUESTION
    within: tuple[str, ...] = ()
    default: str | None = None
    override_at: float | None = None

    @property
    def value_ids(self) -> tuple[str, ...]:
        return tuple(value.id for value in self.values)

    @property
    def needs_model(self) -> bool:
        """Whether some document could send this facet to the model."""
        return self.default is None or self.override_at is not None

    @property
    def path_rules(self) -> list[tuple[str, str]]:
        """(folder, value id) for every ``paths`` entry."""
        return [(folder, value.id) for value in self.values for folder in value.paths]

    def fingerprint(self, model: ModelSpec | None) -> str:
        """Changes whenever anything that could change this facet's labels changes."""
        data = {
            "name": self.name,
            "values": [[v.id, v.description, list(v.paths)] for v in self.values],
            "question": self.question,
            "within": list(self.within),
            "default": self.default,
            "override_at": self.override_at,
            "model": model.model_dump() if (model is not None and self.needs_model) else None,
        }
        raw = json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.blake2b(raw, digest_size=8).hexdigest()


@dataclass(frozen=True)
class Taxonomy:
    facets: tuple[Facet, ...]
    model: ModelSpec | None = None
    path: Path | None = None

    def facet(self, name: str) -> Facet | None:
        return next((facet for facet in self.facets if facet.name == name), None)

    @property
    def needs_model(self) -> bool:
        return any(facet.needs_model for facet in self.facets)

    def fingerprint(self) -> str:
        """One digest over every facet's fingerprint: a stored label set with another one
        was made under another taxonomy and is re-labelled by the next sync."""
        joined = ",".join(f"{f.name}={f.fingerprint(self.model)}" for f in self.facets)
        return hashlib.blake2b(joined.encode("utf-8"), digest_size=8).hexdigest()

    def filter_vocabulary(self) -> dict[str, list[str]]:
        """facet → value ids, the plain data :mod:`minirag_index.search.filters` validates
        against."""
        return {facet.name: list(facet.value_ids) for facet in self.facets}

    def within_map(self) -> dict[str, list[str]]:
        return {facet.name: list(facet.within) for facet in self.facets if facet.within}


# -- parsing ------------------------------------------------------------------------------


def _dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def _error_text(error: Any, source: str) -> str:
    loc = tuple(error["loc"])
    key = _dotted(loc)
    kind = error["type"]
    if kind == "extra_forbidden":
        if len(loc) == 1:
            return (
                f"{source}: unknown table or key {key!r}; only [model] and [facets.<name>] "
                "are allowed"
            )
        return f"{source}: unknown key {key!r}"
    if kind == "missing":
        return f"{source}: {key} is required"
    message = error["msg"].removeprefix("Value error, ")
    return f"{source}: {key}: {message}"


def parse_taxonomy(
    text: str, *, source: str = "classify.toml", path: Path | None = None
) -> Taxonomy:
    """Parse and check the file's text. Raises :class:`TaxonomyError` naming the key at fault."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TaxonomyError(f"{source}: not valid TOML: {exc}") from None
    try:
        shape = _FileShape.model_validate(raw)
    except ValidationError as exc:
        messages = [_error_text(error, source) for error in exc.errors()]
        raise TaxonomyError("; ".join(messages)) from None
    return _check(shape, source, path)


def _check(shape: _FileShape, source: str, path: Path | None) -> Taxonomy:
    if not shape.facets:
        raise TaxonomyError(f"{source}: no facet is defined; add at least one [facets.<name>]")
    facets = [_check_facet(name, spec, source) for name, spec in shape.facets.items()]
    model = shape.model
    if model is not None:
        _check_model(model, source)
    needing = [facet.name for facet in facets if facet.needs_model]
    if needing and model is None:
        raise TaxonomyError(
            f"{source}: [model] is required because facet {needing[0]!r} is answered by the "
            "model (it has no default, or it has override_at)"
        )
    return Taxonomy(facets=tuple(facets), model=model, path=path)


def _check_facet(name: str, spec: FacetSpec, source: str) -> Facet:
    key = f"facets.{name}"
    if not _SLUG.match(name):
        raise TaxonomyError(
            f"{source}: facet name {name!r} ({key}) must be a lowercase slug (a-z, 0-9, _ and -)"
        )
    if not spec.values:
        raise TaxonomyError(f"{source}: {key}.values: a facet needs at least one value")
    for value_id in spec.values:
        if not _SLUG.match(value_id):
            raise TaxonomyError(
                f"{source}: value id {value_id!r} ({key}.values.{value_id}) must be a "
                "lowercase slug (a-z, 0-9, _ and -)"
            )
    if spec.default is not None and spec.default not in spec.values:
        valid = ", ".join(spec.values)
        raise TaxonomyError(
            f"{source}: {key}.default: {spec.default!r} is not one of its values ({valid})"
        )
    seen: dict[str, str] = {}
    for value_id, value in spec.values.items():
        for folder in value.paths:
            if folder in seen and seen[folder] != value_id:
                raise TaxonomyError(
                    f"{source}: {key}.values.{value_id}.paths: folder {folder!r} is "
                    f"already a rule of value {seen[folder]!r}"
                )
            seen[folder] = value_id
    facet = Facet(
        name=name,
        values=tuple(Value(vid, v.description, tuple(v.paths)) for vid, v in spec.values.items()),
        question=spec.question,
        within=tuple(spec.within),
        default=spec.default,
        override_at=spec.override_at,
    )
    if facet.needs_model and len(facet.values) > MAX_MODEL_VALUES:
        raise TaxonomyError(
            f"{source}: {key}.values: a facet the model answers takes at most "
            f"{MAX_MODEL_VALUES} values, this one has {len(facet.values)} (give it a default "
            "without override_at to answer it by paths only)"
        )
    return facet


def _check_model(model: ModelSpec, source: str) -> None:
    pinned = {"repo": model.repo, "file": model.file, "revision": model.revision}
    pinned["sha256"] = model.sha256
    given = [key for key, value in pinned.items() if value is not None]
    if model.path is not None and given:
        raise TaxonomyError(
            f"{source}: model.path and model.{given[0]} are both set; [model] names either a "
            "local file (path) or a pinned download (repo, file, revision, sha256), not both"
        )
    if model.path is None and len(given) < len(pinned):
        missing = ", ".join(f"model.{key}" for key in pinned if pinned[key] is None)
        raise TaxonomyError(
            f"{source}: [model] needs either path, or repo, file, revision and sha256 "
            f"together; missing {missing}"
        )
    if model.path is not None and not model.path.strip():
        raise TaxonomyError(f"{source}: model.path must not be empty")


def taxonomy_path(first_root: Path) -> Path:
    return Path(first_root) / TAXONOMY_FILE


def load_taxonomy(path: Path) -> Taxonomy:
    """Read and parse ``path``. Raises TaxonomyError (unreadable or invalid)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaxonomyError(f"{path}: cannot be read: {exc}") from None
    return parse_taxonomy(text, source=str(path), path=Path(path))


class TaxonomyLoader:
    """The taxonomy of one corpus, re-read whenever the file's mtime or size changes.

    :meth:`get` returns None when there is no file (the feature is off) and raises
    :class:`TaxonomyError` while the file cannot be parsed; :attr:`error` keeps that message
    for status.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._stamp: tuple[int, int, int] | None = None
        self._taxonomy: Taxonomy | None = None
        self._error: str | None = None
        self._loaded = False

    @classmethod
    def for_root(cls, first_root: Path) -> TaxonomyLoader:
        return cls(taxonomy_path(first_root))

    def _current_stamp(self) -> tuple[int, int, int] | None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino)

    def _refresh(self) -> None:
        stamp = self._current_stamp()
        if self._loaded and stamp == self._stamp:
            return
        self._stamp, self._loaded = stamp, True
        self._taxonomy, self._error = None, None
        if stamp is None:
            return
        try:
            self._taxonomy = load_taxonomy(self.path)
        except TaxonomyError as exc:
            self._error = str(exc)

    @property
    def present(self) -> bool:
        self._refresh()
        return self._stamp is not None

    @property
    def error(self) -> str | None:
        self._refresh()
        return self._error

    def get(self) -> Taxonomy | None:
        self._refresh()
        if self._error is not None:
            raise TaxonomyError(self._error)
        return self._taxonomy

    def require(self) -> Taxonomy:
        """The taxonomy; :class:`TaxonomyError` when the file is gone or cannot be parsed."""
        taxonomy = self.get()
        if taxonomy is None:
            raise TaxonomyError(f"there is no {self.path}")
        return taxonomy
