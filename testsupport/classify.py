"""A stand-in classify plug-in, registered through the plug-in seam's public registry.

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


def register(monkeypatch: pytest.MonkeyPatch, plugin: Any) -> None:
    """Make ``plugin`` the installed classify plug-in (None: the extra is not installed) until
    the test ends."""
    from minirag_ingest.extras import plugins

    monkeypatch.setitem(plugins.REGISTERED, plugins.CLASSIFY.group, plugin)
