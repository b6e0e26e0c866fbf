"""Where an index lives: a local folder, or a prefix in an object store (``s3://bucket/prefix``,
``gs://…``, ``az://…``), and how to reach it.

:class:`IndexLocation` is what ``DB_PATH`` holds once read, so no other module tells a folder
from a URI by looking at a string. :func:`store_access` turns the location and the settings
into the options LanceDB (and the sync lease's object-store client) connect with; it is pure:
the settings say what the standard AWS variables held.

Only S3 (and S3-compatible stores such as MinIO or R2, through ``AWS_ENDPOINT_URL``) is
configured here; ``gs://`` and ``az://`` reach LanceDB as they are, and its object-store layer
reads Google's and Azure's own variables (``GOOGLE_SERVICE_ACCOUNT``,
``AZURE_STORAGE_ACCOUNT_NAME``…).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

__all__ = [
    "DEFAULT_INDEX_CACHE_MB",
    "RETRY_OPTIONS",
    "IndexLocation",
    "StoreAccess",
    "StoreKind",
    "connect",
    "store_access",
]

StoreKind = Literal["local", "s3", "gs", "az"]
_SCHEMES: dict[str, StoreKind] = {"s3": "s3", "gs": "gs", "az": "az"}
#: How stale an object-store reader's view may be, by default (a local folder is always fresh).
DEFAULT_OBJECT_STORE_CONSISTENCY = 5.0
#: LanceDB's own options for how long a request to an endpoint that fails is retried: retries
#: stop 30 s after the first try (LanceDB's default is 180 s, so a store that stopped answering
#: kept each read waiting minutes before saying so). obstore takes these as its retry config.
RETRY_OPTIONS = {"client_retry_timeout": "30"}
# LanceDB's default caches (1 GB of metadata, 6 GB of index data) fill with every commit's
# manifest: a 10,000-file sync grew the process by about 0.7 MB a commit. Bounded, the same
# commits stay flat (docs/benchmarks.md, "Memory"). 32 MiB of metadata is what a 1M-chunk
# table's reads keep (14 MiB of it after 100 queries), with room for the writer's commits.
METADATA_CACHE_BYTES = 32 * 1024 * 1024
MIB = 1024 * 1024
#: LanceDB's index cache (INDEX_CACHE_MB): what it keeps in memory of the table's indexes. A
#: search loads the IVF_SQ vector index whole (377 MiB by LanceDB's count at 1,000,000 chunks of
#: 384 dimensions, about 400 bytes a chunk) and the keyword posting lists its terms need; the
#: rest fills with posting lists until the cap. A read-only server through MCP at a million
#: chunks (bench/mcp_query.py, 2026-12-07, load 6-9), at rest after 100 queries: 512 MiB
#: 977-1,009 MB RSS (anonymous 800-804), p50 74-126 ms in four runs; 448 MiB 925-965 MB
#: (anonymous 751-760), p50 81-90 ms in five; 416 MiB 889-897 MB with p50 93-155 ms; 384 MiB
#: 868 MB with p50 183 ms, the posting lists every query needs evicted and read again. At 64 MiB a
#: 300,000-chunk search re-read the vector index every query (590 ms p50 against 29 ms at
#: 512 MiB, issue 36). The cap only binds once what the searches use passes it; past a million
#: chunks, raise it by about 400 MiB a million (README, INDEX_CACHE_MB).
DEFAULT_INDEX_CACHE_MB = 448
INDEX_CACHE_BYTES = DEFAULT_INDEX_CACHE_MB * MIB


@dataclass(frozen=True)
class IndexLocation:
    """A local folder (``kind == "local"``, ``address`` its path) or an object-store prefix
    (``address`` the URI, without a trailing slash). ``str()`` gives the address, which never
    holds a secret: a URI with credentials in it is refused."""

    kind: StoreKind
    address: str

    @classmethod
    def parse(cls, value: str | os.PathLike[str] | IndexLocation) -> IndexLocation:
        """Read a DB_PATH value; ValueError says what is wrong with one that is not usable."""
        if isinstance(value, IndexLocation):
            return value
        text = os.fspath(value).strip()
        if not text:
            raise ValueError("empty")
        if "://" not in text:
            return cls("local", str(Path(text).expanduser()))
        parts = urlsplit(text)
        kind = _SCHEMES.get(parts.scheme.lower())
        if kind is None:
            raise ValueError(f"{parts.scheme}:// is not a supported store")
        if "@" in parts.netloc:
            raise ValueError("credentials do not belong in the URI; use AWS_ACCESS_KEY_ID")
        if not parts.netloc:
            raise ValueError("the URI names no bucket")
        prefix = parts.path.strip("/")
        return cls(kind, f"{kind}://{parts.netloc}" + (f"/{prefix}" if prefix else ""))

    @property
    def is_local(self) -> bool:
        return self.kind == "local"

    @property
    def local(self) -> Path | None:
        """The folder, for a local index; None for an object store."""
        return Path(self.address) if self.kind == "local" else None

    def resolved(self) -> IndexLocation:
        """A local folder as an absolute, real path; a URI as it is."""
        folder = self.local
        return self if folder is None else IndexLocation("local", str(folder.resolve()))

    def beside(self, name: str) -> str:
        """The path (local) or URI (object store) of ``name`` next to the table."""
        folder = self.local
        return str(folder / name) if folder is not None else f"{self.address}/{name}"

    def __str__(self) -> str:
        return self.address

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            cls.parse, serialization=core_schema.plain_serializer_function_ser_schema(str)
        )


@dataclass(frozen=True)
class StoreAccess:
    """How to connect: the object-store options (credentials included, so never shown) and how
    long a read may lag behind another process's commits."""

    storage_options: Mapping[str, str] = field(default_factory=dict, repr=False)
    read_consistency: timedelta = timedelta(0)
    #: The most LanceDB keeps of the table's indexes in memory (INDEX_CACHE_MB).
    index_cache_bytes: int = INDEX_CACHE_BYTES


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def s3_options(
    *,
    access_key_id: str | None,
    secret_access_key: str | None,
    session_token: str | None,
    region: str | None,
    endpoint_url: str | None,
    allow_http: bool,
) -> dict[str, str]:
    """The object_store (LanceDB, obstore) options for the standard AWS variables.

    Plain http is allowed only to a loopback endpoint or with ``allow_http`` (S3_ALLOW_HTTP):
    over it the keys sign requests in the clear and the documents travel unencrypted. A
    ValueError names the variable and the fix."""
    options = {
        "aws_access_key_id": access_key_id,
        "aws_secret_access_key": secret_access_key,
        "aws_session_token": session_token,
        "aws_region": region,
    }
    if endpoint_url:
        parts = urlsplit(endpoint_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"AWS_ENDPOINT_URL must be an http(s) URL such as https://minio.example:9000; "
                f"got {endpoint_url!r}"
            )
        if parts.scheme == "http":
            if not (allow_http or _is_loopback(parts.hostname)):
                raise ValueError(
                    f"AWS_ENDPOINT_URL {endpoint_url} is plain http to a host that is not this "
                    "machine: requests and documents would cross the network unencrypted. Use "
                    "an https endpoint, or set S3_ALLOW_HTTP=1 if that network is trusted"
                )
            options["allow_http"] = "true"
        options["aws_endpoint"] = endpoint_url.rstrip("/")
    return {**RETRY_OPTIONS, **{k: v for k, v in options.items() if v}}


def store_access(
    location: IndexLocation,
    options: Mapping[str, str],
    consistency_seconds: float | None,
    index_cache_mb: int | None = None,
) -> StoreAccess:
    """The access for ``location`` with ``options`` (:func:`s3_options`); the read consistency is
    ``consistency_seconds``, or 0 for a local folder and 5 s for an object store; the index
    cache holds ``index_cache_mb`` MiB (None: :data:`INDEX_CACHE_BYTES`)."""
    if consistency_seconds is None:
        consistency_seconds = 0.0 if location.is_local else DEFAULT_OBJECT_STORE_CONSISTENCY
    return StoreAccess(
        storage_options=dict(options),
        read_consistency=timedelta(seconds=consistency_seconds),
        index_cache_bytes=INDEX_CACHE_BYTES if index_cache_mb is None else index_cache_mb * MIB,
    )


def caches(access: StoreAccess) -> Any:
    """A LanceDB session with bounded caches: ``access.index_cache_bytes`` of index data,
    :data:`METADATA_CACHE_BYTES` of metadata (shared by the connections given it)."""
    import lancedb

    return lancedb.Session(
        index_cache_size_bytes=access.index_cache_bytes,
        metadata_cache_size_bytes=METADATA_CACHE_BYTES,
    )


def connect(location: IndexLocation, access: StoreAccess, *, create: bool, session: Any) -> Any:
    """A LanceDB connection to ``location`` using ``session``'s caches (:func:`caches`);
    ``create``: make the local folder first when it is missing (a read-only store never does)."""
    import lancedb

    folder = location.local
    if folder is not None and create:
        folder.mkdir(parents=True, exist_ok=True)
    return lancedb.connect(
        location.address,
        read_consistency_interval=access.read_consistency,
        storage_options=dict(access.storage_options) or None,
        session=session,
    )


async def connect_async(location: IndexLocation, access: StoreAccess, session: Any) -> Any:
    """LanceDB's asynchronous connection to ``location``, as :func:`connect` makes the
    synchronous one, sharing ``session``'s caches."""
    import lancedb

    return await lancedb.connect_async(
        location.address,
        read_consistency_interval=access.read_consistency,
        storage_options=dict(access.storage_options) or None,
        session=session,
    )
