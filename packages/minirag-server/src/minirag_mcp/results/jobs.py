"""What sync_start, sync_status and the ingest tools return (and the CLI's ``ingest <folder>``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from minirag_mcp.results.base import Result, iso_time, omitted

if TYPE_CHECKING:
    from minirag_ingest.document.pipeline import IngestResult
    from minirag_ingest.sync.jobs import JobStatus


JobState = Literal["running", "succeeded", "failed", "interrupted"]


class SyncStarted(Result):
    job_id: str


class SyncCounts(Result):
    scanned: int
    ingested: int
    skipped: int
    moved: int
    deleted: int
    relabelled: int
    signed: int
    ignored: int
    unreadable: int
    failed: int


class ItemError(Result):
    """A file, folder or model that failed, and why."""

    path: str
    reason: str


class Progress(Result):
    """Files done of the files to do; while one long document is embedded, its chunks too."""

    done: int
    total: int
    chunks_embedded: int | None = omitted()
    chunks_to_embed: int | None = omitted()


class PicturesOut(Result):
    """Pictures embedded in the documents a sync read with OCR: how many, how many were
    recognised, how many were not (too small to hold text, a repeat, past the budget)."""

    held: int
    read: int
    skipped: int


class SyncJob(Result):
    """sync_status, and the CLI's sync."""

    job_id: str
    state: JobState
    counts: SyncCounts
    errors: list[ItemError]
    progress: Progress
    started_at: str
    scope: str | None = omitted()
    finished_at: str | None = omitted()
    error: str | None = omitted()
    unreadable_files: list[str] | None = omitted()
    pictures: PicturesOut | None = omitted()

    @classmethod
    def of(cls, job: JobStatus) -> SyncJob:
        return cls(
            job_id=job.job_id,
            state=job.state,
            counts=SyncCounts.model_validate(job.counts),
            errors=[ItemError.model_validate(error) for error in job.errors],
            progress=Progress.model_validate(job.progress),
            started_at=iso_time(job.started_at),
            scope=job.scope,
            finished_at=None if job.finished_at is None else iso_time(job.finished_at),
            error=job.error,
            unreadable_files=list(job.unreadable_files) or None,
            pictures=None if job.pictures is None else PicturesOut(**vars(job.pictures)),
        )


class Ingested(Result):
    """ingest_file, ingest_data and ingest_url."""

    source: str
    title: str
    chunks: int
    label_problem: str | None = omitted()

    @classmethod
    def of(cls, result: IngestResult) -> Ingested:
        return cls(
            source=result.source,
            title=result.title,
            chunks=result.chunks,
            label_problem=result.label_problem or None,
        )


class FolderCounts(Result):
    scanned: int
    ingested: int
    ignored: int
    failed: int


class FolderIngest(Result):
    """The CLI's ``ingest <folder>`` (no tool: a client syncs instead)."""

    state: JobState
    counts: FolderCounts
    files: list[Ingested]
    errors: list[ItemError]
    ignored: int
