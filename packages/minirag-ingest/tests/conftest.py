"""Fixtures for tests that ingest for real: a document root and a pipeline over it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.files.roots import Roots
from minirag_ingest.settings import load_settings


@pytest.fixture(scope="session")
def embedder(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(str(model_dir), tmp_path_factory.mktemp("cache"))


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """An empty document root."""
    root = tmp_path / "docs"
    root.mkdir()
    return root


@pytest.fixture
def make_pipeline(tmp_path: Path, embedder: Embedder) -> Callable[..., Pipeline]:
    """Build a pipeline over the given roots (default: the ``docs`` root) with its own index."""

    def make(*roots: Path, db_path: Path | None = None, **ingest: object) -> Pipeline:
        settings = IndexSettings(
            DB_PATH=db_path or tmp_path / "db",
            MODEL_NAME=embedder.model_name,
            CACHE_DIR=embedder.cache_dir,
        )
        index = MiniragIndex(settings, embedder=embedder)
        paths = list(roots) or [tmp_path / "docs"]
        return Pipeline(index, Roots(paths), load_settings(**ingest))

    return make


@pytest.fixture
def pipeline(make_pipeline: Callable[..., Pipeline], docs: Path) -> Pipeline:
    return make_pipeline(docs)
