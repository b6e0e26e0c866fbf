"""Converting files in worker processes that have a memory ceiling and a time limit.

A document from an untrusted folder can make a converter allocate gigabytes (a zip bomb that
slipped past :mod:`minirag_ingest.inflation`, a PDF stream that inflates forever) or run for
ever. So conversion - markitdown, the WebVTT reader, OCR - runs in a worker process:

* its memory is capped: a watchdog thread ends the worker once its resident size reaches
  ``RAG_CONVERT_MAX_MEMORY``, and on Linux ``RLIMIT_DATA`` at :data:`HARD_CEILING_FACTOR`
  times that makes allocations fail outright before a burst can outrun the watchdog (the
  limit counts address space reserved but never touched, as onnxruntime's arenas are, so it
  cannot be the cap itself). Either way the file is one failed file, "needs more than 1 GB to
  convert";
* it has ``RAG_CONVERT_TIMEOUT`` seconds per file; past that it is killed, and the file fails
  with "took longer than 120 s to convert";
* a worker that crashes costs only the file it was reading;
* workers are reused from file to file (one per core, at most :data:`MAX_WORKERS`), started
  from a fork server that has the converters imported already, replaced after a crash and after
  :data:`RECYCLE_AFTER` files, and stopped when idle for :data:`IDLE_SECONDS`;
* they ignore Ctrl-C: the process that owns the pool decides, and :meth:`ConversionPool.stop`
  (from any thread) kills and joins them and fails whatever was still waiting.

Embedding stays in the main process: the model is loaded once, there.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from minirag_ingest.convert import ConversionError
from minirag_ingest.ocr import OcrEngine
from minirag_ingest.reading import FileRead, ReadRequest, read_contained
from minirag_ingest.settings import describe_bytes

log = logging.getLogger(__name__)

MAX_WORKERS = 4
RECYCLE_AFTER = 200  # files a worker converts before a fresh one takes over
IDLE_SECONDS = 60.0
WATCH_SECONDS = 0.05  # how often a worker checks its own resident size
MEMORY_EXIT = 75  # exit status of a worker that reached its memory ceiling
HARD_CEILING_FACTOR = 2
JOIN_SECONDS = 5.0
# Imported once by the fork server, so each worker starts with the converters loaded.
PRELOAD = ["minirag_ingest.convert_pool", "markitdown.converters", "pdfminer.high_level"]

Task = Callable[[ReadRequest, "OcrEngine | None"], FileRead]


def default_workers() -> int:
    """One worker per core this process may use, at most :data:`MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


@dataclass(frozen=True)
class PoolLimits:
    max_memory: int  # bytes one worker may use
    timeout: float  # seconds one file's conversion may take
    workers: int = 0  # 0: default_workers()
    recycle_after: int = RECYCLE_AFTER
    idle_seconds: float = IDLE_SECONDS

    def memory_reason(self) -> str:
        return (
            f"needs more than {describe_bytes(self.max_memory)} to convert; raise "
            "RAG_CONVERT_MAX_MEMORY to index it"
        )

    def timeout_reason(self) -> str:
        return (
            f"took longer than {self.timeout:g} s to convert; raise RAG_CONVERT_TIMEOUT to index it"
        )


class PoolStopped(ConversionError):
    """The pool was stopped while the file waited or was being converted."""


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
    worker runs per file, :func:`~minirag_ingest.reading.read_contained` unless a test says
    otherwise (it must be a module-level function).
    """

    def __init__(
        self, limits: PoolLimits, ocr: OcrEngine | None = None, *, task: Task = read_contained
    ) -> None:
        self.limits = limits
        self.size = limits.workers or default_workers()
        self.ocr = ocr
        self.task = task
        self._jobs: queue.Queue[Any] = queue.Queue()
        self._lock = threading.Lock()
        self._slots: set[_Slot] = set()
        self._idle = 0
        self._stopping = False
        self._context: Any = None
        _live_pools.add(self)

    # -- the interface -----------------------------------------------------------------------
    def submit(self, request: ReadRequest) -> Future[FileRead]:
        future: Future[FileRead] = Future()
        with self._lock:
            if self._context is None:
                self._context = _context()
            self._jobs.put((request, future))
            if self._idle == 0 and len(self._slots) < self.size:
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
            slots = list(self._slots)
            pending = []
            while True:
                try:
                    pending.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            for _ in slots:
                self._jobs.put(_STOP)
        for job in pending:
            if job is not _STOP:
                request, future = job
                if future.set_running_or_notify_cancel():
                    future.set_exception(_stopped(request))
        for slot in slots:
            slot.terminate()
        for slot in slots:
            if slot.thread is not threading.current_thread():
                slot.thread.join(JOIN_SECONDS)
        late = []
        with self._lock:
            self._slots.difference_update(slots)
            while True:  # sentinels no thread took, and files sent in while stopping
                try:
                    late.append(self._jobs.get_nowait())
                except queue.Empty:
                    break
            self._stopping = False
        for job in late:
            if job is not _STOP and job[1].set_running_or_notify_cancel():
                job[1].set_exception(_stopped(job[0]))

    def worker_pids(self) -> list[int]:
        """Process ids of the workers alive now."""
        with self._lock:
            return [pid for slot in self._slots if (pid := slot.pid) is not None]

    # -- for the slot threads ------------------------------------------------------------------
    def _next_job(self, slot: _Slot) -> Any:
        """The next job, or None once ``slot`` has been idle long enough to end."""
        while True:
            with self._lock:
                self._idle += 1
            try:
                return self._jobs.get(timeout=self.limits.idle_seconds)
            except queue.Empty:
                with self._lock:
                    if self._jobs.empty():
                        self._slots.discard(slot)
                        return None
            finally:
                with self._lock:
                    self._idle -= 1


class _Slot:
    """One worker process and the thread that feeds it, one file at a time."""

    def __init__(self, pool: ConversionPool) -> None:
        self.pool = pool
        self.process: Any = None
        self.conn: Any = None
        self.files = 0
        self.thread = threading.Thread(target=self.serve, name="minirag-convert", daemon=True)

    @property
    def pid(self) -> int | None:
        process = self.process
        return process.pid if process is not None and process.is_alive() else None

    def serve(self) -> None:
        try:
            while (job := self.pool._next_job(self)) is not None and job is not _STOP:
                request, future = job
                if not future.set_running_or_notify_cancel():
                    continue
                try:
                    result = self.run(request)
                except BaseException as exc:
                    future.set_exception(exc)
                else:
                    future.set_result(result)
        finally:
            self.kill()

    def run(self, request: ReadRequest) -> FileRead:
        limits = self.pool.limits
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
            answered = conn.poll(limits.timeout)
            reply = conn.recv() if answered else None
        except (EOFError, OSError):
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
        if kind == "error":
            error, cause = value
            raise error from cause
        return value

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
            target=_worker_main,
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


@atexit.register
def stop_all() -> None:
    """Stop the workers of every pool of this process (also run at exit)."""
    for pool in list(_live_pools):
        with contextlib.suppress(Exception):
            pool.stop()


# -- inside a worker -------------------------------------------------------------------------


def _worker_main(conn: Any, max_memory: int, ocr: OcrEngine | None, task: Task) -> None:
    """Convert files sent over ``conn`` until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    _cap_memory(max_memory)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            reply: tuple[str, Any] = ("ok", task(request, ocr))
        except MemoryError:
            reply = ("memory", None)
        except ConversionError as exc:
            reply = ("memory", None) if _out_of_memory(exc) else ("error", (exc, _cause(exc)))
        except Exception as exc:
            error = ConversionError(request.path, f"conversion failed: {_name(exc)}")
            reply = ("error", (error, _cause(error)))
        try:
            conn.send(reply)
        except MemoryError:
            os._exit(MEMORY_EXIT)
        except Exception as exc:  # a result that does not pickle
            error = ConversionError(request.path, f"conversion failed: {_name(exc)}")
            conn.send(("error", (error, None)))
        if reply[0] == "memory":
            os._exit(MEMORY_EXIT)  # after a failed allocation nothing in here is trusted


def _cause(exc: BaseException) -> BaseException | None:
    """What caused ``exc``, in a form that crosses the pipe (pickling an exception drops its
    cause): the exception itself when it pickles, else one of its kind's nearest builtin."""
    import pickle

    cause = exc.__cause__
    if cause is None:
        return None
    try:
        pickle.dumps(cause)
    except Exception:
        for kind in type(cause).__mro__:
            if kind.__module__ == "builtins" and issubclass(kind, BaseException):
                return kind(str(cause))
        return None
    cause.__traceback__ = None
    return cause


def _out_of_memory(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, MemoryError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _name(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _die_with_parent() -> None:
    """On Linux, the kernel kills this worker when the process that started it ends."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _cap_memory(max_memory: int) -> None:
    """Refuse allocations past ``max_memory`` and exit once resident memory reaches it."""
    try:
        import resource
    except ImportError:  # Windows: only the time limit applies
        return
    if sys.platform.startswith("linux"):
        hard = HARD_CEILING_FACTOR * max_memory
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
    watchdog = threading.Thread(
        target=_watch_memory, args=(max_memory,), name="memory-watchdog", daemon=True
    )
    watchdog.start()


def _watch_memory(max_memory: int) -> None:
    import time

    while True:
        if _resident_bytes() >= max_memory:
            os._exit(MEMORY_EXIT)
        time.sleep(WATCH_SECONDS)


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024
