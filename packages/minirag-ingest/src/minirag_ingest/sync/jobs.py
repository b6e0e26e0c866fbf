"""Background syncs for the MCP server: ``sync_start`` returns a job id, ``sync_status`` polls it.

:meth:`JobManager.start` takes the sync lock in the caller's thread, so a second sync is refused
at once with :class:`~minirag_ingest.sync.lock.SyncLocked` (naming the holder's PID and how long it
has been running) instead of returning a job id that fails a moment later. The lock is handed to
the worker thread and released when the sync ends, however it ends.

A job is ``running``, then ``succeeded`` or ``failed``. It fails when the sync itself raised (a
scope outside the roots or excluded by a rule, an index built with another model…; ``error``
says why), when the embedding model could not be loaded (``error`` names it, and every file it
left unread counts as failed) or when any item failed (a file that could not be read, a folder
that could not be listed), matching the CLI's exit status; the counts and ``errors`` say what
happened either way. A job asked to stop with :meth:`JobManager.cancel` ends ``interrupted``
after the commit in flight. Counts, errors and ``{done, total}`` progress (in files) can be read
while the job runs; while one long document is embedded, progress also carries
``chunksEmbedded`` and ``chunksToEmbed``.

Jobs live as long as the process; the most recent :data:`KEEP_FINISHED` finished jobs are kept.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from minirag_ingest.errors import IngestError
from minirag_ingest.sync.lock import IndexLock, sync_lock_for
from minirag_ingest.sync.run import SyncReport, sync

if TYPE_CHECKING:
    from minirag_ingest.conversion.pictures import PictureCounts
    from minirag_ingest.document.pipeline import Pipeline

log = logging.getLogger(__name__)

KEEP_FINISHED = 50
JobState = Literal["running", "succeeded", "failed", "interrupted"]
ProgressListener = Callable[[str, int, int], None]  # (job id, done, total)


class UnknownJob(IngestError, KeyError):
    """No job with that id is known to this process."""

    def __init__(self, job_id: str) -> None:
        super().__init__(job_id)
        self.job_id = job_id

    def __str__(self) -> str:
        return (
            f"no sync job {self.job_id!r} is known (jobs last as long as the server process); "
            "start one with sync_start"
        )


@dataclass(frozen=True)
class JobStatus:
    """A snapshot of one job."""

    job_id: str
    state: JobState
    scope: str | None
    counts: dict[str, int]
    errors: list[dict[str, str]]
    progress: dict[str, int]  # {"done": …, "total": …}, plus chunksEmbedded/chunksToEmbed
    started_at: float  # time.time() seconds
    finished_at: float | None = None
    error: str | None = None  # why the sync itself stopped, when it raised
    unreadable_files: tuple[str, ...] = ()  # indexed files kept unread (images without OCR)
    pictures: PictureCounts | None = None  # embedded pictures read with OCR, when any

    @property
    def finished(self) -> bool:
        return self.state != "running"


def _final_state(job: _Job) -> JobState:
    if job.error is not None or job.report.error is not None:
        return "failed"
    if job.report.interrupted:
        return "interrupted"
    return "succeeded" if job.report.ok else "failed"


class _Job:
    def __init__(self, job_id: str, scope: str | None) -> None:
        self.job_id = job_id
        self.scope = scope
        self.report = SyncReport()
        self.state: JobState = "running"
        self.done = 0
        self.total = 0
        self.started_at = time.time()
        self.finished_at: float | None = None
        self.error: str | None = None
        self.ended = threading.Event()
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def snapshot(self) -> JobStatus:
        errors = [dict(e) for e in list(self.report.errors)]
        if self.error is not None:
            errors.append({"path": self.scope or "", "reason": self.error})
        error = self.error if self.error is not None else self.report.error
        progress = {"done": self.done, "total": self.total}
        embedding = self.report.embedding
        if embedding is not None and self.state == "running":
            progress.update(chunksEmbedded=embedding[0], chunksToEmbed=embedding[1])
        return JobStatus(
            job_id=self.job_id,
            state=self.state,
            scope=self.scope,
            counts=self.report.counts(),
            errors=errors,
            progress=progress,
            started_at=self.started_at,
            finished_at=self.finished_at,
            error=error,
            unreadable_files=tuple(self.report.unreadable_files),
            pictures=self.report.pictures if self.report.pictures.held else None,
        )


class JobManager:
    """Runs :func:`~minirag_ingest.sync.run.sync` over ``pipeline`` in background threads.

    ``on_progress(job_id, done, total)`` is called from the worker thread whenever a job's
    progress moves (a server turns it into MCP progress notifications); ``start`` can add a
    listener for one job.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        *,
        keep: int = KEEP_FINISHED,
        on_progress: ProgressListener | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.keep = keep
        self.on_progress = on_progress
        self._jobs: dict[str, _Job] = {}  # insertion order = start order
        self._guard = threading.Lock()

    def start(
        self,
        scope: str | os.PathLike[str] | None = None,
        *,
        on_progress: ProgressListener | None = None,
    ) -> str:
        """Start a sync and return its job id at once.

        Raises :class:`~minirag_ingest.sync.lock.SyncLocked` straight away when another sync (in
        this process or another) holds the lock. Problems found once the sync runs - a scope
        outside the roots, an unreadable file - end up in the job's status instead.
        """
        pipeline = self.pipeline
        lock = sync_lock_for(pipeline.index, pipeline.settings.sync_lease_seconds).acquire()
        try:
            job = _Job(uuid.uuid4().hex[:12], None if scope is None else str(scope))
            with self._guard:
                self._jobs[job.job_id] = job
                self._prune()
            listeners = [f for f in (self.on_progress, on_progress) if f is not None]
            thread = threading.Thread(
                target=self._run,
                args=(job, scope, lock, listeners),
                name=f"minirag-sync-{job.job_id}",
                daemon=True,
            )
            job.thread = thread
            thread.start()
        except BaseException:
            lock.release()
            raise
        return job.job_id

    def _run(
        self,
        job: _Job,
        scope: str | os.PathLike[str] | None,
        lock: IndexLock,
        listeners: list[ProgressListener],
    ) -> None:
        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total
            for listener in listeners:
                try:
                    listener(job.job_id, done, total)
                except Exception as exc:
                    log.warning("sync progress listener failed: %s", exc)

        try:
            sync(
                self.pipeline,
                None if scope is None else Path(scope),
                progress=progress,
                report=job.report,
                lock=lock,
                stop=job.stop,
            )
        except Exception as exc:
            job.error = str(exc) or type(exc).__name__
            log.warning("sync job %s failed: %s", job.job_id, job.error)
        finally:
            lock.release()
            job.finished_at = time.time()
            job.state = _final_state(job)
            job.ended.set()

    def cancel(self, job_id: str) -> None:
        """Ask a running job to stop after the commit in flight; it ends ``interrupted``."""
        self._job(job_id).stop.set()

    def cancel_all(self, timeout: float | None = None) -> None:
        """Stop every running job and wait (up to ``timeout`` each) for it to end."""
        with self._guard:
            running = [job for job in self._jobs.values() if job.state == "running"]
        for job in running:
            job.stop.set()
        for job in running:
            if job.ended.wait(timeout) and job.thread is not None:
                job.thread.join(timeout)

    def _prune(self) -> None:
        finished = [j for j in self._jobs.values() if j.state != "running"]
        for job in finished[: max(0, len(finished) - self.keep)]:
            del self._jobs[job.job_id]

    def _job(self, job_id: str) -> _Job:
        with self._guard:
            job = self._jobs.get(job_id)
        if job is None:
            raise UnknownJob(job_id)
        return job

    def status(self, job_id: str) -> JobStatus:
        """The job's state, counts, errors and progress; :class:`UnknownJob` (a KeyError)
        for an id this process does not know."""
        return self._job(job_id).snapshot()

    def get(self, job_id: str) -> JobStatus | None:
        """Like :meth:`status`, but None for an unknown id."""
        try:
            return self.status(job_id)
        except UnknownJob:
            return None

    def wait(self, job_id: str, timeout: float | None = None) -> JobStatus:
        """Block until the job ends (or ``timeout`` passes) and return its status. A job that
        ended has its thread joined too, so nothing of it is left running."""
        job = self._job(job_id)
        if job.ended.wait(timeout) and job.thread is not None:
            job.thread.join(timeout)
        return job.snapshot()

    def jobs(self) -> list[JobStatus]:
        """Every known job, most recent first."""
        with self._guard:
            current = list(self._jobs.values())
        return [job.snapshot() for job in reversed(current)]

    def running(self) -> JobStatus | None:
        """The job of this process that is running now, if any."""
        return next((job for job in self.jobs() if job.state == "running"), None)
