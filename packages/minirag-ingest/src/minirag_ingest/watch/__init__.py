"""Watch mode: the index follows the roots without being asked.

Each name is imported from its module on first use, so importing this package loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.watch.watcher import SyncListener, Watcher, WatchSettings, WatchStatus

__all__ = [
    "SyncListener",
    "WatchSettings",
    "WatchStatus",
    "Watcher",
]

__getattr__ = lazy_exports(__name__, __file__)
