"""Watch mode: the index follows the roots without being asked.

A :class:`Watcher` runs one sync when it starts, then listens to the roots with ``watchfiles``
(inotify, FSEvents or ReadDirectoryChangesW) and, once they have been quiet for the quiet period,
syncs what changed. Every sync is an ordinary job of the
:class:`~minirag_ingest.sync.jobs.JobManager`:
it takes the sync lock, shows in ``sync_status`` and does what any sync does (moves stay moves,
``.miniragignore`` applies, deletes delete). Which changes count and which folder one sync
covers are the pure rules of :mod:`minirag_ingest.watch.rules`.

Two threads: the listener adds changed paths to a pending set as they arrive; the syncer waits
for the pending set to stay unchanged for the quiet period (or at most :data:`LONGEST_WAIT` under
unbroken changes), takes all of it and runs one sync. Changes that arrive during a sync wait for
the next one, so a burst of any size costs a few syncs. A file still being written when its sync
read it sends more events and is read again by the next sync. When another sync holds the lock,
the changes stay pending and are tried again after the next quiet period.

When native notification cannot start (the inotify watch limit, a file system without it) the
listener polls every ``WATCH_POLL_SECONDS`` and :meth:`Watcher.status` says so and why;
``WATCH_FORCE_POLLING`` chooses polling up front (a network drive, where native events never
arrive). A root that disappears is dropped from the watch and looked for again every
:data:`ROOT_CHECK` seconds; when it is back it is synced whole.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from minirag_ingest.files.ignore import is_excluded
from minirag_ingest.files.scan import ScopeExcluded
from minirag_ingest.sync.lock import SyncLocked
from minirag_ingest.watch.rules import matters, sync_scope

if TYPE_CHECKING:
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.settings import IngestSettings
    from minirag_ingest.sync.jobs import JobManager, JobStatus

log = logging.getLogger(__name__)

LONGEST_WAIT = 60.0  # seconds of unbroken changes after which the pending ones are synced anyway
ROOT_CHECK = 1.0  # seconds between looks for a root that went away or came back
STEP_MS = 50  # watchfiles' grouping of one burst of native events
WatchState = Literal["watching", "polling"]
SyncListener = Callable[["JobStatus"], None]


@dataclass(frozen=True)
class WatchSettings:
    """How a watcher waits and looks (from :class:`IngestSettings`)."""

    quiet: float = 2.0
    poll_interval: float = 1.0
    force_polling: bool = False

    @classmethod
    def of(cls, settings: IngestSettings) -> WatchSettings:
        return cls(
            quiet=settings.watch_quiet_seconds,
            poll_interval=settings.watch_poll_seconds,
            force_polling=settings.watch_force_polling,
        )


@dataclass(frozen=True)
class WatchStatus:
    """What ``status`` shows of a running watcher."""

    state: WatchState
    since: float  # time.time() the watcher started
    roots: tuple[str, ...]  # the roots being watched now (a missing one is left out)
    pending: int  # changed paths not synced yet
    syncs: int  # syncs this watcher started
    last_sync: JobStatus | None  # the last one that ended
    running: str | None  # the job id of its sync in progress
    reason: str | None  # why it polls
    waiting: str | None  # why the pending changes are not being synced (another sync runs)


class Watcher:
    """Keeps the index of ``jobs()`` in line with ``roots`` until :meth:`stop`. ``jobs`` is
    asked for the job manager when the first sync starts, so building it (the index, the
    pipeline) happens in the watcher's thread."""

    def __init__(
        self,
        jobs: Callable[[], JobManager],
        roots: Roots,
        settings: WatchSettings,
        *,
        extensions: Iterable[str],
        skip_under: Iterable[Path] = (),
        on_sync: SyncListener | None = None,
        first_sync_after: float = 0.0,
    ) -> None:
        self.jobs = jobs
        self.first_sync_after = first_sync_after
        self.roots = roots
        self.settings = settings
        self.extensions = frozenset(e.lower() for e in extensions)
        self.skip_under = tuple(skip_under)
        self.on_sync = on_sync
        self.since = time.time()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._guard = threading.Lock()
        self._pending: set[Path] = set()
        self._last_change = 0.0  # time.monotonic() of the newest pending change
        self._first_change = 0.0  # ... and of the oldest
        self._watched: tuple[Path, ...] = ()
        self._polling = settings.force_polling
        self._reason: str | None = "WATCH_FORCE_POLLING is on" if settings.force_polling else None
        self._waiting: str | None = None  # why the pending changes are not being synced
        self._syncs = 0
        self._last: JobStatus | None = None
        self._running: str | None = None
        self._jobs_in_use: JobManager | None = None  # what jobs() gave, once it did
        self._threads: list[threading.Thread] = []

    # -- life ------------------------------------------------------------------------------
    def start(self) -> Watcher:
        for name, target in (("listen", self._listen), ("sync", self._sync_loop)):
            thread = threading.Thread(target=target, name=f"minirag-watch-{name}", daemon=True)
            self._threads.append(thread)
            thread.start()
        return self

    def stop(self, timeout: float | None = None) -> None:
        """Stop listening; a sync in progress is asked to stop after its commit in flight."""
        self._stop.set()
        self._wake.set()
        running, jobs = self._running, self._jobs_in_use
        if running is not None and jobs is not None:
            jobs.cancel(running)
        for thread in self._threads:
            thread.join(timeout)

    def status(self) -> WatchStatus:
        with self._guard:
            pending = len(self._pending)
        return WatchStatus(
            state="polling" if self._polling else "watching",
            since=self.since,
            roots=tuple(str(root) for root in self._watched),
            pending=pending,
            syncs=self._syncs,
            last_sync=self._last,
            running=self._running,
            reason=self._reason,
            waiting=self._waiting,
        )

    # -- listening -------------------------------------------------------------------------
    def add(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Queue changed paths (the listener calls this; so may a caller that knows better)."""
        roots = tuple(self.roots)
        wanted = [
            path
            for path in (Path(os.path.abspath(p)) for p in paths)
            if matters(
                path,
                roots,
                self.extensions,
                skip_under=self.skip_under,
                is_plain_file=os.path.isfile,
            )
        ]
        if not wanted:
            return
        now = time.monotonic()
        with self._guard:
            if not self._pending:
                self._first_change = now
            self._pending.update(wanted)
            self._last_change = now
        self._wake.set()

    def _present_roots(self) -> tuple[Path, ...]:
        return tuple(root for root in self.roots if root.is_dir())

    def _listen(self) -> None:
        first = True
        while not self._stop.is_set():
            present = self._present_roots()
            came_back = [root for root in present if root not in self._watched]
            if came_back and not first:
                self.add(came_back)  # a root that came back is synced whole
            self._watched, first = present, False
            if not present:
                self._stop.wait(ROOT_CHECK)
                continue
            try:
                self._listen_to(present)
            except FileNotFoundError:  # a root went away as the watch started: look again
                self._stop.wait(ROOT_CHECK)
            except Exception as exc:
                if self._polling:
                    log.warning("watching by polling failed: %s; trying again", exc)
                    self._stop.wait(self.settings.poll_interval)
                    continue
                self._polling = True
                self._reason = (
                    f"native file notification could not start ({exc}); polling every "
                    f"{self.settings.poll_interval:g} s"
                )
                log.warning("watch: %s", self._reason)

    def _listen_to(self, present: tuple[Path, ...]) -> None:
        """Feed changes under ``present`` into the pending set until a root goes or comes."""
        import watchfiles

        for changes in watchfiles.watch(
            *present,
            watch_filter=None,
            debounce=STEP_MS * 4,
            step=STEP_MS,
            stop_event=self._stop,
            rust_timeout=int(ROOT_CHECK * 1000),
            yield_on_timeout=True,
            raise_interrupt=False,
            force_polling=self._polling,
            poll_delay_ms=int(self.settings.poll_interval * 1000),
            ignore_permission_denied=True,
        ):
            self.add(path for _change, path in changes)
            if self._present_roots() != present:
                gone = [root for root in present if not root.is_dir()]
                self.add(gone)  # a sync reports it and keeps what is indexed there
                return

    # -- syncing ---------------------------------------------------------------------------
    def _sync_loop(self) -> None:
        if self._stop.wait(self.first_sync_after):
            return
        if not self._sync(None):  # the one sync at start; locked: once the other one ends
            self.add(self.roots)
        while not self._stop.is_set():
            self._wake.wait()
            if self._stop.is_set():
                return
            batch = self._take_when_quiet()
            if batch is None:
                continue
            scope = sync_scope(batch, tuple(self.roots))
            if not self._sync(scope):
                with self._guard:  # locked: keep them for after the next quiet period
                    self._pending.update(batch)
                    self._last_change = time.monotonic()
                self._wake.set()

    def _take_when_quiet(self) -> set[Path] | None:
        """The pending changes once quiet for the quiet period (None: waited, ask again)."""
        with self._guard:
            if not self._pending:
                self._wake.clear()
                return None
            now = time.monotonic()
            quiet_left = self._last_change + self.settings.quiet - now
            longest_left = self._first_change + LONGEST_WAIT - now
            if quiet_left > 0 and longest_left > 0:
                wait = min(quiet_left, longest_left)
            else:
                batch, self._pending = self._pending, set()
                return batch
        self._stop.wait(wait)
        return None

    def _sync(self, scope: Path | None) -> bool:
        """Run one sync of ``scope`` to its end; False when another sync holds the lock."""
        if scope is not None and self._excluded(scope):
            return True  # every change is inside an excluded folder: nothing to index
        try:
            jobs = self._jobs_in_use = self.jobs()
            job_id = jobs.start(scope)
        except SyncLocked as exc:
            self._waiting = str(exc)
            return False
        except Exception as exc:  # the index cannot be opened: say so, try with the next change
            self._waiting = f"the last sync could not start: {exc}"
            log.warning("watch: %s", self._waiting)
            return True
        self._waiting = None
        self._running = job_id
        self._syncs += 1
        ended = jobs.wait(job_id)
        self._last, self._running = ended, None
        if self.on_sync is not None:
            try:
                self.on_sync(ended)
            except Exception as exc:
                log.warning("watch: the sync listener failed: %s", exc)
        return True

    def _excluded(self, scope: Path) -> bool:
        try:
            return is_excluded(scope, self.roots) is not None
        except (OSError, ScopeExcluded, ValueError):
            return False  # unreadable ignore file, a scope gone: let the sync report it
