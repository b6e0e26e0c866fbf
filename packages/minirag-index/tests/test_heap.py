"""glibc's per-thread heaps are capped in every process that imports minirag_index: each thread
would otherwise keep a heap of its own, sized by the largest work it ever did (heap.py)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's arenas")

THREADS = 6
# Each thread allocates while all of them are alive, then glibc lists its heaps on stderr.
COUNT_ARENAS = f"""
import ctypes, threading
{{imports}}
alive = threading.Barrier({THREADS + 1})
def work():
    buffers = [bytearray(200_000) for _ in range(4)]  # beyond pymalloc: glibc's malloc
    alive.wait()
    alive.wait()
threads = [threading.Thread(target=work) for _ in range({THREADS})]
for thread in threads:
    thread.start()
alive.wait()
ctypes.CDLL("libc.so.6").malloc_stats()
alive.wait()
"""


def heap_arenas(imports: str, **env: str) -> int:
    clean = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    done = subprocess.run(
        [sys.executable, "-c", COUNT_ARENAS.format(imports=imports)],
        capture_output=True,
        text=True,
        env={**clean, **env},
        check=True,
    )
    return sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_threads_share_two_heaps_once_the_index_is_imported() -> None:
    assert heap_arenas("") > THREADS, "without the cap each thread takes a heap of its own"
    assert heap_arenas("import minirag_index") == 2


def test_a_limit_the_user_set_is_kept() -> None:
    assert heap_arenas("import minirag_index", MALLOC_ARENA_MAX="4") == 4
