"""A first sync makes the model's optimised copy before its conversion workers start: the copy
is made in a child process, and its memory peak would otherwise come on top of theirs (the
first sync after an install peaked above mcp-local-rag's until it did, bench/peer_query.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex
from minirag_ingest.conversion.pool import ConversionPool, PoolLimits
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.files.roots import Roots
from minirag_ingest.settings import (
    DEFAULT_CONVERT_MAX_MEMORY,
    DEFAULT_CONVERT_TIMEOUT,
    load_settings,
)
from minirag_ingest.sync.run import sync


def test_the_model_copy_is_made_before_the_conversion_workers_start(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"  # a first run: no copy yet
    settings = IndexSettings(DB_PATH=tmp_path / "db", MODEL_NAME=str(model_dir), CACHE_DIR=cache)
    embedder = Embedder(str(model_dir), cache)
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        # HTML: a plain text file is decoded without a worker
        page = f"<html><body><h1>Note {n}</h1><p>A few words about topic {n}.</p></body></html>"
        (docs / f"note-{n}.html").write_text(page)
    limits = PoolLimits(max_memory=DEFAULT_CONVERT_MAX_MEMORY, timeout=DEFAULT_CONVERT_TIMEOUT)
    pool = ConversionPool(limits)
    pipeline = Pipeline(
        MiniragIndex(settings, embedder=embedder), Roots([docs]), load_settings(), pool=pool
    )
    at_first_submit: list[list[Path]] = []
    submit = pool.submit

    def watched(request: Any) -> Any:
        if not at_first_submit:
            at_first_submit.append(sorted((cache / "optimized").glob("*/ready")))
        return submit(request)

    monkeypatch.setattr(pool, "submit", watched)
    try:
        report = sync(pipeline)
    finally:
        pool.stop()
    assert report.ingested == 3 and report.failed == 0
    assert len(at_first_submit) == 1 and len(at_first_submit[0]) == 1, at_first_submit
