"""The background warm-up import never outlives the server: a stopping server cancels one not
yet begun and waits for one under way (an import cut off by the interpreter's shutdown can
abort the process)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from minirag_mcp import warmup


async def _listed(_context: object) -> str:
    return "tools"


def test_stop_cancels_a_warm_up_not_yet_begun(monkeypatch: pytest.MonkeyPatch) -> None:
    ran = threading.Event()
    monkeypatch.setattr(warmup, "warm_imports", lambda modules: ran.set())
    monkeypatch.setattr(warmup, "WARM_DELAY", 30.0)
    warm_up = warmup.WarmUpAfterInitialize()
    assert asyncio.run(warm_up.on_list_tools(None, _listed)) == "tools"
    warm_up.stop()
    assert not ran.is_set()
    asyncio.run(warm_up.on_list_tools(None, _listed))  # a list after the stop starts nothing
    assert warm_up._timer is not None and not warm_up._timer.is_alive()


def test_stop_waits_for_an_import_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    started, finished = threading.Event(), threading.Event()

    def slow_import(modules: tuple[str, ...]) -> None:
        started.set()
        time.sleep(0.5)  # an extension module loading
        finished.set()

    monkeypatch.setattr(warmup, "warm_imports", slow_import)
    monkeypatch.setattr(warmup, "WARM_DELAY", 0.0)
    warm_up = warmup.WarmUpAfterInitialize()
    asyncio.run(warm_up.on_list_tools(None, _listed))
    assert started.wait(30)
    warm_up.stop()
    assert finished.is_set()
