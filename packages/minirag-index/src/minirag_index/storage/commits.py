"""Committing to the table: retries on another writer's conflicting commit, and upgrades that
may fail without failing the caller.

LanceDB commits optimistically: when two writers commit at once, one of them fails with a
conflict and tries again (:func:`retry`). An upgrade of an older table (new columns, new
indexes) is best-effort (:func:`best_effort`): a read-only folder or a racing writer leaves the
table as it was, with a warning, and reads still work.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

COMMIT_ATTEMPTS = 8


def is_conflict(exc: Exception) -> bool:
    """Whether ``exc`` is a commit conflict that trying again may resolve."""
    text = str(exc).lower()
    return any(word in text for word in ("conflict", "retryable", "concurrent", "commit"))


def retry(action: Callable[[], T]) -> T:
    """Run a commit, retrying on optimistic-concurrency conflicts with jittered backoff."""
    for attempt in range(COMMIT_ATTEMPTS):
        try:
            return action()
        except Exception as exc:
            if attempt == COMMIT_ATTEMPTS - 1 or not is_conflict(exc):
                raise
            time.sleep(random.uniform(0.01, 0.05) * (2**attempt))
    raise AssertionError("unreachable")


def best_effort(upgrade: Callable[[], object], failure: str) -> list[str]:
    """Run ``upgrade``; when it fails, log and return the warning ``"<failure>: <error>"``
    instead of raising (an empty list when it went well)."""
    try:
        upgrade()
    except Exception as exc:
        message = f"{failure}: {exc}"
        log.warning(message)
        return [message]
    return []
