"""Memory of the processes this one started, from /proc (Linux only): a server over stdio, its
fork server and its conversion workers.

Proportional set size (PSS) is summed, so pages shared between processes - the libraries, what
conversion workers share with their fork server - count once, split between them.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


class TreeMemory:
    """Samples, every ``interval`` seconds while in use, the PSS of every descendant of this
    process: the peak of their sum, the processes at that moment, and each process's peak.

    Processes that were already running when sampling began (a fork server an earlier test of
    this process started, say) are not counted; what starts inside the ``with`` block is, their
    new children included."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.peak = 0
        self.peak_processes = 0
        self.breakdown: dict[str, int] = {}  # "pid:command" -> MiB, at the peak
        self.largest: dict[int, int] = {}  # pid -> its own peak, bytes
        self._before: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._before = set(descendants(os.getpid()))
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            pids = set(descendants(os.getpid())) - self._before
            sizes = {pid: pss(pid) for pid in pids}
            total = sum(sizes.values())
            for pid, size in sizes.items():
                self.largest[pid] = max(size, self.largest.get(pid, 0))
            if total > self.peak:
                self.peak, self.peak_processes = total, len(sizes)
                self.breakdown = {label(pid): size >> 20 for pid, size in sizes.items()}


def descendants(root: int) -> list[int]:
    """Every process below ``root``, children first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def label(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return str(pid)
    return f"{pid}:{command[:60].decode(errors='replace')}"


def pss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
