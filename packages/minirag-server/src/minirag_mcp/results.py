"""What every tool returns, one pydantic model per result, and what ``--json`` prints.

Fields are snake_case in Python and camelCase on the wire (``chunk_index`` is ``chunkIndex``):
the models serialize by alias, so fastmcp publishes each tool's output schema with named
properties and sends its structured content in those names, and a CLI command's ``--json`` is
:meth:`Result.dump` of the same model.

A field declared with :func:`omitted` is left out of the payload while it is None (a tool says
``scope`` only when one was given); a field typed ``X | None`` without it is always there and
may be null (a hit's ``distance`` when only the keyword side found it). A row with
:class:`LabelledRow` carries ``labels``, ``date`` and ``dateSource`` together, and only while
the corpus has document labels.

Imported by the server and by every CLI command, so it imports nothing but pydantic and
:mod:`minirag_ingest.files.names` (standard library only).
"""

# Longer than 450 lines: every payload the tools send and --json prints is declared here, in
# one place, so a reader sees the whole wire format at once; it holds declarations only.

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer
from pydantic.alias_generators import to_camel

from minirag_ingest.files.names import json_safe

if TYPE_CHECKING:
    from minirag_index import Hit, NeighborChunk
    from minirag_index.embedding import ModelSpec
    from minirag_index.search import Label
    from minirag_index.search.mentions import FirstMatch
    from minirag_ingest.document.pipeline import IngestResult
    from minirag_ingest.labels.try_file import TriedFacet as TriedFacetFound
    from minirag_ingest.labels.try_file import TriedFile
    from minirag_ingest.sync.jobs import JobStatus
    from minirag_ingest.watch.watcher import WatchStatus


def _is_none(value: Any) -> bool:
    return value is None


def omitted() -> Any:
    """A field that is absent from the payload while it is None."""
    return Field(default=None, exclude_if=_is_none)


class Result(BaseModel):
    """Base of every result: camelCase on the wire, snake_case in Python."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        serialize_by_alias=True,
        validate_by_name=True,
        extra="forbid",
    )

    # Keys shown only while an attribute is set (not None, not False), even when their own
    # value is null: wire key -> attribute.
    _shown_with: ClassVar[Mapping[str, str]] = {}

    def dump(self) -> dict[str, Any]:
        """The payload as JSON-ready data: what the tool sends and what --json prints."""
        return self.model_dump(mode="json")

    # No return annotation on purpose: pydantic would publish an annotated return type as the
    # model's output schema, in place of its own named properties.
    @model_serializer(mode="wrap")
    def _hide_unset_groups(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        data = handler(self)
        if isinstance(data, dict):
            for key, attribute in self._shown_with.items():
                if getattr(self, attribute) in (None, False):
                    data.pop(key, None)
        # A file name that is not valid UTF-8 (and text derived from it) is spelled out, so
        # that the payload always serialises (see minirag_ingest.files.names).
        return json_safe(data)


class LabelledRow(Result):
    """A row that carries ``labels``, ``date`` and ``dateSource`` while labels are on.

    ``labels`` None means the corpus has no taxonomy file: the three keys are left out. With
    labels on, ``date`` and ``dateSource`` are there even when null (an undated document)."""

    _shown_with: ClassVar[Mapping[str, str]] = {
        "labels": "labels",
        "date": "labels",
        "dateSource": "labels",
    }


# -- syncing and ingesting -------------------------------------------------------------------

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
            started_at=_iso(job.started_at),
            scope=job.scope,
            finished_at=None if job.finished_at is None else _iso(job.finished_at),
            error=job.error,
            unreadable_files=list(job.unreadable_files) or None,
            pictures=None if job.pictures is None else PicturesOut(**vars(job.pictures)),
        )


def _iso(timestamp: float) -> str:
    """A time.time() timestamp as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


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


# -- labels ----------------------------------------------------------------------------------


class LabelOut(Result):
    """One facet's label on a document."""

    value: str
    confidence: float
    source: str
    runner_up: str | None = omitted()
    uncertain: bool

    @classmethod
    def of(cls, label: Label) -> LabelOut:
        return cls(
            value=label.value,
            confidence=round(float(label.confidence), 4),
            source=label.source,
            runner_up=label.runner_up,
            uncertain=label.uncertain,
        )


class FilterCounts(Result):
    """Documents in scope left out only for lacking a filtered label, or a date."""

    unlabelled: int
    undated: int


# -- searching -------------------------------------------------------------------------------


class LookAlikeOut(Result):
    source: str
    display_path: str
    overlap: float
    date: str | None = omitted()


class HitOut(Result):
    text: str
    source: str
    title: str
    chunk_index: int
    score: float
    distance: float | None
    parent_id: str
    pages: str | None = omitted()

    @classmethod
    def of(cls, hit: Hit) -> HitOut:
        return cls(
            text=hit.text,
            source=hit.source,
            title=hit.title,
            chunk_index=hit.chunk_index,
            score=hit.score,
            distance=hit.distance,
            parent_id=hit.parent_id,
            pages=hit.pages or None,
        )


class SourceOut(LabelledRow):
    source: str
    title: str
    hits: int
    display_path: str
    labels: dict[str, LabelOut] | None = None
    date: str | None = None
    date_source: str | None = None
    look_alikes: list[LookAlikeOut] | None = omitted()


class QueryResult(Result):
    """query_documents."""

    hits: list[HitOut]
    sources: list[SourceOut]
    parents: dict[str, str]
    filter_counts: FilterCounts | None = omitted()
    filter_notice: str | None = omitted()
    notice: str | None = omitted()
    warning: str | None = omitted()


class FirstMatchOut(Result):
    chunk_index: int
    snippet: str
    pages: str | None = omitted()

    @classmethod
    def of(cls, first: FirstMatch) -> FirstMatchOut:
        return cls(chunk_index=first.chunk_index, snippet=first.snippet, pages=first.pages or None)


class FormOut(Result):
    form: str
    documents: int


class MentionDocumentOut(LabelledRow):
    source: str
    display_path: str
    title: str
    matching_chunks: int
    title_match: bool
    first_match: FirstMatchOut | None = omitted()
    labels: dict[str, LabelOut] | None = None
    date: str | None = None
    date_source: str | None = None
    look_alikes: list[LookAlikeOut] | None = omitted()


class MentionsResult(Result):
    """find_mentions."""

    terms: list[str]
    match: Literal["all", "any"]
    searched_documents: int
    matched_documents: int
    matched_chunks: int
    forms: list[FormOut]
    documents: list[MentionDocumentOut]
    offset: int
    next_offset: int | None = omitted()
    notice: str | None = omitted()
    filter_counts: FilterCounts | None = omitted()
    filter_notice: str | None = omitted()


# -- reading ---------------------------------------------------------------------------------


class NeighborOut(Result):
    chunk_index: int
    text: str
    parent_id: str
    pages: str | None = omitted()
    is_target: Literal[True] | None = omitted()

    @classmethod
    def of(cls, chunk: NeighborChunk) -> NeighborOut:
        return cls(
            chunk_index=chunk.chunk_index,
            text=chunk.text,
            parent_id=chunk.parent_id,
            pages=chunk.pages or None,
            is_target=True if chunk.is_target else None,
        )


class NeighborsResult(Result):
    """read_chunk_neighbors."""

    source: str
    display_path: str
    chunks: list[NeighborOut]


class DocumentText(Result):
    """read_file: one page of the document (``nextOffset`` while more remains)."""

    source: str
    title: str
    text: str
    offset: int = 0
    next_offset: int | None = omitted()
    total_chars: int


class Deleted(Result):
    """delete_file."""

    source: str
    deleted: int


# -- listing ---------------------------------------------------------------------------------

FileState = Literal[
    "indexed", "not_indexed", "stale", "stale_pages", "unreadable", "missing", "unlisted"
]


class FileRow(LabelledRow):
    """A file under the roots (``path``), or an indexed data or URL item (``source``)."""

    path: str | None = omitted()
    source: str | None = omitted()
    display_path: str
    state: FileState
    chunks: int
    title: str | None = omitted()
    ocr_engine: str | None = omitted()
    source_type: str | None = omitted()
    labels: dict[str, LabelOut] | None = None
    date: str | None = None
    date_source: str | None = None


class UnlistedOut(Result):
    path: str
    reason: str


class ListResult(Result):
    """list_files."""

    files: list[FileRow]
    filter_counts: FilterCounts | None = omitted()
    filter_notice: str | None = omitted()
    ignored: int | None = omitted()
    unlisted_folders: list[UnlistedOut] | None = omitted()


# -- status ----------------------------------------------------------------------------------


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
            since=_iso(watch.since),
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


# -- classify try ----------------------------------------------------------------------------


class TriedFacet(Result):
    """One facet of ``classify try``: its label, or why it is not set."""

    value: str | None
    confidence: float | None = omitted()
    source: str | None = omitted()
    runner_up: str | None = omitted()
    uncertain: bool | None = omitted()
    not_set: str | None = omitted()
    distribution: dict[str, float] | None = omitted()
    problem: str | None = omitted()

    @classmethod
    def of(cls, tried: TriedFacetFound) -> TriedFacet:
        label = tried.label
        if label is None:
            return cls(
                value=None,
                not_set=tried.not_set,
                distribution=tried.distribution,
                problem=tried.problem,
            )
        public = LabelOut.of(label)
        return cls(
            value=public.value,
            confidence=public.confidence,
            source=public.source,
            runner_up=public.runner_up,
            uncertain=public.uncertain,
            distribution=tried.distribution,
            problem=tried.problem,
        )


class ClassifyTry(Result):
    """The CLI's ``classify try``: a file's labels and date as an ingest would store them."""

    file: str
    path: str | None
    facets: dict[str, TriedFacet]
    date: str | None
    date_source: str | None
    problems: list[str]

    @classmethod
    def of(cls, tried: TriedFile) -> ClassifyTry:
        return cls(
            file=tried.file,
            path=tried.path,
            facets={facet.facet: TriedFacet.of(facet) for facet in tried.facets},
            date=tried.date,
            date_source=tried.date_source,
            problems=list(tried.problems),
        )
