"""Converting files in worker processes that have a memory ceiling and a time limit.

A document from an untrusted folder can make a converter allocate gigabytes (a zip bomb that
slipped past :mod:`minirag_ingest.conversion.inflation`, a PDF stream that inflates forever)
or run for ever. So conversion - markitdown, the WebVTT reader, OCR - runs in a worker process
(:mod:`minirag_ingest.conversion.worker`):

* its memory is capped: a watchdog thread ends the worker once its resident size reaches
  ``RAG_CONVERT_MAX_MEMORY``, and on Linux ``RLIMIT_DATA`` at ``HARD_CEILING_FACTOR``
  times that makes allocations fail outright before a burst can outrun the watchdog (the
  limit counts address space reserved but never touched, as onnxruntime's arenas are, so it
  cannot be the cap itself). Either way the file is one failed file, "needs more than 1 GB to
  convert";
* the ceiling holds for the workers together, not only for each (Linux, where their resident
  size can be read): when files converting side by side need more than it between them, the
  largest is stopped and converted again alone once the others are done, so two heavy files
  never hold twice the ceiling and neither fails for the other's sake; idle workers are stopped
  while a file needs their memory. A worker that grew past
  :data:`KEEP_RESIDENT` is replaced after its file instead of idling on that memory, and so is
  one whose reserved data passed the ceiling: heap a converter freed but left mapped still
  counts against ``RLIMIT_DATA``, and the next file, OCR of a blank page say, would fail for it;
* it has ``RAG_CONVERT_TIMEOUT`` seconds per file; past that it is killed, and the file fails
  with "took longer than 120 s to convert";
* a worker that crashes costs only the file it was reading;
* workers are reused from file to file (one per core, at most ``MAX_WORKERS``), started from
  a fork server that has the converters imported already, replaced after a crash and after
  ``RECYCLE_AFTER`` files, and stopped when idle for ``IDLE_SECONDS`` (:class:`PoolLimits`,
  in :mod:`minirag_ingest.conversion.limits`);
* they ignore Ctrl-C: the process that owns the pool decides, and :meth:`ConversionPool.stop`
  (from any thread) kills and joins them and fails whatever was still waiting.

Embedding stays in the main process: the model is loaded once, there.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import logging
import multiprocessing
import signal
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from minirag_ingest.conversion.limits import (
    PoolLimits,
    PoolStopped,
    default_workers,
)
from minirag_ingest.conversion.reading import FileRead, ReadRequest, read_contained
from minirag_ingest.conversion.worker import MEMORY_EXIT, memory_of, resident_of, worker_main
from minirag_ingest.errors import ConversionError
from minirag_ingest.extras.plugins import OcrEngine

__all__ = ["ConversionPool", "PoolLimits", "PoolStopped", "default_workers", "stop_all"]

log = logging.getLogger(__name__)

GATE_SECONDS = 0.1  # how often the pool checks what its workers hold together
JOIN_SECONDS = 5.0
KEEP_RESIDENT = 256 << 20  # a worker holding more after its file is replaced (idle: ~100 MB)
# Imported once by the fork server, so each worker starts with the converters loaded.
PRELOAD = ["minirag_ingest.conversion.pool", "markitdown.converters", "pdfminer.high_level"]

Task = Callable[[ReadRequest, "OcrEngine | None"], FileRead]


def _context() -> Any:
    """A fork server where there is one (started once, safe with threads), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


_STOP = object()


class ConversionPool:
    """Worker processes converting files; :meth:`submit` a :class:`ReadRequest`, get a future.

    ``ocr`` is sent to each worker once, when it starts (so it must pickle); ``task`` is what a
    worker runs per file, :func:`~minirag_ingest.conversion.reading.read_contained` unless a test
    says
    otherwise (it must be a module-level function).
    """

    def __init__(
        self, limits: PoolLimits, ocr: OcrEngine | None = None, *, task: Task = read_contained
    ) -> None:
        self.limits = limits
        self.size = limits.workers or default_workers()
        self.ocr = ocr
        self.task = task
        # Jobs and the count of slots waiting for one change under the same lock, so a job a
        # slot has just taken is never counted as waiting for a slot that is still idle.
        self._lock = threading.Lock()
        self._jobs: collections.deque[Any] = collections.deque()
        self._job_ready = threading.Condition(self._lock)
        self._slots: set[_Slot] = set()
        self._idle = 0  # slots waiting in _next_job
        self._stopping = False
        self._context: Any = None
        # The memory gate: the slots converting now, and the file that must convert alone.
        self._gate = threading.Condition(self._lock)
        self._busy: set[_Slot] = set()
        self._alone_waiting = 0
        self._alone_running = False
        self._stops = 0  # how many times stop() ran, so a slot waiting at the gate notices
        _live_pools.add(self)
        # Registered by the first pool rather than on import (once: unregister is a no-op then).
        atexit.unregister(stop_all)
        atexit.register(stop_all)

    # -- the interface -----------------------------------------------------------------------
    def submit(self, request: ReadRequest) -> Future[FileRead]:
        future: Future[FileRead] = Future()
        with self._lock:
            if self._context is None:
                self._context = _context()
            self._put((request, future, False))
            if len(self._jobs) > self._idle and len(self._slots) < self.size:
                slot = _Slot(self)
                self._slots.add(slot)
                slot.thread.start()
        return future

    def read(self, request: ReadRequest) -> FileRead:
        return self.submit(request).result()

    def stop(self) -> None:
        """Kill every worker, fail every waiting file and join the threads; safe from any
        thread. The pool starts workers again on the next :meth:`submit`."""
        with self._lock:
            self._stopping = True
            self._stops += 1
            self._gate.notify_all()
            slots = list(self._slots)
            pending = list(self._jobs)
            self._jobs.clear()
            for _ in slots:
                self._put(_STOP)
        for job in pending:
            _fail_stopped(job)
        for slot in slots:
            slot.terminate()
        for slot in slots:
            if slot.thread is not threading.current_thread():
                slot.thread.join(JOIN_SECONDS)
        with self._lock:
            self._slots.difference_update(slots)
            late = list(self._jobs)  # sentinels no thread took, and files sent in while stopping
            self._jobs.clear()
            self._stopping = False
        for job in late:
            _fail_stopped(job)

    def worker_pids(self) -> list[int]:
        """Process ids of the workers alive now."""
        with self._lock:
            return [pid for slot in self._slots if (pid := slot.pid) is not None]

    # -- for the slot threads ------------------------------------------------------------------
    def _enter(self, slot: _Slot, alone: bool) -> bool:
        """Wait until ``slot`` may convert its file (alone: once no other file converts);
        False when the pool was stopped meanwhile."""
        with self._gate:
            stops = self._stops
            if alone:
                self._alone_waiting += 1
                try:
                    while self._stops == stops and (self._busy or self._alone_running):
                        self._gate.wait()
                finally:
                    self._alone_waiting -= 1
            else:
                while self._stops == stops and (self._alone_running or self._alone_waiting):
                    self._gate.wait()
            if self._stops != stops:
                return False
            self._alone_running = self._alone_running or alone
            slot.alone, slot.evicted = alone, False
            self._busy.add(slot)
            return True

    def _leave(self, slot: _Slot) -> None:
        with self._gate:
            self._busy.discard(slot)
            if slot.alone:
                self._alone_running = False
            slot.alone = False
            self._gate.notify_all()

    def _keep_under_ceiling(self, slot: _Slot) -> bool:
        """Checked every GATE_SECONDS while ``slot`` converts, from one reading of what each
        worker holds. While the workers together hold more than the ceiling, the idle ones are
        stopped: each keeps ~100 MB while it waits (more workers on more cores), and starting
        one again from the fork server costs milliseconds. True when ``slot`` should then stop
        its file to convert it again alone: the files converting side by side hold more than
        the ceiling between them, and its worker holds the most."""
        with self._lock:
            idle = [other for other in self._slots if other not in self._busy and other.pid]
            side_by_side = not slot.alone and len(self._busy) >= 2
            if not idle and not side_by_side:
                return False
            sizes = {other: resident_of(other.pid) for other in self._slots}
            held = sum(size for size in sizes.values() if size is not None)
            if idle and held > self.limits.max_memory:
                for other in idle:
                    other.stopped_idle = True
                    other.terminate()
            if not side_by_side:
                return False
            converting = {
                other: sizes.get(other)
                for other in self._busy
                if not other.evicted and other.pid is not None
            }
            if None in converting.values() or slot not in converting:
                return False
            if sum(converting.values()) <= self.limits.max_memory:  # type: ignore[arg-type]
                return False
            largest = max(converting, key=lambda other: (converting[other], other.pid))
            if largest is not slot:
                return False
            slot.evicted = True
            return True

    def _put(self, job: Any) -> None:
        """Queue ``job`` for the next free slot; the caller holds the lock."""
        self._jobs.append(job)
        self._job_ready.notify()

    def _requeue(self, job: Any) -> None:
        with self._lock:
            self._put(job)

    def _next_job(self, slot: _Slot) -> Any:
        """The next job, or None once ``slot`` has been idle long enough to end."""
        with self._lock:
            self._idle += 1
            try:
                deadline = time.monotonic() + self.limits.idle_seconds
                while not self._jobs:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._slots.discard(slot)
                        return None
                    self._job_ready.wait(left)
                return self._jobs.popleft()
            finally:
                self._idle -= 1


class _Slot:
    """One worker process and the thread that feeds it, one file at a time."""

    def __init__(self, pool: ConversionPool) -> None:
        self.pool = pool
        self.process: Any = None
        self.conn: Any = None
        self.files = 0
        self.alone = False  # converting a file that must have the memory to itself
        self.evicted = False  # stopped to make room; its file converts again alone
        self.stopped_idle = False  # its worker was stopped while idle, to make room
        self.thread = threading.Thread(target=self.serve, name="minirag-convert", daemon=True)

    @property
    def pid(self) -> int | None:
        process = self.process
        return process.pid if process is not None and process.is_alive() else None

    def serve(self) -> None:
        try:
            while (job := self.pool._next_job(self)) is not None and job is not _STOP:
                request, future, alone = job
                if not alone and not future.set_running_or_notify_cancel():
                    continue
                if not self.pool._enter(self, alone):
                    future.set_exception(_stopped(request))
                    continue
                try:
                    result = self.run(request)
                except _Yielded:
                    self.pool._requeue((request, future, True))
                except BaseException as exc:
                    future.set_exception(exc)
                else:
                    future.set_result(result)
                finally:
                    self.pool._leave(self)
        finally:
            self.kill()

    def run(self, request: ReadRequest) -> FileRead:
        limits = self.pool.limits
        if self.stopped_idle:  # join it, so that it cannot take this file as it dies
            self.stopped_idle = False
            self.kill()
        if self.process is None or self.files >= limits.recycle_after:
            self.restart()
        conn = self.conn
        try:
            conn.send(request)
        except (OSError, ValueError):  # died while idle: start another and try once more
            self.restart()
            conn = self.conn
            conn.send(request)
        self.files += 1
        try:
            reply = self.wait_for_reply(conn, limits.timeout)
        except (EOFError, OSError):
            if self.evicted and not self.pool._stopping:
                self.kill()
                raise _Yielded() from None
            raise self.death(request) from None
        if reply is None:
            self.kill()
            if self.pool._stopping:
                raise _stopped(request)
            # The cause says "may pass another time" to whoever remembers failures.
            raise ConversionError(request.path, limits.timeout_reason()) from TimeoutError()
        kind, value = reply
        if kind == "memory":
            self.kill()
            raise ConversionError(request.path, limits.memory_reason()) from MemoryError()
        resident, reserved = memory_of(self.pid)
        if (resident is not None and resident > KEEP_RESIDENT) or (
            reserved is not None and reserved > limits.max_memory
        ):
            self.kill()  # the next file starts a fresh worker; this one would idle on it
        if kind == "error":
            error, cause = value
            raise error from cause
        return value

    def wait_for_reply(self, conn: Any, timeout: float) -> tuple[str, Any] | None:
        """The worker's reply, or None past ``timeout``; kills the worker when the pool's
        memory gate says this file must make room (the read then fails with EOFError)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if conn.poll(max(0.0, min(left, GATE_SECONDS))):
                return conn.recv()
            if left <= 0:
                return None
            if self.pool._keep_under_ceiling(self):
                self.terminate()

    def death(self, request: ReadRequest) -> ConversionError:
        """Why the worker ended mid-file, as the file's error."""
        process = self.process
        self.kill()
        if self.pool._stopping:
            return _stopped(request)
        code = process.exitcode if process is not None else None
        if code == MEMORY_EXIT:
            return _caused(ConversionError(request.path, self.pool.limits.memory_reason()))
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            if -code == signal.SIGKILL:  # the kernel's OOM killer, usually
                return _caused(ConversionError(request.path, self.pool.limits.memory_reason()))
            return ConversionError(
                request.path, f"the converter crashed ({name}); the file is probably damaged"
            )
        return ConversionError(
            request.path, f"the converter stopped unexpectedly (exit status {code})"
        )

    def restart(self) -> None:
        self.kill()
        context = self.pool._context
        parent, child = context.Pipe()
        process = context.Process(
            target=worker_main,
            args=(child, self.pool.limits.max_memory, self.pool.ocr, self.pool.task),
            name="minirag-convert-worker",
            daemon=True,
        )
        process.start()
        child.close()
        self.process, self.conn, self.files = process, parent, 0

    def terminate(self) -> None:
        """Kill the worker from another thread; the slot's own thread notices and cleans up."""
        process = self.process
        if process is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()

    def kill(self) -> None:
        """Kill and join the worker and close its pipe (the slot's own thread only)."""
        process, conn = self.process, self.conn
        self.process = self.conn = None
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()
        if process is not None:
            with contextlib.suppress(OSError, ValueError):
                process.kill()
            process.join(JOIN_SECONDS)


class _Yielded(Exception):
    """The worker was stopped to make room for the files converting beside it."""


def _fail_stopped(job: Any) -> None:
    """Fail a job the pool will not convert because it was stopped."""
    if job is _STOP:
        return
    request, future, alone = job
    if alone or future.set_running_or_notify_cancel():  # a file sent back is already running
        future.set_exception(_stopped(request))


def _stopped(request: ReadRequest) -> PoolStopped:
    stopped = PoolStopped(request.path, "not converted: the work was stopped")
    stopped.__cause__ = InterruptedError()  # may pass another time
    return stopped


def _caused(error: ConversionError, cause: BaseException | None = None) -> ConversionError:
    """``error`` with a cause: MemoryError by default, as ``raise ... from`` would set it."""
    error.__cause__ = cause if cause is not None else MemoryError()
    return error


# Pools still running at exit stop their workers first (daemon processes would be killed
# anyway; this also joins them, so none outlives the interpreter).
_live_pools: weakref.WeakSet[ConversionPool] = weakref.WeakSet()


def stop_all() -> None:
    """Stop the workers of every pool of this process (also run at exit)."""
    for pool in list(_live_pools):
        with contextlib.suppress(Exception):
            pool.stop()
