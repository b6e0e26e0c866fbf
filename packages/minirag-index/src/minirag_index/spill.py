"""Bytes written once and read back by offset, from a temporary file rather than memory.

The search snapshot keeps the chunk texts and the exact float32 vectors here: a search reads
back only the few rows it returns or ranks exactly, so holding them in the process bought
nothing but resident memory (at 100k chunks, 146 MiB of vectors and 65 MiB of text). The file
is anonymous (created already unlinked where the system allows it), so it disappears with the
snapshot or the process, crashes included; the system's file cache keeps its pages while there
is room and drops them when memory is short. Where no file can be written (no space, a
read-only cache folder) the bytes stay in memory instead, as they always did.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)


class Spill:
    """Append while building, then :meth:`read` from any thread."""

    def __init__(self, folder: Path | None) -> None:
        self._file: IO[bytes] | None = None
        self._memory: bytearray | None = None
        self._size = 0
        self._lock = threading.Lock()  # for systems without os.pread
        if folder is not None:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                # Kept open for the snapshot's life (closed by close() or with the object).
                self._file = tempfile.TemporaryFile(dir=folder, prefix="snapshot-", buffering=0)  # noqa: SIM115
            except OSError as exc:
                log.warning("search snapshot kept in memory: cannot write in %s (%s)", folder, exc)
        if self._file is None:
            self._memory = bytearray()

    @property
    def in_memory(self) -> bool:
        return self._memory is not None

    def __len__(self) -> int:
        return self._size

    def append(self, data: bytes | memoryview) -> None:
        view = memoryview(data).cast("B")
        if self._file is not None:
            try:
                while view:  # unbuffered: a write may take only part of it
                    taken = self._file.write(view) or 0
                    self._size += taken
                    view = view[taken:]
            except OSError as exc:  # the disk filled up while building: carry on in memory
                log.warning("search snapshot kept in memory: writing it failed (%s)", exc)
                self._to_memory()
        if self._memory is not None:
            self._memory += view
            self._size += len(view)

    def read(self, offset: int, length: int) -> bytes:
        if self._memory is not None:
            return bytes(self._memory[offset : offset + length])
        assert self._file is not None
        if hasattr(os, "pread"):
            return os.pread(self._file.fileno(), length, offset)
        with self._lock:  # Windows: no positional read, so seek and read under a lock
            self._file.seek(offset)
            return self._file.read(length)

    def _to_memory(self) -> None:
        """What was written so far, read back into memory; the file is let go."""
        file, self._file = self._file, None
        assert file is not None
        with file:
            file.seek(0)
            self._memory = bytearray(file.read(self._size))
