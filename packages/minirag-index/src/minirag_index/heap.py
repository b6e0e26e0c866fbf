"""Handing memory the process has freed back to the system.

glibc keeps what Python, LanceDB (Rust) and onnxruntime free in its heaps for reuse, and a heap
only shrinks from its top: after loading the model, after a search snapshot is built from a
large table read and after each commit, the freed space stays resident. On a 100k-chunk index
``malloc_trim`` took a process from 1,086 to 699 MiB once the snapshot was built
(docs/benchmarks.md, "Memory"). Arrow's own pool (mimalloc) is asked to do the same.

Elsewhere than glibc the calls are skipped: there is nothing to trim, or no way to ask.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import cache
from typing import Any


@cache
def _libc() -> Any | None:
    """glibc, if this process runs on it (musl and other systems have no malloc_trim)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
        return libc
    except (OSError, AttributeError):
        return None


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
