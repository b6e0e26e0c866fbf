"""The sync lock: one sync per index at a time, refused at once rather than queued.

Two syncs against one DB_PATH would be safe (every source is swapped in one commit) but
wasteful: both walk and re-index the same corpus. So a sync takes an advisory lock on
``<DB_PATH>/.sync.lock`` - :func:`fcntl.flock` on POSIX, :func:`msvcrt.locking` on Windows -
without waiting. The holder writes its PID and start time into the file, so a second sync can
say who holds it and for how long. The kernel drops the lock when the holding process exits or
is killed, so a crashed sync never leaves a stale lock behind; the file itself stays and is
simply re-used.

Single-file ingests and reads never take this lock. An index on object storage has no
folder to lock: :func:`sync_lock_for` gives it a lease object instead
(:mod:`minirag_ingest.sync.lease`),
which raises the same :class:`SyncLocked`.
"""

from __future__ import annotations

import os
import sys
import time
from abc import ABC, abstractmethod
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from minirag_index.storage import IndexLocation
from minirag_ingest.errors import IngestError

if TYPE_CHECKING:
    from minirag_index.index import MiniragIndex

LOCK_FILE_NAME = ".sync.lock"
# Windows locks byte ranges and a locked range cannot be read by anyone else, so the lock is
# taken on one byte far past the holder's note, which stays readable.
_WINDOWS_LOCK_OFFSET = 1 << 20
_NOTE_READ_ATTEMPTS = 10


class SyncLocked(IngestError, RuntimeError):
    """Another sync holds the lock on this index."""

    def __init__(
        self,
        lock_path: Path | str,
        pid: int | None,
        started: float | None,
        *,
        host: str | None = None,
    ) -> None:
        self.lock_path = lock_path
        self.pid = pid
        self.started = started
        self.host = host
        on = f" on {host}" if host else ""
        who = f"another sync (PID {pid}{on})" if pid is not None else "another sync"
        if started is not None:
            running = format_duration(max(0.0, time.time() - started))
            message = f"{who} has been running for {running}"
        else:
            message = f"{who} is running"
        super().__init__(
            f"{message} on this index ({lock_path}); wait for it to finish, then sync again"
        )


def format_duration(seconds: float) -> str:
    """``"45 s"``, ``"2 min 5 s"``, ``"1 h 3 min"``."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {secs} s"
    return f"{secs} s"


def _try_lock(fd: int) -> bool:
    """Take the lock without waiting; False when someone else holds it."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows CI only
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    except OSError as exc:
        import errno

        if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def _parse_note(text: str) -> tuple[int | None, float | None]:
    """``"<pid> <start time>"`` as the holder wrote it; Nones for anything unreadable."""
    parts = text.split()
    pid: int | None = None
    started: float | None = None
    if parts:
        try:
            pid = int(parts[0])
        except ValueError:
            pid = None
    if len(parts) > 1:
        try:
            started = float(parts[1])
        except ValueError:
            started = None
    return pid, started


def read_holder(lock_path: Path) -> tuple[int | None, float | None]:
    """The PID and start time written by the current (or last) holder."""
    try:
        with open(lock_path, encoding="ascii", errors="replace") as handle:
            return _parse_note(handle.read(200))
    except OSError:
        return None, None


class IndexLock(ABC):
    """What a sync holds while it runs: :class:`SyncLock` on a folder, a
    :class:`~minirag_ingest.sync.lease.SyncLease` on object storage."""

    @property
    @abstractmethod
    def held(self) -> bool: ...

    @abstractmethod
    def acquire(self) -> Self:
        """Take it without waiting, or raise :class:`SyncLocked` naming who holds it."""

    @abstractmethod
    def release(self) -> None: ...

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


class SyncLock(IndexLock):
    """Advisory, non-blocking lock on ``<db_path>/.sync.lock``.

    >>> with SyncLock(db_path):  # doctest: +SKIP
    ...     run_the_sync()

    :meth:`acquire` raises :class:`SyncLocked` at once when another process (or another
    :class:`SyncLock` in this one) holds it.
    """

    def __init__(self, db_path: str | os.PathLike[str] | IndexLocation) -> None:
        folder = IndexLocation.parse(db_path).local
        if folder is None:
            raise ValueError(f"{db_path} is not a folder: use sync_lock_for() for a URI")
        self.db_path = folder
        self.path = self.db_path / LOCK_FILE_NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> Self:
        if self._fd is not None:
            raise RuntimeError("this SyncLock is already held")
        self.db_path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            locked = _try_lock(fd)
        except BaseException:
            os.close(fd)
            raise
        if not locked:
            os.close(fd)
            raise SyncLocked(self.path, *self._holder())
        try:
            note = f"{os.getpid()} {time.time():.3f}\n".encode("ascii")
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, note)
            os.ftruncate(fd, len(note))
        except OSError:
            pass  # the note is a courtesy for the next sync's message; the lock is what counts
        self._fd = fd
        return self

    def _holder(self) -> tuple[int | None, float | None]:
        # The holder writes its note just after locking; give it a moment to appear.
        for _ in range(_NOTE_READ_ATTEMPTS):
            pid, started = read_holder(self.path)
            if pid is not None:
                return pid, started
            time.sleep(0.02)
        return None, None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock(fd)
        finally:
            os.close(fd)


def sync_lock_for(index: MiniragIndex, lease_seconds: float | None = None) -> IndexLock:
    """The sync lock of ``index``, not yet taken: the kernel lock for a folder, a lease
    object for an index on object storage (``lease_seconds`` its term)."""
    location = index.location
    if location.is_local:
        return SyncLock(location)
    from minirag_ingest.sync.lease import DEFAULT_LEASE_SECONDS, SyncLease
    from minirag_ingest.sync.object_store import SideObjects

    objects = SideObjects(location, index.storage_options)
    return SyncLease(objects, lease_seconds or DEFAULT_LEASE_SECONDS)
