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
SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP = threading.Event()
_cooperative = False


@contextmanager
def handled(*, cooperative: bool) -> Iterator[None]:
    """Handle SIGINT and SIGTERM while the block runs; ignore them once it is over.

    The block is the whole command: after it the process only exits. Restoring the default
    handlers there would let a signal that lands between the end of the work and the exit
    (interpreter shutdown included, which resets Python-level handlers) kill a command that has
    already finished; an ignored signal survives shutdown. Only the main thread can install
    handlers; elsewhere the block runs without them."""
    global _cooperative
    _cooperative = cooperative
    STOP.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    for sig in SIGNALS:
        signal.signal(sig, _on_signal)
    try:
        yield
    finally:
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)


def _on_signal(signum: int, frame: Any) -> None:
    if not _cooperative:
        raise KeyboardInterrupt
    if STOP.is_set():
        os.write(2, b"\ninterrupted again: stopping now\n")
        os._exit(EXIT_INTERRUPTED)
    STOP.set()
    if sys.stderr is not None and sys.stderr.isatty():
        os.write(2, b"\nstopping after the commit in flight (press Ctrl-C again to quit now)\n")
