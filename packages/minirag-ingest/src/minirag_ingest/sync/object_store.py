"""Small objects kept beside an index on object storage (the sync lease, the failure memory),
written with the store's conditional writes.

LanceDB does not hand out its object-store client, so these go through obstore (the Python
bindings of the same Rust ``object_store`` crate, configured with the same option names); it is
the ``[s3]`` extra. Every write here is conditional where it must be: :meth:`create` only when
the object is absent (``If-None-Match: *``), :meth:`replace` only while it is the version read
(``If-Match`` on its ETag).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from minirag_index.errors import StoreUnavailableError
from minirag_index.storage import RETRY_OPTIONS, IndexLocation

EXTRA = "minirag-ingest[s3]"
# An endpoint that does not answer is given up on after this (object_store's own defaults, 10
# retries within 3 minutes, kept a sync waiting for minutes on a store that was down); the same
# bound as LanceDB's (location.RETRY_OPTIONS, which obstore does not take as options).
RETRIES = {"max_retries": 3, "retry_timeout": timedelta(seconds=30)}


def _obstore() -> Any:
    try:
        import obstore
        import obstore.store
    except ImportError as exc:  # the import error beside the import names the extra
        from minirag_ingest.extras.install import install_hint

        raise ImportError(
            f"An index on object storage needs the {EXTRA} extra (obstore, also as "
            f"minirag-mcp[s3]) for its sync lease; install it with: {install_hint('s3')}"
        ) from exc
    return obstore


@dataclass(frozen=True)
class Stored:
    """An object's bytes and the ETag naming this version of it."""

    data: bytes
    etag: str
    modified: float | None = None  # Last-Modified by the store's clock (epoch seconds)


class SideObjects:
    """Objects named relative to an index's prefix (``s3://bucket/prefix/<name>``)."""

    def __init__(self, location: IndexLocation, storage_options: Mapping[str, str]) -> None:
        if location.is_local:
            raise ValueError("SideObjects is for an index on object storage")
        self.location = location
        obstore = _obstore()
        options = {k: v for k, v in storage_options.items() if k not in RETRY_OPTIONS}
        client = {"allow_http": True} if options.pop("allow_http", "") == "true" else {}
        self._obstore = obstore
        self._store = obstore.store.from_url(
            location.address,
            config=options or None,
            client_options=client or None,
            retry_config=RETRIES,
        )

    @contextlib.contextmanager
    def _reaching(self) -> Iterator[None]:
        """Any other error of the store is an outage: one line naming it (see errors.py)."""
        from obstore.exceptions import AlreadyExistsError, BaseError, PreconditionError

        try:
            yield
        except (AlreadyExistsError, PreconditionError):
            raise  # answers about the object, which the callers handle
        except BaseError as exc:
            raise StoreUnavailableError(self.location, exc) from None

    def read(self, name: str) -> Stored | None:
        """The object, or None when there is none."""
        try:
            with self._reaching():
                result = self._obstore.get(self._store, name)
                data = bytes(result.bytes())
        except FileNotFoundError:
            return None
        modified = result.meta.get("last_modified")
        when = modified.timestamp() if modified is not None else None
        return Stored(data, str(result.meta["e_tag"]), when)

    def write(self, name: str, data: bytes) -> None:
        """Write unconditionally (for objects only the lease holder writes)."""
        with self._reaching():
            self._obstore.put(self._store, name, data)

    def create(self, name: str, data: bytes) -> str | None:
        """Write only if ``name`` does not exist; its ETag, or None when it already did."""
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            with self._reaching():
                result = self._obstore.put(self._store, name, data, mode="create")
        except (AlreadyExistsError, PreconditionError):
            return None
        return str(result["e_tag"])

    def replace(self, name: str, data: bytes, etag: str) -> str | None:
        """Write only if ``name`` is still the version ``etag``; the new ETag, or None when
        someone else changed or removed it first."""
        from obstore.exceptions import PreconditionError

        try:
            with self._reaching():
                result = self._obstore.put(self._store, name, data, mode={"e_tag": etag})
        except (PreconditionError, FileNotFoundError):
            return None
        return str(result["e_tag"])

    def delete(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError), self._reaching():
            self._obstore.delete(self._store, name)
