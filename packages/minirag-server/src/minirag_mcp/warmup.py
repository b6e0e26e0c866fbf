"""Importing the index's libraries in the background once a client has connected.

Start-up stays lazy: nothing heavy is imported before ``initialize`` is answered. But the first
tool call of a fresh server used to pay for LanceDB's import (over a second here: its namespace
client builds hundreds of pydantic models) and for fastembed's; a no-op re-sync of 1,400 files
took 1.4 s in a new server against 65 ms in one that had done a sync. Importing both on a
background thread right after ``initialize`` uses the time a user spends on the first question.
No model is loaded and no index is opened: that still happens on first use. What is imported
follows MODEL_NAME: fastembed for a model id, only onnxruntime and tokenizers for a model
folder (which loads without fastembed).

The imports hold the GIL for over a second, so they wait until the client has its tool list:
a client sends ``tools/list`` right after ``initialize``, and importing beside it would slow
that answer. A client that never lists tools gets the warm-up a second after ``initialize``.

When the server stops, :meth:`WarmUpAfterInitialize.stop` cancels a warm-up not yet begun and
waits for one under way: an extension module still being imported on a daemon thread while the
interpreter shuts down can make Python abort (seen as "Fatal Python error: PyGILState_Release"
and exit status -6 when a client disconnects right after its first call).
"""

from __future__ import annotations

import importlib
import logging
import threading
from typing import Any

from fastmcp.server.middleware import Middleware

log = logging.getLogger(__name__)

WARM_MODULES = ("lancedb", "fastembed")
# Long enough for the tools/list response to be written before the imports take the GIL.
WARM_DELAY = 0.2
WARM_DELAY_WITHOUT_LIST = 1.0
STOP_WAIT = 60.0  # seconds a stopping server waits for an import under way


def warm_imports(modules: tuple[str, ...] = WARM_MODULES) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the tool that needs it reports the failure properly
            log.debug("importing %s ahead of use failed", name, exc_info=True)


class WarmUpAfterInitialize(Middleware):
    """Starts :func:`warm_imports` of ``modules`` ``WARM_DELAY`` seconds after the first
    tools/list, or ``WARM_DELAY_WITHOUT_LIST`` seconds after the first initialize if no list
    came by then. (Should both timers fire, the second import finds everything imported
    already.)"""

    def __init__(self, modules: tuple[str, ...] = WARM_MODULES) -> None:
        self.modules = modules
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._listed = False
        self._stopped = False

    def _schedule(self, delay: float) -> None:
        if self._stopped:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(delay, self._warm)
        self._timer.daemon = True
        self._timer.start()

    def _warm(self) -> None:
        warm_imports(self.modules)

    def stop(self, timeout: float = STOP_WAIT) -> None:
        """No warm-up from now on; one that has begun importing is waited for."""
        with self._lock:
            self._stopped = True
            timer = self._timer
        if timer is not None:
            timer.cancel()
            timer.join(timeout)

    async def on_initialize(self, context: Any, call_next: Any) -> Any:
        result = await call_next(context)
        with self._lock:
            if self._timer is None:
                self._schedule(WARM_DELAY_WITHOUT_LIST)
        return result

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        result = await call_next(context)
        with self._lock:
            if not self._listed:
                self._listed = True
                self._schedule(WARM_DELAY)
        return result
