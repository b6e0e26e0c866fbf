"""A stand-in classify plug-in, registered through monkeypatched entry points.

Label tests run in the base session this way, without the [classify] extra; the real choice
model is tested in minirag-classify. Each test supplies the model: anything with
``ask(question, options, document_head, file_name)`` and ``close()``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


class FakePlugin:
    """Loads a fresh ``make_model()`` for every job and keeps them all in ``models``."""

    name = "fake"

    def __init__(self, make_model: Callable[[], Any]) -> None:
        self.make_model = make_model
        self.models: list[Any] = []

    def probe(self, spec: Any, cache_dir: Path) -> str | None:
        return None

    def load(self, spec: Any, cache_dir: Path) -> Any:
        self.models.append(self.make_model())
        return self.models[-1]


class _EntryPoint:
    name = "fake"

    def __init__(self, plugin: FakePlugin) -> None:
        self.plugin = plugin

    def load(self) -> FakePlugin:
        return self.plugin


def register(monkeypatch: pytest.MonkeyPatch, plugin: FakePlugin | None) -> None:
    """Make ``plugin`` the installed classify plug-in (None: the extra is not installed)."""
    from minirag_ingest.labels import resolve

    points = [_EntryPoint(plugin)] if plugin is not None else []
    monkeypatch.setattr(resolve, "entry_points", lambda group: points)
    monkeypatch.setattr(resolve, "_plugin_cache", {})
