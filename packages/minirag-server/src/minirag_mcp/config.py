"""Settings composition: each package's settings model, CLI overrides and the server's own
variable, resolved into one :class:`Config`.

:func:`load_config` never raises for a bad value: it returns a :class:`ConfigProblem` carrying
every message instead, so ``status`` can still answer and every other tool reports it as its
error. A :class:`Config` is always whole: each setting is there and valid.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from minirag_index.settings import SWITCH_ACCEPTS, Switch

if TYPE_CHECKING:
    from minirag_index.settings import IndexSettings
    from minirag_index.storage import IndexLocation
    from minirag_ingest.extras.plugins import OcrEngine
    from minirag_ingest.settings import IngestSettings

try:
    __version__ = version("minirag-mcp")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"


# What each variable accepts, completing "NAME must be ..." in a configuration error.
SERVER_ACCEPTS = {
    "WATCH": SWITCH_ACCEPTS,
    "READ_ONLY": SWITCH_ACCEPTS,
    "MINIRAG_TOKEN_FILE": "the path of a file holding the bearer token",
    "HTTP_MAX_BODY_BYTES": "a whole number of bytes, at least 1024",
    "HTTP_RATE_PER_SECOND": "a number of requests a second above 0",
    "HTTP_RATE_BURST": "a whole number of requests, at least 1",
    "HTTP_ALLOWED_HOSTS": "host names separated by commas (or unset)",
    "HTTP_ALLOWED_ORIGINS": "origins such as https://example.org separated by commas (or unset)",
    "HTTP_TRUSTED_PROXIES": "IP addresses or networks such as 10.0.0.0/8, separated by commas "
    "(or unset)",
    "HTTP_HEADER_TIMEOUT": "a number of seconds above 0",
    "HTTP_IDLE_TIMEOUT": "a whole number of seconds, at least 1",
    "HTTP_MAX_CONNECTIONS_PER_CLIENT": "a whole number of connections, at least 1",
    "HTTP_LOG_QUERIES": SWITCH_ACCEPTS,
}


class ServerSettings(BaseSettings):
    """The server's own variables; field names are the environment variables."""

    model_config = SettingsConfigDict(
        case_sensitive=True, extra="ignore", frozen=True, env_ignore_empty=True
    )

    # A paragraph appended to the instructions a client is sent (see instructions.py).
    RAG_INSTRUCTIONS_APPEND: str | None = None
    # Watch mode (minirag_ingest.watch.watcher): the server keeps the index in line with the roots.
    WATCH: Switch = False
    # A read-only server: no write tool, nothing ever written to DB_PATH (see README).
    READ_ONLY: Switch = False
    # The HTTP transport (minirag_mcp.http_serve): its bearer token and its bounds.
    MINIRAG_TOKEN: SecretStr | None = None
    MINIRAG_TOKEN_FILE: Path | None = None
    HTTP_MAX_BODY_BYTES: int = Field(default=1024 * 1024, ge=1024)
    HTTP_RATE_PER_SECOND: float = Field(default=20.0, gt=0)
    HTTP_RATE_BURST: int = Field(default=60, ge=1)
    HTTP_ALLOWED_HOSTS: str | None = None
    HTTP_ALLOWED_ORIGINS: str | None = None
    HTTP_TRUSTED_PROXIES: str | None = None  # whose X-Forwarded-For/Forwarded/X-Real-IP count
    HTTP_HEADER_TIMEOUT: float = Field(default=10.0, gt=0)
    HTTP_IDLE_TIMEOUT: int = Field(default=15, ge=1)
    HTTP_MAX_CONNECTIONS_PER_CLIENT: int = Field(default=64, ge=1)
    HTTP_LOG_QUERIES: Switch = False

    @field_validator("HTTP_TRUSTED_PROXIES")
    @classmethod
    def _networks(cls, value: str | None) -> str | None:
        import ipaddress

        for item in (value or "").split(","):
            if item.strip():
                ipaddress.ip_network(item.strip(), strict=False)  # ValueError: refused
        return value

    @field_validator("RAG_INSTRUCTIONS_APPEND", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value


@dataclass(frozen=True)
class Config:
    """Everything a server or CLI run needs to know, resolved once and valid."""

    roots: list[Path]
    db_path: IndexLocation  # a folder or an object-store URI
    index: IndexSettings  # its DB_PATH and CACHE_DIR are the resolved ones
    ingest: IngestSettings
    server: ServerSettings
    ocr: OcrEngine | None  # the [ocr] extra's engine (no model loaded yet), or None
    version: str = __version__

    @property
    def instructions_append(self) -> str | None:
        return self.server.RAG_INSTRUCTIONS_APPEND

    @property
    def watch(self) -> bool:
        return self.server.WATCH

    @property
    def read_only(self) -> bool:
        return self.server.READ_ONLY


@dataclass(frozen=True)
class ConfigProblem:
    """A configuration that cannot be used, and why (every bad variable named)."""

    error: str
    instructions_append: str | None = None  # still sent: the server answers status
    version: str = __version__


def _blank_to_none(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        return None
    return value


def read_only_problems(
    server: ServerSettings, ingest: Any, index: Any, given: dict[str, Any]
) -> list[str]:
    """What a read-only configuration may not combine: watch mode (it writes), and no say in
    where the index is (neither DB_PATH nor a document root to find it under)."""
    problems = []
    if server.WATCH:
        problems.append(
            "READ_ONLY and WATCH cannot both be on: watch mode syncs, and a read-only server "
            "never writes; run watch mode on the writer's machine"
        )
    roots_given = given.get("base_dirs") or (
        ingest is not None and (ingest.base_dirs is not None or (ingest.base_dir or "").strip())
    )
    if not roots_given and not given.get("db_path") and (index is None or not index.DB_PATH):
        problems.append(
            "a read-only server needs DB_PATH (or --db-path): the folder of the index the "
            "writer syncs; BASE_DIR may name the writer's document folder, which need not "
            "exist here"
        )
    return problems


def load_config(overrides: dict[str, Any] | None = None) -> Config | ConfigProblem:
    """Resolve the configuration from the environment and ``overrides``.

    ``overrides`` keys (all optional, None meaning "not given"): ``base_dirs`` (a list of
    folders, replacing BASE_DIR/BASE_DIRS), ``db_path``, ``cache_dir``, ``model_name``,
    ``read_only`` (True: as READ_ONLY=1).
    """
    from minirag_index.settings import ConfigError, load_index_settings, load_settings
    from minirag_ingest.extras.ocr import load_ocr_engine
    from minirag_ingest.settings import load_settings as load_ingest_settings
    from minirag_ingest.settings import resolve_db_path, resolve_roots

    given = {k: _blank_to_none(v) for k, v in (overrides or {}).items()}
    cache_dir = given.get("cache_dir")
    problems: list[str] = []

    def attempt(step: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return step(*args, **kwargs)
        except ConfigError as exc:
            problems.append(str(exc))
            return None

    ingest = attempt(load_ingest_settings)
    index = attempt(
        load_index_settings,
        CACHE_DIR=Path(cache_dir).expanduser().resolve() if cache_dir else None,
        MODEL_NAME=given.get("model_name"),
    )
    server = attempt(load_settings, ServerSettings, SERVER_ACCEPTS)
    if server is not None and given.get("read_only"):
        server = server.model_copy(update={"READ_ONLY": True})
    if server is not None and server.READ_ONLY:
        problems.extend(read_only_problems(server, ingest, index, given))
    roots = attempt(resolve_roots, given.get("base_dirs") or None, ingest) if ingest else None
    db_path = None
    if roots and index is not None:
        db_path = attempt(resolve_db_path, roots, index.DB_PATH, given.get("db_path"))
    if db_path is not None and index is not None:
        index = index.model_copy(update={"DB_PATH": db_path})
        attempt(index.store_access)  # an object store's endpoint and switches, checked now
    # Building the engine loads no model; it is what checks RAG_OCR_LANG against the installed
    # engine's languages, so a bad value is a configuration error from the start.
    ocr = attempt(load_ocr_engine, index.CACHE_DIR) if index is not None else None
    if problems or not roots or db_path is None or index is None or server is None:
        append = server.RAG_INSTRUCTIONS_APPEND if server is not None else None
        return ConfigProblem(" ".join(problems), instructions_append=append)
    return Config(
        roots=roots,
        db_path=db_path,
        index=index,
        ingest=ingest,
        server=server,
        ocr=ocr,
    )
