"""Fixtures for the server tests: a small document folder and an environment pointing at it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

DOCS = {
    "alpha.md": "# Alpha protocol\n\nThe alpha protocol uses port 4242 for connection timeouts.\n\n"
    "## Retry\n\nRetries back off exponentially after error E-1234.\n",
    "garden/tomatoes.md": "# Growing tomatoes\n\nTomatoes need full sun and regular watering.\n",
    "notes.txt": "Meeting notes: the budget review moved to Thursday.\n",
}

ENV_VARS = (
    "BASE_DIR",
    "BASE_DIRS",
    "DB_PATH",
    "CACHE_DIR",
    "MODEL_NAME",
    "RAG_INSTRUCTIONS_APPEND",
)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for name, text in DOCS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def optimized_models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the session's optimised model copies (minirag_index.embedding.optimized_model,
    90 MB for the test model): made once, not once a test."""
    return tmp_path_factory.mktemp("optimized")


@pytest.fixture
def env(
    docs: Path,
    model_dir: Path,
    optimized_models: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> dict:
    """BASE_DIR, MODEL_NAME and CACHE_DIR for a run against ``docs``; returns them. The
    CACHE_DIR is the test's own; its optimised model copies are the session's."""
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "optimized").symlink_to(optimized_models, target_is_directory=True)
    values = {
        "BASE_DIR": str(docs),
        "MODEL_NAME": str(model_dir),
        "CACHE_DIR": str(cache),
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values
