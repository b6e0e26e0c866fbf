"""Importing the index's libraries in the background once a client has connected.

Start-up stays lazy: nothing heavy is imported before ``initialize`` is answered. But the first
tool call of a fresh server used to pay for LanceDB's import (over a second here: its namespace
client builds hundreds of pydantic models) and for fastembed's; a no-op re-sync of 1,400 files
took 1.4 s in a new server against 65 ms in one that had done a sync. Importing both on a
background thread right after ``initialize`` uses the time a user spends on the first question.
No model is loaded and no index is opened: that still happens on first use.
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any

from fastmcp.server.middleware import Middleware

log = logging.getLogger(__name__)

WARM_MODULES = ("lancedb", "fastembed")
# Long enough for the initialize response to be written before the imports take the GIL.
WARM_DELAY = 0.2


def warm_imports(modules: tuple[str, ...] = WARM_MODULES) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the tool that needs it reports the failure properly
            log.debug("importing %s ahead of use failed", name, exc_info=True)


class WarmUpAfterInitialize(Middleware):
    """Starts :func:`warm_imports` once, ``WARM_DELAY`` seconds after the first initialize."""

    def __init__(self) -> None:
        self.started = False

    async def on_initialize(self, context: Any, call_next: Any) -> Any:
        result = await call_next(context)
        if not self.started:
            self.started = True
            timer = threading.Timer(WARM_DELAY, warm_imports)
            timer.daemon = True
            timer.start()
        return result
