"""Importing our packages changes nothing in the importing process: no stand-in modules, no
import hooks, no environment variables, and glibc's allocator left with its own defaults. A
library user's program keeps the process it had; the server's entry point tunes its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.ocr, pytest.mark.classify]  # installed plug-ins must stay unloaded

PROBE = r"""
import ctypes, json, os, sys, tempfile, threading

env_before = dict(os.environ)
meta_path_before = list(sys.meta_path)

import minirag_index, minirag_ingest, minirag_mcp  # the imports under test

# A module in sys.modules whose own code never ran is a stand-in put there by someone else (a
# module's code running leaves __builtins__ in its namespace).
stand_ins = sorted(
    name
    for name, module in list(sys.modules.items())
    if str(getattr(getattr(module, "__spec__", None), "origin", "")).endswith(".py")
    and "__builtins__" not in vars(module)
)

libc = ctypes.CDLL(None)

class MallInfo2(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]

# glibc's default mmap threshold is dynamic: freeing a mapped 8 MiB block raises it, so a
# 2 MiB block comes from the heap afterwards. Held fixed (mallopt), the 2 MiB block is mapped.
big = libc.malloc(8 << 20)
libc.free(big)
mapped_before = libc.mallinfo2().hblks
block = libc.malloc(2 << 20)
mapped_after = libc.mallinfo2().hblks
libc.free(block)

# glibc's default arena limit is 8 per core: four threads allocating at once get heaps of their
# own (MALLOC_ARENA_MAX=2 would make them share the main one and one more).
start, hold = threading.Barrier(5), threading.Barrier(5)
def allocate():
    start.wait()
    data = bytearray(1 << 18)
    hold.wait()
threads = [threading.Thread(target=allocate) for _ in range(4)]
for t in threads:
    t.start()
start.wait()
hold.wait()
for t in threads:
    t.join()
with tempfile.NamedTemporaryFile("r") as out:
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    handle = libc.fopen(out.name.encode(), b"w")
    libc.malloc_info(0, handle)
    libc.fclose(handle)
    heaps = out.read().count("<heap nr=")

print(json.dumps({
    "stand_ins": stand_ins,
    "meta_path_changed": sys.meta_path != meta_path_before,
    "env_changed": sorted(
        k for k in set(env_before) | set(os.environ) if env_before.get(k) != os.environ.get(k)
    ),
    "mmap_threshold_dynamic": mapped_after == mapped_before,
    "heaps": heaps,
}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads glibc's allocator")
def test_importing_the_packages_leaves_the_process_as_it_was(tmp_path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MALLOC_", "ARROW_", "ORT_", "PY_KEY_VALUE", "FASTMCP_"))
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["stand_ins"] == []
    assert result["meta_path_changed"] is False
    assert result["env_changed"] == []
    assert result["mmap_threshold_dynamic"] is True
    assert result["heaps"] >= 3  # the main heap and threads' own: no arena cap was set


def test_the_server_entry_point_tunes_its_own_process(tmp_path) -> None:
    """What the library leaves alone the program decides: `minirag-mcp` sets the memory and
    telemetry settings for itself and the conversion workers it starts."""
    probe = (
        "import json, os, sys; from minirag_mcp.cli import tune_process; tune_process(); "
        "print(json.dumps({k: os.environ.get(k) for k in "
        "('ORT_DISABLE_TELEMETRY', 'ARROW_DEFAULT_MEMORY_POOL', 'FASTMCP_CHECK_FOR_UPDATES')}))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARROW_", "ORT_", "FASTMCP_"))}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == {
        "ORT_DISABLE_TELEMETRY": "1",
        "ARROW_DEFAULT_MEMORY_POOL": "system",
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }
