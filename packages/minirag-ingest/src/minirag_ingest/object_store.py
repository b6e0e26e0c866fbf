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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from minirag_index.location import IndexLocation

EXTRA = "minirag-ingest[s3]"


def _obstore() -> Any:
    try:
        import obstore
        import obstore.store
    except ImportError as exc:  # the import error beside the import names the extra
        from minirag_ingest.install import install_hint

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


class SideObjects:
    """Objects named relative to an index's prefix (``s3://bucket/prefix/<name>``)."""

    def __init__(self, location: IndexLocation, storage_options: Mapping[str, str]) -> None:
        if location.is_local:
            raise ValueError("SideObjects is for an index on object storage")
        self.location = location
        obstore = _obstore()
        options = dict(storage_options)
        client = {"allow_http": True} if options.pop("allow_http", "") == "true" else {}
        self._obstore = obstore
        self._store = obstore.store.from_url(
            location.address, config=options or None, client_options=client or None
        )

    def read(self, name: str) -> Stored | None:
        """The object, or None when there is none."""
        try:
            result = self._obstore.get(self._store, name)
        except FileNotFoundError:
            return None
        return Stored(bytes(result.bytes()), str(result.meta["e_tag"]))

    def write(self, name: str, data: bytes) -> None:
        """Write unconditionally (for objects only the lease holder writes)."""
        self._obstore.put(self._store, name, data)

    def create(self, name: str, data: bytes) -> str | None:
        """Write only if ``name`` does not exist; its ETag, or None when it already did."""
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            result = self._obstore.put(self._store, name, data, mode="create")
        except (AlreadyExistsError, PreconditionError):
            return None
        return str(result["e_tag"])

    def replace(self, name: str, data: bytes, etag: str) -> str | None:
        """Write only if ``name`` is still the version ``etag``; the new ETag, or None when
        someone else changed or removed it first."""
        from obstore.exceptions import PreconditionError

        try:
            result = self._obstore.put(self._store, name, data, mode={"e_tag": etag})
        except (PreconditionError, FileNotFoundError):
            return None
        return str(result["e_tag"])

    def delete(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._obstore.delete(self._store, name)
