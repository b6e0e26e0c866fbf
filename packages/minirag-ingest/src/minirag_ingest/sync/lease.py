"""The sync lock of an index on object storage: a lease object beside the table.

An object store has no flock, and the syncs sharing an index may run on different machines. So
a sync creates ``<DB_PATH>/.sync-lease.json`` with a conditional create (``If-None-Match: *``:
of two syncs racing for it one wins, the other is refused at once). The lease names its holder
(host, PID, start time) and when it was last renewed; the holder renews it every third of its
term from a background thread and deletes it when the sync ends.

A holder that dies without releasing (killed, the machine lost) leaves a lease that nobody
renews. Once it is older than its term (SYNC_LEASE_SECONDS, 60 s by default) the next sync
takes it over - with a write conditional on the ETag it read (``If-Match``), so of two syncs
taking over the same dead lease only one wins. A lease's age is judged by the store's clock
where it gives one (the object's Last-Modified: when its holder last renewed it), not by the
times in the JSON, which come from the holder's clock: a holder whose clock runs an hour ahead
neither blocks other syncs for that hour nor reads as "running for 0 s" (the skew is logged).
Only this machine's clock is then compared with the store's, and it should be roughly in step
(NTP): a term of a minute tolerates seconds of skew.

The lease only keeps two syncs from doing the same work twice; every commit to the table is
still atomic (LanceDB's own conditional commits), so a lease lost to a takeover costs work,
never rows.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from dataclasses import asdict, dataclass, replace
from typing import Self

from minirag_ingest.sync.lock import IndexLock, SyncLocked, format_duration
from minirag_ingest.sync.object_store import SideObjects, Stored

log = logging.getLogger(__name__)

LEASE_NAME = ".sync-lease.json"
DEFAULT_LEASE_SECONDS = 60.0
_TAKE_ATTEMPTS = 3
# A holder's clock this far from the store's is named in the log (Last-Modified has a resolution
# of one second, and a renewal takes a request's time to land).
SKEW_NOTED = 5.0


@dataclass(frozen=True)
class LeaseNote:
    """What the lease object holds."""

    host: str
    pid: int
    started: float
    renewed: float
    seconds: float

    def to_bytes(self) -> bytes:
        return json.dumps(asdict(self)).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> LeaseNote | None:
        """The note, or None for an object that is not one (it then counts as expired)."""
        try:
            raw = json.loads(data)
            return cls(
                str(raw["host"]),
                int(raw["pid"]),
                float(raw["started"]),
                float(raw["renewed"]),
                float(raw["seconds"]),
            )
        except (ValueError, TypeError, KeyError):
            return None

    def expired(self, now: float) -> bool:
        return now >= self.renewed + self.seconds

    def by_store_clock(self, modified: float | None) -> tuple[LeaseNote, float]:
        """The note with its times moved to the store's clock, and how far the holder's clock
        was ahead of it (seconds, negative when behind): the object was last written (renewed)
        at ``modified``, the store's Last-Modified. Unchanged without one."""
        if modified is None:
            return self, 0.0
        skew = self.renewed - modified
        return replace(self, started=self.started - skew, renewed=modified), skew


class SyncLease(IndexLock):
    """The object-store counterpart of :class:`~minirag_ingest.sync.lock.SyncLock`: the same
    ``acquire``/``release``/``held`` and the same :class:`SyncLocked` when another sync holds
    the index."""

    def __init__(self, objects: SideObjects, seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        self.objects = objects
        self.seconds = seconds
        self.lost = False
        self._note: LeaseNote | None = None
        self._etag: str | None = None
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    @property
    def where(self) -> str:
        return self.objects.location.beside(LEASE_NAME)

    @property
    def held(self) -> bool:
        return self._note is not None

    def acquire(self) -> Self:
        if self._note is not None:
            raise RuntimeError("this SyncLease is already held")
        now = time.time()
        note = LeaseNote(socket.gethostname(), os.getpid(), now, now, self.seconds)
        holder: LeaseNote | None = None
        for _ in range(_TAKE_ATTEMPTS):
            etag = self.objects.create(LEASE_NAME, note.to_bytes())
            if etag is not None:
                return self._hold(note, etag)
            current = self.objects.read(LEASE_NAME)
            if current is None:
                continue  # released between the two calls: try creating it again
            holder = self._holder(current)
            if holder is not None and not holder.expired(time.time()):
                break
            etag = self.objects.replace(LEASE_NAME, note.to_bytes(), current.etag)
            if etag is not None:
                self._log_takeover(holder)
                return self._hold(note, etag)
            # another sync took the expired lease first: look at it again
        if holder is None:
            raise SyncLocked(self.where, None, None)
        raise SyncLocked(self.where, holder.pid, holder.started, host=holder.host)

    def _holder(self, current: Stored) -> LeaseNote | None:
        """The lease read, judged by the store's clock; a holder's clock far off is logged."""
        written = LeaseNote.from_bytes(current.data)
        if written is None:
            return None
        holder, skew = written.by_store_clock(current.modified)
        if abs(skew) > SKEW_NOTED:
            log.warning(
                "the sync lease at %s was written by a clock %s %s the store's (PID %s on %s); "
                "its age is judged by the store's clock",
                self.where,
                format_duration(abs(skew)),
                "ahead of" if skew > 0 else "behind",
                written.pid,
                written.host,
            )
        return holder

    def _log_takeover(self, holder: LeaseNote | None) -> None:
        if holder is None:
            log.warning("replaced an unreadable sync lease at %s", self.where)
            return
        silent = format_duration(max(0.0, time.time() - holder.renewed))
        log.warning(
            "took over the sync lease of PID %s on %s, not renewed for %s (it expired)",
            holder.pid,
            holder.host,
            silent,
        )

    def _hold(self, note: LeaseNote, etag: str) -> Self:
        self._note, self._etag, self.lost = note, etag, False
        self._stop.clear()
        self._renewer = threading.Thread(
            target=self._renew_until_stopped, name="minirag-sync-lease", daemon=True
        )
        self._renewer.start()
        return self

    def _renew_until_stopped(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            note, etag = self._note, self._etag
            if note is None or etag is None:
                return
            renewed = replace(note, renewed=time.time())
            try:
                new_etag = self.objects.replace(LEASE_NAME, renewed.to_bytes(), etag)
            except Exception as exc:  # a network blip: try again at the next renewal
                log.warning("could not renew the sync lease at %s: %s", self.where, exc)
                continue
            if new_etag is None:
                self.lost = True
                log.error(
                    "the sync lease at %s was taken over by another sync (this one went "
                    "unrenewed past its term); its commits stay whole, but two syncs now run",
                    self.where,
                )
                return
            self._note, self._etag = renewed, new_etag

    def release(self) -> None:
        if self._note is None:
            return
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
        etag, self._note, self._etag, self._renewer = self._etag, None, None, None
        if self.lost:
            return
        try:
            # Delete it only while it is still ours (the delete itself is not conditional).
            current = self.objects.read(LEASE_NAME)
            if current is not None and current.etag == etag:
                self.objects.delete(LEASE_NAME)
        except Exception as exc:  # it expires on its own
            log.warning("could not release the sync lease at %s: %s", self.where, exc)
