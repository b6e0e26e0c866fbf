"""Views of the whole index kept until the table changes.

Every commit gives the LanceDB table a new version. What is costly to build from the table (the
model check, the keyword columns, the look-alike finder, the mention view, rebuilt sections) is
built once per version and kept until the next one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from enum import Enum
from typing import Any, Literal, TypeVar

T = TypeVar("T")


class _Unread(Enum):
    READ = "read"


#: A table version not read yet: the method reads it. A search reads the version once and hands
#: it on, since every read asks the storage for the latest one.
READ = _Unread.READ
Version = int | None | Literal[_Unread.READ]


class PerVersion:
    """Values built by name, each kept until the table version changes (thread-safe).

    ``current()`` reads the table's version (None without a table)."""

    def __init__(self, current: Callable[[], int | None]):
        self._current = current
        self._values: dict[str, tuple[int | None, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, build: Callable[[], T], version: Version = READ) -> T:
        """``build()``, kept until the table changes. ``version`` is the table's version when
        the caller has just read it (:data:`READ`: read it here)."""
        if version is READ:
            version = self._current()
        with self._lock:
            cached = self._values.get(key)
            if cached is not None and cached[0] == version:
                return cached[1]
            self._values.pop(key, None)  # not kept alive while its successor is built
        value = build()
        with self._lock:
            self._values[key] = (version, value)
        return value

    def clear(self) -> None:
        """Drop every view (views of older versions would only hold memory until rebuilt)."""
        with self._lock:
            self._values.clear()
