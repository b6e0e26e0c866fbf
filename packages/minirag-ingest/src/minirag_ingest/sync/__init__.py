"""Bringing the index in line with the disk: the plan, its passes, jobs, locks and leases.

One pass (:func:`sync`, in :mod:`.run`) composes its steps - :mod:`.moves`, :mod:`.reindex`,
:mod:`.upkeep` - over one :class:`~minirag_ingest.sync.pass_state.SyncState`.
Each name is imported from its module on first use, so importing this package loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.sync.jobs import JobManager, JobStatus, UnknownJob
    from minirag_ingest.sync.lock import IndexLock, SyncLocked, sync_lock_for
    from minirag_ingest.sync.run import COUNT_NAMES, ProgressCallback, SyncReport, sync

__all__ = [
    "COUNT_NAMES",
    "IndexLock",
    "JobManager",
    "JobStatus",
    "ProgressCallback",
    "SyncLocked",
    "SyncReport",
    "UnknownJob",
    "sync",
    "sync_lock_for",
]

__getattr__ = lazy_exports(__name__, __file__)
