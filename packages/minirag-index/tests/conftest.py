from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex


@pytest.fixture(scope="session")
def embedder(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """One loaded test model shared by every index in the session."""
    return Embedder(str(model_dir), tmp_path_factory.mktemp("cache"))


@pytest.fixture
def make_index(tmp_path: Path, embedder: Embedder) -> Callable[..., MiniragIndex]:
    def make(**settings: object) -> MiniragIndex:
        settings.setdefault("DB_PATH", tmp_path / "db")
        values = {"MODEL_NAME": embedder.model_name, "CACHE_DIR": embedder.cache_dir, **settings}
        return MiniragIndex(IndexSettings(**values), embedder=embedder)

    return make
