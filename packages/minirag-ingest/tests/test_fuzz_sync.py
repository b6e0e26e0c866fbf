"""The generated fuzz set (testsupport/hostile.py) through a sync with conversion workers.

Every good file is indexed and findable, every bad file is a per-file error or indexed text,
nothing outside the root gets in, and no stored chunk is over the token budget except a code
block within its bound.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from minirag_ingest.chunking import CODE_BUDGET_FACTOR
from minirag_ingest.conversion.pool import ConversionPool, PoolLimits
from minirag_ingest.files.names import to_id
from minirag_ingest.settings import DEFAULT_CONVERT_MAX_MEMORY, DEFAULT_CONVERT_TIMEOUT
from minirag_ingest.sync.run import sync
from testsupport.hostile import Case, build_fuzz_set

# Small enough to embed on a test machine; bench/hostile.py runs the sizes.
SCALE = 0.0005


@pytest.fixture
def fuzz(docs: Path) -> list[Case]:
    return build_fuzz_set(docs, scale=SCALE)


def outcome(case: Case, docs: Path, sources: set[str], failed: set[str]) -> str:
    source = to_id(case.path(docs))
    return "indexed" if source in sources else "refused" if source in failed else "absent"


def check_outcomes(cases: list[Case], docs: Path, sources: set[str], failed: set[str]) -> None:
    wrong = []
    for case in cases:
        got = outcome(case, docs, sources, failed)
        allowed = {
            "indexed": {"indexed"},
            "refused": {"refused"},
            "either": {"indexed", "refused"},
            "skipped": {"absent"},
        }[case.expect]
        if got not in allowed:
            wrong.append(f"{case.name!r} ({case.why}): {got}, expected {case.expect}")
    assert not wrong, "\n".join(wrong)


def test_the_fuzz_set_through_a_sync(make_pipeline, docs: Path, fuzz: list[Case]) -> None:
    limits = PoolLimits(max_memory=DEFAULT_CONVERT_MAX_MEMORY, timeout=DEFAULT_CONVERT_TIMEOUT)
    pool = ConversionPool(limits)
    pipeline = make_pipeline(docs)
    pipeline.pool = pool
    try:
        report = sync(pipeline)
        again = sync(pipeline)
    finally:
        pool.stop()

    failed = {error["path"] for error in report.errors}
    sources = set(pipeline.index.sources())
    check_outcomes(fuzz, docs, sources, failed)
    known = {to_id(case.path(docs)) for case in fuzz}
    assert failed <= known, f"errors for files outside the set: {failed - known}"
    assert report.failed == len(failed), "one error per failed file"
    for error in report.errors:
        assert error["reason"].strip() and "Traceback" not in error["reason"]
    # No converter hangs on any of them: a file is refused for what it is, not by the clock.
    timed_out = [e["path"] for e in report.errors if "took longer than" in e["reason"]]
    assert not timed_out, timed_out

    index = pipeline.index
    for case in fuzz:
        if case.expect == "indexed":
            text = index.read_document(to_id(case.path(docs))) or ""
            assert case.find in text, f"{case.name!r}: {case.find!r} not in its text"

    count = index.embedder.token_counter()
    budget = pipeline.settings.chunk_token_budget
    over = []
    for chunk in index.store.chunks("true"):
        tokens = count(chunk.text)
        fenced = "```" in chunk.text and tokens <= CODE_BUDGET_FACTOR * budget
        if tokens > budget and not fenced:
            over.append(f"{chunk.source} #{chunk.chunk_index}: {tokens} tokens")
        assert "\x00" not in chunk.text, chunk.source
        for case in fuzz:
            assert case.forbid is None or case.forbid not in chunk.text, chunk.source
    assert not over, "\n".join(over[:10])

    # Nothing changed on disk: the good files are skipped, the bad ones fail again.
    assert again.ingested == 0 and again.failed == report.failed
    assert again.skipped == len(sources)
