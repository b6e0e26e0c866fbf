"""fastmcp's per-client state store, kept in a plain dictionary.

fastmcp looks up the client's visibility rules in its session-state store on every
``tools/list`` and ``tools/call``. Its default store (py-key-value's ``MemoryStore`` behind a
pydantic adapter) imports py-key-value and beartype on that first lookup: some 440 modules and
about 5 MiB resident for the life of the server, for a store this server never writes to
(docs/benchmarks.md, "Memory, issue 22: fastmcp's state store and the folder encoder").

:class:`PlainStateStore` answers the same three calls fastmcp makes (``get``, ``put`` and
``delete`` by key) with the same behaviour: values are pydantic models, stored as their JSON
form (so a value that cannot be serialised fails at ``put``, as with the adapter), read back as
a new model, and forgotten after their time to live.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel


class PlainStateStore:
    """A session-state store for one process, with the adapter's interface."""

    def __init__(self) -> None:
        # key -> (model class, its JSON form, when it expires or None)
        self._values: dict[tuple[str | None, str], tuple[type[BaseModel], Any, float | None]] = {}

    async def get(self, key: str, *, collection: str | None = None, default: Any = None) -> Any:
        stored = self._values.get((collection, key))
        if stored is None:
            return default
        model, data, expires = stored
        if expires is not None and time.monotonic() >= expires:
            del self._values[(collection, key)]
            return default
        return model.model_validate(data)

    async def put(
        self, key: str, value: BaseModel, *, collection: str | None = None, ttl: Any = None
    ) -> None:
        data = value.model_dump(mode="json")  # raises for a value JSON cannot hold
        expires = None if ttl is None else time.monotonic() + float(ttl)
        self._values[(collection, key)] = (type(value), data, expires)

    async def delete(self, key: str, *, collection: str | None = None) -> bool:
        return self._values.pop((collection, key), None) is not None


def use_plain_state_store(app: Any) -> bool:
    """Give a FastMCP server a :class:`PlainStateStore` before its default store is made; True
    when it was set. fastmcp has no public setting for the store object itself (its
    ``session_state_store`` still wraps what it is given in the adapter), so this fills the
    attribute its ``_state_store`` property creates on first use; a fastmcp laid out otherwise
    keeps its own store."""
    attribute = "_FastMCP__state_store"
    if getattr(app, attribute, "absent") is not None:
        return False
    setattr(app, attribute, PlainStateStore())
    return True
