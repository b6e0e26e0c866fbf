"""What status returns: the configuration, the index's health, labels, OCR and watch mode."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from minirag_mcp.results.base import Result, iso_time, omitted
from minirag_mcp.results.jobs import SyncJob

if TYPE_CHECKING:
    from minirag_index.embedding import ModelSpec
    from minirag_ingest.watch.watcher import WatchStatus


class IgnoreFileOut(Result):
    path: str
    rules: int


class ValueCount(Result):
    id: str
    description: str
    count: int


class FacetStatus(Result):
    question: str
    values: list[ValueCount]
    unlabelled: int
    uncertain: int
    within: list[str] | None = omitted()


class LabelsStatus(Result):
    """status's labels block: the facets with their counts, or why they cannot be shown."""

    error: str | None = omitted()
    facets: dict[str, FacetStatus] | None = omitted()
    undated: int | None = omitted()
    model: str | None = omitted()
    model_hint: str | None = omitted()


class IndexModelOut(Result):
    """The embedding model an index's vectors were made with."""

    id: str
    dim: int
    query_prefix: str
    passage_prefix: str
    model_name: str

    @classmethod
    def of(cls, model: ModelSpec) -> IndexModelOut:
        return cls(
            id=model.id,
            dim=model.dim,
            query_prefix=model.query_prefix,
            passage_prefix=model.passage_prefix,
            model_name=model.name or model.id,
        )


class WatchOut(Result):
    """status's ``watch``: off, or what the watcher watches and how far it has got."""

    state: Literal["off", "watching", "polling"]
    since: str | None = omitted()
    roots: list[str] | None = omitted()
    pending: int | None = omitted()  # changed paths waiting for the quiet period
    syncs: int | None = omitted()  # syncs the watcher started
    running: str | None = omitted()  # the jobId of its sync in progress
    last_sync: SyncJob | None = omitted()  # the last one that ended
    reason: str | None = omitted()  # why it polls
    waiting: str | None = omitted()  # why the pending changes wait (another sync runs)

    @classmethod
    def of(cls, watch: WatchStatus | None) -> WatchOut:
        if watch is None:
            return cls(state="off")
        return cls(
            state=watch.state,
            since=iso_time(watch.since),
            roots=list(watch.roots),
            pending=watch.pending,
            syncs=watch.syncs,
            running=watch.running,
            last_sync=None if watch.last_sync is None else SyncJob.of(watch.last_sync),
            reason=watch.reason,
            waiting=watch.waiting,
        )


class StatusResult(Result):
    """status. With a broken configuration only ``version`` and ``configError``."""

    _shown_with: ClassVar[Mapping[str, str]] = {"indexModel": "index_model_checked"}

    version: str
    config_error: str | None = omitted()
    roots: list[str] | None = omitted()
    db_path: str | None = omitted()
    # Where the index lives: "local" (a folder) or an object store ("s3", "gs", "az").
    store: str | None = omitted()
    cache_dir: str | None = omitted()
    model_name: str | None = omitted()
    model: str | None = omitted()
    model_error: str | None = omitted()
    read_only: bool | None = omitted()  # READ_ONLY=1 / --read-only: nothing is ever written
    # The index's table version the answers come from (it grows with every commit): a reader
    # sees the writer's commits within READ_CONSISTENCY_SECONDS.
    index_version: int | None = omitted()
    # The model the index records (null: nothing indexed yet, or written before the record).
    index_model: IndexModelOut | None = None
    index_model_checked: bool = Field(default=False, exclude=True)
    index_model_note: str | None = omitted()
    model_mismatch: str | None = omitted()
    ignore_files: list[IgnoreFileOut] | None = omitted()
    documents: int | None = omitted()
    chunks: int | None = omitted()
    stale_chunk_count: int | None = omitted()
    scheme_warning: str | None = omitted()
    unsigned_source_count: int | None = omitted()
    unpaged_source_count: int | None = omitted()
    labels: LabelsStatus | None = omitted()
    ocr: str | None = omitted()
    # The recognition model of RAG_OCR_LANG: "bundled", "cached" or "downloads on first use".
    ocr_model: str | None = omitted()
    ocr_hint: str | None = omitted()
    pictures: str | None = omitted()  # whether text in embedded pictures is read, and by what
    watch: WatchOut | None = omitted()
    # The store holding the index could not be reached (documents and chunks are then absent).
    store_error: str | None = omitted()
    errors: list[str] | None = omitted()
