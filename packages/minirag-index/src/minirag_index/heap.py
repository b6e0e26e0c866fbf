"""Handing memory the process has freed back to the system.

glibc keeps what Python, LanceDB (Rust) and onnxruntime free in its heaps for reuse, and a heap
only shrinks from its top: after loading the model, after a large table read and after each
commit, the freed space stays resident. On a 100k-chunk index ``malloc_trim`` took a process
from 1,086 to 699 MiB after such a read (the search snapshot of that time, since removed;
docs/benchmarks-archive.md). Arrow's pool is asked to do the same.

glibc also gives each new thread a heap ("arena") of its own, up to eight per core. The
threads here - onnxruntime's pool, LanceDB's runtime, the server's workers - each took one
and kept what its largest piece of work left in it: over the big ingests of the hostile set
the server's main process ratcheted from 416 to 827 MiB and never came back, and the same run
with two arenas peaked 1,450 MiB for the whole tree instead of 1,638 (docs/benchmarks.md,
"read_file of the 50 MB text"). :func:`limit_heap_arenas` caps them before any of those
threads exist.

glibc serves a large request (over 128 KiB) with a mapping of its own, returned whole when
freed, but raises that bar to the largest block ever freed (up to 32 MiB), after which
LanceDB's and Arrow's column buffers come from the heaps. :func:`fix_mmap_threshold` holds the
bar where it starts.

Arrow's own allocator (mimalloc in the pyarrow wheels) reserves a 1 GiB region and kept what
the tables built and read during a sync left in it: 107 MiB resident at the end of a 10,000-file
sync in process, with Arrow reporting nothing allocated. On glibc, Arrow is pointed at the
system allocator instead, whose heaps the trim above reaches (:func:`arrow_on_system_allocator`).
That sync (random vectors for the model) peaked at 609 MiB and ended at 523 before both; with
Arrow on the system allocator, 488-504 and 394-428; with the bar held as well, 461-464 and
383-384, in the same time (docs/benchmarks.md).

Elsewhere than glibc the calls are skipped: there is nothing to trim, or no way to ask.

Importing this package changes none of these: they are process settings, and a library does
not choose them for the program that imports it. The server's entry point (and each conversion
worker it starts) calls :func:`tune_process_memory` first thing.
"""

from __future__ import annotations

import ctypes
import os
import sys
from functools import cache
from typing import Any


@cache
def _libc() -> Any | None:
    """glibc, if this process runs on it (musl and other systems have no malloc_trim).

    The C library the process already has loaded, not one looked up by name:
    ``ctypes.util.find_library`` runs ``ldconfig``, 4 ms of every start-up (this runs when
    the package is imported)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        return libc
    except (OSError, AttributeError):
        return None


HEAP_ARENAS = 2  # the main thread's heap and one shared by every other thread
ARENA_SWITCH = "MALLOC_ARENA_MAX"  # glibc's own setting, read when the process starts
_M_ARENA_MAX = -8  # mallopt's parameter number for it (malloc.h)


def limit_heap_arenas(arenas: int = HEAP_ARENAS) -> bool:
    """Let glibc keep at most ``arenas`` heaps for all threads; True when it did.

    Threads that already have a heap keep it, so this belongs before the libraries that start
    threads are loaded. A ``MALLOC_ARENA_MAX`` in the environment is the user's choice, which
    glibc has already applied: it is left alone."""
    return _mallopt_unless_set(_M_ARENA_MAX, arenas, ARENA_SWITCH)


def _mallopt_unless_set(parameter: int, value: int, switch: str) -> bool:
    """``mallopt(parameter, value)`` unless the environment sets ``switch`` (glibc's own name
    for it, which glibc has applied already); True when glibc took the value."""
    libc = _libc()
    if libc is None or switch in os.environ:
        return False
    return bool(libc.mallopt(parameter, value))


MMAP_THRESHOLD = 128 * 1024  # glibc's own starting value, held there
THRESHOLD_SWITCH = "MALLOC_MMAP_THRESHOLD_"  # glibc's setting, read when the process starts
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number for it (malloc.h)


def fix_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """Serve every request over ``threshold`` bytes with a mapping of its own, whatever was freed
    before; True when glibc took it. A ``MALLOC_MMAP_THRESHOLD_`` in the environment is the
    user's choice and is left alone."""
    return _mallopt_unless_set(_M_MMAP_THRESHOLD, threshold, THRESHOLD_SWITCH)


ARROW_POOL_SWITCH = "ARROW_DEFAULT_MEMORY_POOL"  # Arrow's setting, read at its first allocation


def arrow_on_system_allocator() -> bool:
    """Have Arrow allocate from glibc's heaps; True when it will. Left alone elsewhere than
    glibc, and when ``ARROW_DEFAULT_MEMORY_POOL`` is set: that is the user's choice."""
    if _libc() is None or ARROW_POOL_SWITCH in os.environ:
        return False
    os.environ[ARROW_POOL_SWITCH] = "system"  # conversion workers inherit it
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None:  # imported first: its pool may be chosen already
        pyarrow.set_memory_pool(pyarrow.system_memory_pool())
    return True


def tune_process_memory() -> None:
    """The three settings above, for a process that runs the server or one of its workers: call
    it before onnxruntime or LanceDB start their threads (each would keep a heap) and before
    their first large blocks. A library user leaves the process as it is."""
    limit_heap_arenas()
    fix_mmap_threshold()
    arrow_on_system_allocator()


def release_freed_memory() -> None:
    """Return freed heap pages to the system: Arrow's pool, then glibc's heaps.

    Costs a few milliseconds on a heap of hundreds of MiB; call it after large transient work,
    not per query."""
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None:
        pyarrow.default_memory_pool().release_unused()
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
