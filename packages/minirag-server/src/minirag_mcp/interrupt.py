"""Ctrl-C and SIGTERM for the CLI.

A long command (``sync``, ``ingest``) must not die inside a commit or while a background thread
is in the embedding or storage libraries: that is how a process aborts at exit instead of
stopping. For those commands the first signal only sets :data:`STOP`; the command stops at its
next safe point (after the commit in flight), joins its threads, says how far it got and exits
130. A second signal exits at once. Every other command is interrupted the usual way
(KeyboardInterrupt), which the entry point turns into a quiet exit 130.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

EXIT_INTERRUPTED = 130
STOP = threading.Event()
_cooperative = False


@contextmanager
def handled(*, cooperative: bool) -> Iterator[None]:
    """Handle SIGINT and SIGTERM while the block runs (the previous handlers come back after).

    Only the main thread can install handlers; elsewhere the block runs without them."""
    global _cooperative
    _cooperative = cooperative
    STOP.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _on_signal(signum: int, frame: Any) -> None:
    if not _cooperative:
        raise KeyboardInterrupt
    if STOP.is_set():
        os.write(2, b"\ninterrupted again: stopping now\n")
        os._exit(EXIT_INTERRUPTED)
    STOP.set()
    if sys.stderr is not None and sys.stderr.isatty():
        os.write(2, b"\nstopping after the commit in flight (press Ctrl-C again to quit now)\n")
