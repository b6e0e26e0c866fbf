"""A conversion worker process: the loop that converts the files its pool sends, and the
ceiling on its own memory (``RLIMIT_DATA`` and a watchdog thread on its resident size).
:mod:`minirag_ingest.conversion.pool` starts the workers, and reads what each one holds from
outside with :func:`memory_of`."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from minirag_index.heap import release_freed_memory, tune_process_memory
from minirag_ingest.errors import ConversionError

if TYPE_CHECKING:
    from collections.abc import Callable

    from minirag_ingest.conversion.reading import FileRead, ReadRequest
    from minirag_ingest.extras.plugins import OcrEngine

    Task = Callable[[ReadRequest, OcrEngine | None], FileRead]

WATCH_SECONDS = 0.05  # how often a worker checks its own resident size
MEMORY_EXIT = 75  # exit status of a worker that reached its memory ceiling
HARD_CEILING_FACTOR = 2


def worker_main(conn: Any, max_memory: int, ocr: OcrEngine | None, task: Task) -> None:
    """Convert files sent over ``conn`` until the pipe closes."""
    tune_process_memory()  # a worker is a process of ours: the server's memory settings
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
        del reply
        # An idle worker would otherwise keep the heap of its largest conversion (a 50 MB
        # text: some 400 MiB) while the server embeds what it sent.
        release_freed_memory()


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
    while True:
        if _resident_bytes() >= max_memory:
            os._exit(MEMORY_EXIT)
        time.sleep(WATCH_SECONDS)


def resident_of(pid: int | None) -> int | None:
    """The resident size of another process, where the system tells (Linux), else None."""
    return memory_of(pid)[0]


def memory_of(pid: int | None) -> tuple[int | None, int | None]:
    """Another process's resident size and the data memory it has reserved (VmData, what
    RLIMIT_DATA counts), from one read of ``/proc/<pid>/status``; None where not told."""
    found: dict[bytes, int] = {}
    if pid is not None:
        try:
            with open(f"/proc/{pid}/status", "rb") as status:
                for line in status:
                    if line.startswith((b"VmRSS:", b"VmData:")):
                        found[line.split(b":")[0]] = int(line.split()[1]) << 10
        except (OSError, ValueError, IndexError):
            found = {}
    return found.get(b"VmRSS"), found.get(b"VmData")


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024
