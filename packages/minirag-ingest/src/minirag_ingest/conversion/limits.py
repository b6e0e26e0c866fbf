"""What a conversion pool allows: its workers, each worker's memory ceiling and each file's
time limit (:class:`PoolLimits`, with the reasons a file fails for them), and the error of a
file the pool was stopped before it converted (:class:`PoolStopped`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from minirag_ingest.errors import ConversionError
from minirag_ingest.settings import describe_bytes

MAX_WORKERS = 4
RECYCLE_AFTER = 200  # files a worker converts before a fresh one takes over
IDLE_SECONDS = 60.0


def default_workers() -> int:
    """One worker per core this process may use, at most :data:`MAX_WORKERS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


@dataclass(frozen=True)
class PoolLimits:
    max_memory: int  # bytes one worker may use
    timeout: float  # seconds one file's conversion may take
    workers: int = 0  # 0: default_workers()
    recycle_after: int = RECYCLE_AFTER
    idle_seconds: float = IDLE_SECONDS

    def memory_reason(self) -> str:
        return (
            f"needs more than {describe_bytes(self.max_memory)} to convert; raise "
            "RAG_CONVERT_MAX_MEMORY to index it"
        )

    def timeout_reason(self) -> str:
        return (
            f"took longer than {self.timeout:g} s to convert; raise RAG_CONVERT_TIMEOUT to index it"
        )


class PoolStopped(ConversionError):
    """The pool was stopped while the file waited or was being converted."""
