"""Counting what a real embedding model is asked to embed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest


def count_passages(embedder: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text ``embedder`` embeds as a passage from now on (the model still embeds it)."""
    texts: list[str] = []
    original = embedder.embed_passages

    def counting(batch: Sequence[str]) -> Any:
        texts.extend(batch)
        return original(batch)

    monkeypatch.setattr(embedder, "embed_passages", counting)
    return texts
