"""Background sync jobs: states, live progress, refusals and bookkeeping."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.sync.jobs import JobManager, UnknownJob
from minirag_ingest.sync.lock import SyncLocked


def write_notes(folder: Path, count: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"note-{i}.md").write_text(f"# Note {i}\n\nShelf {i} holds {i * 3} crates.\n")


@pytest.fixture
def paused_store(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch):
    """Make the pipeline's store() wait until the test lets it go."""
    entered, release = threading.Event(), threading.Event()
    original = pipeline.store

    def store(items, *more):
        entered.set()
        assert release.wait(30), "the test never released the sync"
        return original(items, *more)

    monkeypatch.setattr(pipeline, "store", store)
    return entered, release


def test_a_job_runs_in_the_background_with_live_progress(pipeline, docs, paused_store) -> None:
    write_notes(docs, 3)
    entered, release = paused_store
    seen: list[tuple[str, int, int]] = []
    jobs = JobManager(pipeline, on_progress=lambda *args: seen.append(args))
    job_id = jobs.start()
    try:
        assert entered.wait(30)
        running = jobs.status(job_id)
        assert running.state == "running" and not running.finished
        assert running.progress == {"done": 0, "total": 3}
        assert running.counts["scanned"] == 3 and running.counts["ingested"] == 0
        assert running.finished_at is None
        assert jobs.running() == running
        assert running.job_id == job_id and running.started_at > 0
    finally:
        release.set()
    done = jobs.wait(job_id, timeout=60)
    assert done.state == "succeeded"
    assert done.counts["ingested"] == 3 and done.errors == [] and done.error is None
    assert done.progress == {"done": 3, "total": 3}
    assert done.finished_at is not None and done.finished_at >= done.started_at
    assert seen[-1] == (job_id, 3, 3)
    assert jobs.running() is None


def test_a_second_start_is_refused_at_once_while_one_runs(pipeline, docs, paused_store) -> None:
    write_notes(docs, 1)
    entered, release = paused_store
    jobs = JobManager(pipeline)
    first = jobs.start()
    try:
        assert entered.wait(30)
        with pytest.raises(SyncLocked, match=rf"another sync \(PID {os.getpid()}\)"):
            jobs.start()
        assert [j.job_id for j in jobs.jobs()] == [first]
    finally:
        release.set()
    assert jobs.wait(first, timeout=60).state == "succeeded"
    second = jobs.start()  # the lock was released with the first job
    assert jobs.wait(second, timeout=60).state == "succeeded"


def test_a_sync_that_raises_fails_the_job_with_its_message(pipeline, docs, tmp_path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    jobs = JobManager(pipeline)
    job = jobs.wait(jobs.start(outside), timeout=60)
    assert job.state == "failed"
    assert job.error is not None and "outside configured document roots" in job.error
    assert job.errors[-1]["reason"] == job.error
    assert jobs.wait(jobs.start(), timeout=60).state != "running"  # the lock was released


def test_a_failed_file_fails_the_job_but_the_rest_is_stored(pipeline, docs) -> None:
    write_notes(docs, 2)
    (docs / "broken.docx").write_bytes(b"not a docx at all")
    jobs = JobManager(pipeline)
    job = jobs.wait(jobs.start(), timeout=60)
    assert job.state == "failed" and job.error is None
    assert job.counts["ingested"] == 2 and job.counts["failed"] == 1
    assert job.errors[0]["path"] == str(docs / "broken.docx")


def test_unknown_job_id_is_a_clear_key_error(pipeline) -> None:
    jobs = JobManager(pipeline)
    with pytest.raises(KeyError) as caught:
        jobs.status("nope")
    assert isinstance(caught.value, UnknownJob)
    assert "no sync job 'nope' is known" in str(caught.value)
    assert jobs.get("nope") is None


def test_only_the_most_recent_finished_jobs_are_kept(pipeline, docs) -> None:
    write_notes(docs, 1)
    jobs = JobManager(pipeline, keep=2)
    ids = []
    for _ in range(4):
        ids.append(jobs.start())
        jobs.wait(ids[-1], timeout=60)
    known = [j.job_id for j in jobs.jobs()]
    assert known[:2] == [ids[3], ids[2]]
    assert len(known) <= 3  # the newest start prunes all but `keep` finished ones
    with pytest.raises(UnknownJob):
        jobs.status(ids[0])
