"""Readers and writers on their own connections, as other processes would be."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


def counts_seen_while(db: Path, where: str, write: Callable[[], None]) -> list[int]:
    """Every row count of ``where`` a reader (its own store, as another process would open
    it) saw while ``write`` ran."""
    from minirag_index.storage.store import Store

    seen: list[int] = []
    done = threading.Event()

    def read() -> None:
        reader = Store(db)
        while not done.is_set():
            seen.append(reader.count_rows(where))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        write()
    finally:
        done.set()
        thread.join()
    return seen


def errors_of_writers_at_once(tags: str, write: Callable[[str], None]) -> list[Exception]:
    """Run ``write(tag)`` in one thread per tag, all at once; what they raised."""
    errors: list[Exception] = []

    def run(tag: str) -> None:
        try:
            write(tag)
        except Exception as exc:  # reported to the caller
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(tag,)) for tag in tags]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
