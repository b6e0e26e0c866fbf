"""Ingest configuration read from the environment, and document-root resolution.

Variables carry no prefix (``BASE_DIR``, ``BASE_DIRS``, ``MAX_FILE_SIZE``, ``ALLOW_PRIVATE_URLS``,
``CHUNK_TOKEN_BUDGET``, ``WATCH_QUIET_SECONDS``…), except ``RAG_OCR_MIN_CHARS_PER_PAGE`` and
the conversion limits ``RAG_CONVERT_MAX_MEMORY`` and ``RAG_CONVERT_TIMEOUT``.
``DB_PATH`` is the index's (:class:`~minirag_index.settings.IndexSettings`);
:func:`resolve_db_path` only picks its default.
A variable set to an empty string counts as unset, since launchers such as the Claude Desktop
bundle pass empty values for fields the user left blank.

``BASE_DIRS`` is kept as raw text on the model and only parsed by :func:`resolve_roots`, so a
broken value never stops the settings from loading: ``status`` can still report it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from minirag_index.settings import SWITCH_ACCEPTS, ConfigError, Switch
from minirag_index.settings import load_settings as load_any_settings
from minirag_index.storage import IndexLocation

__all__ = [
    "DEFAULT_CHUNK_TOKEN_BUDGET",
    "DEFAULT_CONVERT_MAX_MEMORY",
    "DEFAULT_CONVERT_TIMEOUT",
    "DEFAULT_MAX_FILE_SIZE",
    "DEFAULT_MIN_CHARS_PER_PAGE",
    "DEFAULT_WATCH_POLL",
    "DEFAULT_WATCH_QUIET",
    "ConfigError",
    "IngestSettings",
    "load_settings",
    "resolve_db_path",
    "resolve_roots",
]

DEFAULT_MAX_FILE_SIZE = 104_857_600  # 100 MB
DEFAULT_CHUNK_TOKEN_BUDGET = 110
DEFAULT_MIN_CHARS_PER_PAGE = 25
DEFAULT_CONVERT_MAX_MEMORY = 1 << 30  # 1 GB for conversion, each worker and all together
DEFAULT_CONVERT_TIMEOUT = 120.0  # seconds for one file's conversion
DEFAULT_WATCH_QUIET = 2.0  # seconds without a change before a watched folder is synced
DEFAULT_WATCH_POLL = 1.0  # seconds between looks when watching falls back to polling
MIN_CONVERT_MEMORY = 64 << 20  # below this nothing converts; catches "1" meant as 1 GB
_SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
DB_SUBDIR = Path(".minirag") / "lancedb"

BASE_DIRS_EXAMPLE = """BASE_DIRS='["/docs/a", "/docs/b"]'"""
BASE_DIRS_MESSAGE = "BASE_DIRS must be a JSON array of one or more non-empty path strings"

# What each variable accepts, completing "NAME must be ..." in a configuration error.
ACCEPTS = {
    "MAX_FILE_SIZE": "a positive whole number of bytes, e.g. 104857600 for 100 MB",
    "ALLOW_PRIVATE_URLS": SWITCH_ACCEPTS,
    "CHUNK_TOKEN_BUDGET": "a whole number from 16 to 128",
    "RAG_OCR_MIN_CHARS_PER_PAGE": "a whole number of characters, 0 or more (0 turns OCR of "
    "PDF pages off)",
    "RAG_CONVERT_MAX_MEMORY": "a size of at least 64M: bytes, or a whole number with K, M or G, "
    "e.g. 1G or 1536M",
    "RAG_CONVERT_TIMEOUT": "a positive number of seconds, e.g. 120",
    "WATCH_QUIET_SECONDS": "a number of seconds from 0.05 to 3600, e.g. 2",
    "WATCH_POLL_SECONDS": "a number of seconds from 0.05 to 3600, e.g. 1",
    "WATCH_FORCE_POLLING": SWITCH_ACCEPTS,
    "SYNC_LEASE_SECONDS": "a number of seconds from 1 to 3600, e.g. 60",
}


def _memory_size(value: Any) -> Any:
    """RAG_CONVERT_MAX_MEMORY's K, M or G (powers of 1024) turned into bytes; pydantic judges
    what is left."""
    if isinstance(value, str):
        text = value.strip().upper().removesuffix("B")
        unit = text[-1] if text and text[-1] in "KMG" else ""
        number = text[: len(text) - len(unit)]
        if number.isdigit():
            return int(number) * _SIZE_SUFFIXES[unit]
    return value


MemorySize = Annotated[int, BeforeValidator(_memory_size), Field(ge=MIN_CONVERT_MEMORY)]


class IngestSettings(BaseSettings):
    """Environment settings that ingestion needs (field names are the variables, any case).
    Use :func:`load_settings` to get a :class:`ConfigError` instead of a ValidationError."""

    model_config = SettingsConfigDict(extra="ignore", env_ignore_empty=True, frozen=True)

    base_dir: str | None = None
    base_dirs: str | None = None
    max_file_size: int = Field(default=DEFAULT_MAX_FILE_SIZE, gt=0)
    allow_private_urls: Switch = False
    chunk_token_budget: int = Field(default=DEFAULT_CHUNK_TOKEN_BUDGET, ge=16, le=128)
    # Pages of a PDF whose text layer holds fewer characters are read with OCR (0: never).
    rag_ocr_min_chars_per_page: int = Field(default=DEFAULT_MIN_CHARS_PER_PAGE, ge=0)
    # The memory ceiling and time limit of the conversion workers (see convert_pool.py).
    rag_convert_max_memory: MemorySize = DEFAULT_CONVERT_MAX_MEMORY
    rag_convert_timeout: float = Field(default=DEFAULT_CONVERT_TIMEOUT, gt=0, allow_inf_nan=False)
    # Watch mode (see watch.py): how long the folder must stay quiet before its changes are
    # synced, how often the polling fallback looks, and polling chosen up front (a network
    # drive, where native notifications never arrive).
    watch_quiet_seconds: float = Field(default=DEFAULT_WATCH_QUIET, ge=0.05, le=3600)
    watch_poll_seconds: float = Field(default=DEFAULT_WATCH_POLL, ge=0.05, le=3600)
    watch_force_polling: Switch = False
    # An index on object storage: how long a sync's lease lasts unrenewed (see lease.py).
    sync_lease_seconds: float = Field(default=60.0, ge=1, le=3600)


def describe_bytes(count: int) -> str:
    """A size as a person reads it: 1 GB, 1.5 GB, 512 MB, 20 KB."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


def load_settings(**overrides: Any) -> IngestSettings:
    """Read :class:`IngestSettings` from the environment; a bad value raises one
    :class:`ConfigError` naming every variable at fault."""
    return load_any_settings(IngestSettings, ACCEPTS, **overrides)


def parse_base_dirs(raw: str) -> list[str]:
    """Parse the BASE_DIRS JSON text into its list of path strings."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(item, str) and item.strip() for item in value)
    ):
        raise ConfigError(
            f"{BASE_DIRS_MESSAGE}, e.g. {BASE_DIRS_EXAMPLE}; got {raw!r}", variable="BASE_DIRS"
        )
    return value


def resolve_root(path: str) -> Path:
    """Expand ``~`` and resolve to the real absolute path (the folder need not exist)."""
    return Path(os.path.expanduser(path)).resolve()


def resolve_roots(cli_base_dirs: list[str] | None, settings: IngestSettings) -> list[Path]:
    """Pick the document roots: ``--base-dir`` > BASE_DIRS > BASE_DIR > current directory.

    The first level that is given replaces every level below it; levels never merge.
    Duplicates are dropped, keeping the first occurrence.
    """
    if cli_base_dirs:
        if not all(item.strip() for item in cli_base_dirs):
            raise ConfigError("--base-dir needs a non-empty folder path", variable="--base-dir")
        raw = list(cli_base_dirs)
    elif settings.base_dirs is not None:
        raw = parse_base_dirs(settings.base_dirs)
    elif settings.base_dir is not None and settings.base_dir.strip():
        raw = [settings.base_dir]
    else:
        raw = [os.getcwd()]
    roots: list[Path] = []
    for item in raw:
        root = resolve_root(item)
        if root not in roots:
            roots.append(root)
    return roots


def resolve_db_path(
    roots: list[Path],
    configured: str | os.PathLike[str] | IndexLocation | None,
    cli_db_path: str | None = None,
) -> IndexLocation:
    """``--db-path`` > DB_PATH (``configured``) > ``<first root>/.minirag/lancedb``: a folder
    as an absolute path, or an object-store URI. A ``--db-path`` that is not usable raises a
    :class:`ConfigError`."""
    chosen = cli_db_path if cli_db_path and cli_db_path.strip() else configured
    if chosen:
        try:
            return IndexLocation.parse(chosen).resolved()
        except ValueError as exc:
            raise ConfigError(f"--db-path: {exc}; got {chosen!r}", variable="--db-path") from None
    return IndexLocation("local", str(roots[0] / DB_SUBDIR))
