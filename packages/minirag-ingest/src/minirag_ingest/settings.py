"""Ingest configuration read from the environment, and document-root resolution.

Variables carry no prefix (``BASE_DIR``, ``BASE_DIRS``, ``DB_PATH``, ``MAX_FILE_SIZE``,
``ALLOW_PRIVATE_URLS``), except the conversion limits ``RAG_CONVERT_MAX_MEMORY`` and
``RAG_CONVERT_TIMEOUT``. A variable set to an empty string counts as unset, since launchers such
as the Claude Desktop bundle pass empty values for fields the user left blank.

``BASE_DIRS`` is kept as raw text on the model and only parsed by :func:`resolve_roots`, so a
broken value never stops the settings from loading: ``status`` can still report it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_MAX_FILE_SIZE = 104_857_600  # 100 MB
DEFAULT_CONVERT_MAX_MEMORY = 1 << 30  # 1 GB for conversion, each worker and all together
DEFAULT_CONVERT_TIMEOUT = 120.0  # seconds for one file's conversion
MIN_CONVERT_MEMORY = 64 << 20  # below this nothing converts; catches "1" meant as 1 GB
_SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
DB_SUBDIR = Path(".minirag") / "lancedb"

_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
_FALSE_WORDS = frozenset({"0", "false", "no", "off"})

BASE_DIRS_EXAMPLE = """BASE_DIRS='["/docs/a", "/docs/b"]'"""
BASE_DIRS_MESSAGE = "BASE_DIRS must be a JSON array of one or more non-empty path strings"


class ConfigError(Exception):
    """A configuration value is invalid; the message names the variable and what it accepts."""

    def __init__(self, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


class IngestSettings(BaseSettings):
    """Environment settings that ingestion needs. Use :func:`load_settings` to get a
    :class:`ConfigError` instead of a pydantic ``ValidationError`` on a bad value."""

    model_config = SettingsConfigDict(extra="ignore", env_ignore_empty=True)

    base_dir: str | None = None
    base_dirs: str | None = None
    db_path: str | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    allow_private_urls: bool = False
    rag_convert_max_memory: int = DEFAULT_CONVERT_MAX_MEMORY
    rag_convert_timeout: float = DEFAULT_CONVERT_TIMEOUT

    @field_validator("max_file_size", mode="before")
    @classmethod
    def _positive_bytes(cls, value: Any) -> int:
        return parse_max_file_size(value)

    @field_validator("rag_convert_max_memory", mode="before")
    @classmethod
    def _memory(cls, value: Any) -> int:
        return parse_memory(value)

    @field_validator("rag_convert_timeout", mode="before")
    @classmethod
    def _timeout(cls, value: Any) -> float:
        return parse_timeout(value)

    @field_validator("allow_private_urls", mode="before")
    @classmethod
    def _switch(cls, value: Any) -> bool:
        return parse_switch("ALLOW_PRIVATE_URLS", value)


def parse_switch(variable: str, value: Any) -> bool:
    """Accept exactly 1/true/yes/on and 0/false/no/off (any case); reject everything else."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    raise ValueError(
        f"{variable} must be one of 1/true/yes/on or 0/false/no/off (any case); got {value!r}"
    )


def parse_max_file_size(value: Any) -> int:
    """A positive whole number of bytes; ``bool`` and floats are not sizes."""
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    elif isinstance(value, str) and value.strip().isdigit():
        size = int(value.strip())
    else:
        size = 0
    if size <= 0:
        raise ValueError(
            "MAX_FILE_SIZE must be a positive whole number of bytes, "
            f"e.g. 104857600 for 100 MB; got {value!r}"
        )
    return size


def parse_memory(value: Any) -> int:
    """RAG_CONVERT_MAX_MEMORY: bytes, or a whole number with K, M or G (powers of 1024)."""
    size = 0
    if isinstance(value, int) and not isinstance(value, bool):
        size = value
    elif isinstance(value, str):
        text = value.strip().upper().removesuffix("B")
        unit = text[-1] if text and text[-1] in "KMG" else ""
        number = text[: len(text) - len(unit)]
        if number.isdigit():
            size = int(number) * _SIZE_SUFFIXES[unit]
    if size < MIN_CONVERT_MEMORY:
        raise ValueError(
            "RAG_CONVERT_MAX_MEMORY must be a size of at least 64M: bytes, or a whole number "
            f"with K, M or G, e.g. 1G or 1536M; got {value!r}"
        )
    return size


def parse_timeout(value: Any) -> float:
    """RAG_CONVERT_TIMEOUT: a positive number of seconds."""
    try:
        seconds = float(value) if not isinstance(value, bool) else 0.0
    except (TypeError, ValueError):
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(
            f"RAG_CONVERT_TIMEOUT must be a positive number of seconds, e.g. 120; got {value!r}"
        )
    return seconds


def describe_bytes(count: int) -> str:
    """A size as a person reads it: 1 GB, 1.5 GB, 512 MB, 20 KB."""
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


def load_settings(**overrides: Any) -> IngestSettings:
    """Read :class:`IngestSettings` from the environment, turning validation failures into
    one :class:`ConfigError` whose lines each name the variable at fault."""
    try:
        return IngestSettings(**overrides)
    except ValidationError as exc:
        lines: list[str] = []
        variable = None
        for error in exc.errors():
            variable = str(error["loc"][0]).upper() if error["loc"] else None
            cause = (error.get("ctx") or {}).get("error")
            lines.append(str(cause) if cause is not None else f"{variable}: {error['msg']}")
        raise ConfigError("\n".join(lines), variable=variable) from None


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
    roots: list[Path], settings: IngestSettings, cli_db_path: str | None = None
) -> Path:
    """``--db-path`` > DB_PATH > ``<first root>/.minirag/lancedb``, as an absolute path."""
    chosen = cli_db_path if cli_db_path and cli_db_path.strip() else settings.db_path
    if chosen:
        return Path(os.path.expanduser(chosen)).resolve()
    return roots[0] / DB_SUBDIR
