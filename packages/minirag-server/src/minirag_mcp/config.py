"""Settings composition: the index's and the ingester's settings, CLI overrides, and the
server's own variables, resolved into one :class:`Config`.

A bad value never raises out of :func:`load_config`. The message lands in ``Config.error`` so
``status`` can still answer and every other tool can report it as its error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minirag_index.settings import IndexSettings
    from minirag_ingest.ocr import OcrSettings
    from minirag_ingest.settings import IngestSettings

try:
    __version__ = version("minirag-mcp")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

APPEND_VARIABLE = "RAG_INSTRUCTIONS_APPEND"


@dataclass
class Config:
    """Everything a server or CLI run needs to know, resolved once."""

    version: str = __version__
    roots: list[Path] = field(default_factory=list)
    db_path: Path | None = None
    index: IndexSettings | None = None
    ingest: IngestSettings | None = None
    ocr: OcrSettings | None = None
    instructions_append: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _blank_to_none(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        return None
    return value


def load_config(overrides: dict[str, Any] | None = None) -> Config:
    """Resolve the configuration from the environment and ``overrides``.

    ``overrides`` keys (all optional, None meaning "not given"): ``base_dirs`` (a list of
    folders, replacing BASE_DIR/BASE_DIRS), ``db_path``, ``cache_dir``, ``model_name``.
    """
    from minirag_index.settings import IndexConfigError, load_index_settings
    from minirag_ingest.settings import (
        ConfigError,
        load_settings,
        resolve_db_path,
        resolve_roots,
    )

    overrides = {k: _blank_to_none(v) for k, v in (overrides or {}).items()}
    config = Config(instructions_append=_blank_to_none(os.environ.get(APPEND_VARIABLE)))
    problems: list[str] = []

    try:
        config.ingest = load_settings()
    except ConfigError as exc:
        problems.append(str(exc))

    if config.ingest is not None:
        try:
            config.roots = resolve_roots(overrides.get("base_dirs") or None, config.ingest)
            config.db_path = resolve_db_path(config.roots, config.ingest, overrides.get("db_path"))
        except ConfigError as exc:
            problems.append(str(exc))

    cache_dir = overrides.get("cache_dir")
    try:
        config.index = load_index_settings(
            DB_PATH=config.db_path,
            CACHE_DIR=Path(os.path.expanduser(cache_dir)).resolve() if cache_dir else None,
            MODEL_NAME=overrides.get("model_name"),
        )
    except IndexConfigError as exc:
        problems.append(str(exc))

    try:
        from minirag_ingest.ocr import load_ocr_engine, load_ocr_settings

        config.ocr = load_ocr_settings(
            CACHE_DIR=config.index.CACHE_DIR if config.index is not None else None
        )
        # Building the engine loads no model; it is what checks RAG_OCR_LANG against the
        # installed engine's languages, so a bad value is a configuration error from the start.
        load_ocr_engine(config.ocr)
    except ConfigError as exc:
        problems.append(str(exc))

    if problems:
        config.error = " ".join(problems)
    return config
