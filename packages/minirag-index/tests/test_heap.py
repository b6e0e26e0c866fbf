"""The memory settings a process that calls tune_process_memory gets (heap.py; the server's entry
point and its conversion workers do; importing the package alone sets nothing): glibc's
per-thread heaps capped (each thread would otherwise keep a heap of its own, sized by the largest
work it ever did), glibc's bar for a mapping of one's own held, Arrow on glibc's allocator; each
left as the user set it."""

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


TUNED = "import minirag_index; minirag_index.tune_process_memory()"
SWITCHES = ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_", "ARROW_DEFAULT_MEMORY_POOL")


def run_python(program: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``program`` in a fresh interpreter, with none of the memory settings but ``env``."""
    clean = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    return subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env={**clean, **env},
        check=True,
    )


def heap_arenas(imports: str, **env: str) -> int:
    done = run_python(COUNT_ARENAS.format(imports=imports), **env)
    return sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_threads_share_two_heaps_once_the_process_is_tuned() -> None:
    assert heap_arenas("") > THREADS, "without the cap each thread takes a heap of its own"
    assert heap_arenas(TUNED) == 2


def test_a_limit_the_user_set_is_kept() -> None:
    assert heap_arenas(TUNED, MALLOC_ARENA_MAX="4") == 4


# A 4 MiB block freed, then a 1 MiB one kept: glibc's count of the bytes it holds in mappings of
# their own (mallinfo2's hblkhd) says whether the 1 MiB got one or came from a heap.
MAPPED_AFTER_A_BIG_FREE = """
import ctypes
{imports}
class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena ordblks smblks hblks hblkhd "
                "usmblks fsmblks uordblks fordblks keepcost").split()]
libc = ctypes.CDLL("libc.so.6")
libc.mallinfo2.restype = Info
before = libc.mallinfo2().hblkhd
big = bytearray(4 << 20)
del big
kept = bytearray(1 << 20)
print(libc.mallinfo2().hblkhd - before)
"""


def mapped_for_the_kept_block(imports: str, **env: str) -> int:
    return int(run_python(MAPPED_AFTER_A_BIG_FREE.format(imports=imports), **env).stdout)


def test_a_large_block_keeps_a_mapping_of_its_own_after_a_bigger_one_is_freed() -> None:
    """Freed whole, such a block leaves no hole in a heap (heap.py)."""
    assert mapped_for_the_kept_block("") == 0, "unheld, glibc's bar rose to 4 MiB"
    assert mapped_for_the_kept_block(TUNED) >= 1 << 20


def test_a_threshold_the_user_set_is_kept() -> None:
    kept = mapped_for_the_kept_block(TUNED, MALLOC_MMAP_THRESHOLD_="8388608")
    assert kept == 0


def arrow_pool(imports: str, **env: str) -> str:
    program = f"{imports}\nimport pyarrow\nprint(pyarrow.default_memory_pool().backend_name)"
    return run_python(program, **env).stdout.strip()


def test_arrow_allocates_from_the_heaps_the_trim_reaches() -> None:
    """Its own allocator kept 107 MiB of a long sync's freed tables resident (heap.py)."""
    assert arrow_pool("") != "system", "the wheel's default is its own allocator"
    assert arrow_pool(TUNED) == "system"
    assert arrow_pool("import pyarrow\n" + TUNED) == "system"


def test_an_arrow_allocator_the_user_chose_is_kept() -> None:
    chosen = arrow_pool(TUNED, ARROW_DEFAULT_MEMORY_POOL="jemalloc")
    assert chosen == "jemalloc"
