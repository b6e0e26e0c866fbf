"""One function per tool, shared by the MCP server and the CLI so the two cannot drift.

Each takes an :class:`~minirag_mcp.context.AppContext` and the tool's arguments, and returns
the tool's result model (:mod:`minirag_mcp.results`). A failure is an exception whose message is
meant for the user; the server turns it into a tool error, the CLI into ``error:`` and exit 1.

Paths handed to these functions must be absolute: the MCP tools pass on what the client sent
(and a relative path is refused), the CLI resolves its arguments against the current directory
first.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from minirag_index import DEFAULT_NEIGHBORS, DEFAULT_TOP_K
from minirag_ingest.corpus import installed_ocr, scanned_extensions
from minirag_ingest.labels import filtering
from minirag_ingest.labels.filtering import LabelView
from minirag_mcp.config import ConfigProblem
from minirag_mcp.context import AppContext, place_problems
from minirag_mcp.results import (
    ClassifyTry,
    Deleted,
    DocumentText,
    FacetStatus,
    FileRow,
    FilterCounts,
    FirstMatchOut,
    FormOut,
    HitOut,
    IgnoreFileOut,
    IndexModelOut,
    Ingested,
    LabelOut,
    LabelsStatus,
    ListResult,
    LookAlikeOut,
    MentionDocumentOut,
    MentionsResult,
    NeighborOut,
    NeighborsResult,
    QueryResult,
    SourceOut,
    StatusResult,
    SyncJob,
    SyncStarted,
    UnlistedOut,
    ValueCount,
)

if TYPE_CHECKING:
    from minirag_ingest.corpus import ListedFile
    from minirag_ingest.pipeline import ContentFormat

_URL_LIKE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class OperationError(ValueError):
    """A request the tool refuses; the message says why and what to do."""


# -- helpers ---------------------------------------------------------------------------------


def require_absolute(path: str | None, argument: str = "filePath") -> str:
    """``path`` unchanged if it is absolute; a clear refusal otherwise."""
    if path is None or not str(path).strip():
        raise OperationError(f"{argument} is required")
    text = str(path).strip()
    expanded = os.path.expanduser(text)
    if not os.path.isabs(expanded):
        raise OperationError(
            f"{argument} must be an absolute path, got {text!r}. Tool paths are not resolved "
            "against any working directory; pass the full path inside a document root."
        )
    return os.path.normpath(expanded)


def _contained(ctx: AppContext, path: str) -> str:
    """Check ``path`` lies inside a root (raises PathOutsideRoots) and return it."""
    ctx.roots.contain(path)
    return path


def _lookup_source(ctx: AppContext, file_path: str | None, source: str | None) -> str:
    """The indexed source a request names: a file by absolute path, or any source id."""
    if file_path and source:
        raise OperationError(f"give either filePath or {ctx.wording.arg('source')}, not both")
    if source is not None and str(source).strip():
        return str(source).strip()
    path = _contained(ctx, require_absolute(file_path))
    known = ctx.index.sources(path)
    if path in known:
        return path
    real = str(Path(path).resolve())
    if real in ctx.index.sources(real):
        return real
    return path


def _not_indexed(source: str) -> OperationError:
    return OperationError(
        f"{source} is not in the index. Run sync_start (or ingest_file) first, or check the "
        "path with list_files."
    )


def _display(ctx: AppContext, source: str) -> str:
    return ctx.display_path(source)


def _look_alikes_for(ctx: AppContext, source: str) -> list[LookAlikeOut] | None:
    """Other indexed documents sharing most of this one's text, from the whole index."""
    rows = [
        LookAlikeOut(
            source=other.source,
            display_path=_display(ctx, other.source),
            overlap=round(other.overlap, 2),
            date=other.date or None,
        )
        for other in ctx.index.look_alikes(source)
    ]
    return rows or None


# -- document labels -------------------------------------------------------------------------
#
# The feature is on only while <first root>/.minirag/classify.toml exists. Without it no key
# is added anywhere, and the label and date arguments (labels, dateFrom, dateTo, sort "date")
# are refused with a message saying how to turn it on: a date filter alone would drop undated
# documents silently, since filterCounts is a key of the feature too.


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str | dict | list) and not value)


def label_view(
    ctx: AppContext,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    sort: str | None = None,
) -> LabelView:
    """Check a request's label and date arguments against the corpus's taxonomy."""
    words = ctx.wording
    if not _blank(sort) and sort != "date":
        raise OperationError(
            f'{words.arg("sort")} must be "date" (newest first, undated last), got {sort!r}'
        )
    wants_filter = not (_blank(labels) and _blank(date_from) and _blank(date_to))
    loader = ctx.taxonomy
    if not loader.present:
        if wants_filter or not _blank(sort):
            raise OperationError(
                f"{words.arg('labels')}, dateFrom, dateTo and {words.arg('sort')} date are part "
                f"of document labels, which are off for this corpus: there is no {loader.path}. "
                "Create it to turn them on."
            )
        return LabelView()
    try:
        return filtering.view_for(loader, labels, date_from, date_to, wants_filter=wants_filter)
    except ValueError as exc:
        raise OperationError(str(exc)) from None


def apply_label_filter(ctx: AppContext, view: LabelView, indexed: dict[str, Any]) -> None:
    """Filter ``indexed`` (the sources in scope): fills matched, counts and notice."""
    if view.filtering:
        filtering.apply(view, indexed, ctx.require_config().index.CACHE_DIR)


def label_fields(info: Any) -> dict[str, Any]:
    """A row's labels, date and dateSource (only added while the feature is on)."""
    from minirag_index.filters import decode_labels

    stored = decode_labels(info.labels)
    labels = sorted(stored.labels.items()) if stored is not None else []
    return {
        "labels": {name: LabelOut.of(label) for name, label in labels},
        "date": info.doc_date,
        "date_source": info.date_source,
    }


def _filter_fields(view: LabelView) -> dict[str, Any]:
    """filterCounts and filterNotice of a filtered request (nothing without a filter)."""
    counts = None if view.counts is None else FilterCounts.model_validate(view.counts)
    return {"filter_counts": counts, "filter_notice": view.notice or None}


def _labels_status(ctx: AppContext, infos: dict[str, Any]) -> LabelsStatus | None:
    """status's labels block, or None when the corpus has no taxonomy file."""
    loader = ctx.taxonomy
    if not loader.present:
        return None
    if loader.error:
        return LabelsStatus(error=loader.error)
    counted = filtering.label_counts(
        loader.require(), infos.values(), ctx.require_config().index.CACHE_DIR
    )
    facets = {
        facet.name: FacetStatus(
            question=facet.question,
            values=[
                ValueCount(id=v.id, description=v.description, count=v.count) for v in facet.values
            ],
            unlabelled=facet.unlabelled,
            uncertain=facet.uncertain,
            within=list(facet.within) or None,
        )
        for facet in counted.facets
    }
    return LabelsStatus(
        facets=facets,
        undated=counted.undated,
        model=counted.model,
        model_hint=counted.model_hint or None,
    )


# -- status ----------------------------------------------------------------------------------


def ocr_engine() -> str | None:
    """The OCR plug-in this install offers (no engine built), or None."""
    return installed_ocr()


def scan_extensions() -> frozenset[str]:
    """Extensions the scan adds to the base whitelist: images, when OCR is installed."""
    return scanned_extensions()


UNRECORDED_MODEL_NOTE = (
    "This index was written before indexes recorded their embedding model. The next sync or "
    "ingest records the configured MODEL_NAME as the model its vectors were made with; if they "
    "were made with another one, set MODEL_NAME to that model first, or use a new DB_PATH."
)


def _index_model_status(ctx: AppContext) -> dict[str, Any]:
    """The model the index was embedded with, beside the configured one (``modelName``)."""
    index = ctx.index
    if index.store.vector_dim() is None:
        return {"index_model_checked": True}  # nothing indexed yet: indexModel is null
    recorded = index.recorded_model()
    return {
        "index_model_checked": True,
        "index_model": None if recorded is None else IndexModelOut.of(recorded),
        "index_model_note": UNRECORDED_MODEL_NOTE if recorded is None else None,
        "model_mismatch": index.model_problem() or None,
    }


def status(ctx: AppContext) -> StatusResult:
    """Configuration and index health. Answers even when the configuration is broken."""
    if isinstance(ctx.config, ConfigProblem):
        return StatusResult(version=ctx.config.version, config_error=ctx.config.error)
    config = ctx.config
    errors: list[str] = []
    built = ctx.index_if_built
    fields: dict[str, Any] = {
        "version": config.version,
        "roots": [str(root) for root in config.roots],
        "db_path": str(config.db_path),
        "cache_dir": str(config.index.CACHE_DIR),
        "model_name": config.index.MODEL_NAME,
        "model": "loaded" if built is not None and built.embedder.loaded else "not loaded",
        "model_error": built.embedder.load_error if built is not None else None,
    }
    try:
        fields.update(_index_model_status(ctx))
    except Exception as exc:  # reported, never raised: status must always answer
        errors.append(f"the index's embedding model could not be checked: {exc}")
    errors.extend(place_problems(config, every_missing_root=True))
    report = ctx.corpus.report()
    errors.extend(report.errors)
    stale = report.stale_chunk_count
    fields.update(
        ignore_files=[IgnoreFileOut(path=str(f.path), rules=f.rules) for f in report.ignore_files],
        documents=report.documents,
        chunks=report.chunks,
        stale_chunk_count=stale,
        unsigned_source_count=report.unsigned or None,
        unpaged_source_count=report.unpaged or None,
    )
    if stale:
        fields["scheme_warning"] = (
            f"{stale} chunks were cut by an older chunking scheme and rank poorly; "
            "run sync_start (or minirag-mcp sync) to rebuild them."
        )
    try:
        fields["labels"] = _labels_status(ctx, report.sources)
    except Exception as exc:  # reported, never raised: status must always answer
        fields["labels"] = LabelsStatus(error=f"the labels could not be counted: {exc}")
    from minirag_ingest.ocr import ocr_missing

    fields["ocr"] = ocr_engine() or "unavailable"
    fields["ocr_hint"] = ocr_missing()
    fields["errors"] = errors or None
    return StatusResult(**fields)


# -- syncing ---------------------------------------------------------------------------------


def _scope_path(ctx: AppContext, scope: str | None) -> Path | None:
    if scope is None or not str(scope).strip():
        return None
    return Path(_contained(ctx, require_absolute(scope, ctx.wording.arg("scope"))))


def sync_start(ctx: AppContext, scope: str | None = None) -> SyncStarted:
    """Start a background sync; returns at once with its jobId."""
    ctx.require_places()
    path = _scope_path(ctx, scope)
    return SyncStarted(job_id=ctx.jobs.start(path))


def sync_status(ctx: AppContext, job_id: str) -> SyncJob:
    """The state, counts, errors and progress of a sync job."""
    ctx.require_config()
    if not job_id or not str(job_id).strip():
        raise OperationError("jobId is required")
    job = ctx.jobs.get(str(job_id).strip())
    if job is None:
        raise OperationError(
            f"no sync job {job_id!r} is known to this server (jobs last as long as the server "
            "process); start one with sync_start"
        )
    return SyncJob.of(job)


def sync_run(
    ctx: AppContext,
    scope: str | None = None,
    on_progress: Callable[[SyncJob], None] | None = None,
    poll: float = 0.2,
    stop: threading.Event | None = None,
) -> SyncJob:
    """Run a sync to the end (the CLI's ``sync``): start a job and wait for it.

    Once ``stop`` is set the job is asked to stop, and this returns when it has (state
    ``interrupted``), its background thread finished."""
    job_id = sync_start(ctx, scope).job_id
    cancelled = False
    while True:
        if stop is not None and stop.is_set() and not cancelled:
            ctx.jobs.cancel(job_id)
            cancelled = True
        current = sync_status(ctx, job_id)
        if on_progress is not None:
            on_progress(current)
        if current.state != "running":
            ctx.jobs.wait(job_id)  # ended: this joins its thread
            return current
        ctx.jobs.wait(job_id, timeout=poll)


# -- ingesting -------------------------------------------------------------------------------


def ingest_file(ctx: AppContext, file_path: str, labels: Any = None) -> Ingested:
    """Ingest (or re-ingest) one file under the roots.

    ``labels`` is a job's labelling (:meth:`Pipeline.labelling`) shared by several ingests, as
    the CLI's folder ingest does; without it this call is a labelling job of its own."""
    ctx.require_places()
    path = _contained(ctx, require_absolute(file_path))
    return Ingested.of(ctx.pipeline.ingest_file(Path(path), labels=labels))


def ingest_data(
    ctx: AppContext, source: str, content: str, format: str = "markdown", title: str | None = None
) -> Ingested:
    """Index text the client holds under a source id of its choosing."""
    ctx.require_places()
    if not source or not str(source).strip():
        raise OperationError("source (the id to store the content under) is required")
    if format not in ("text", "markdown", "html"):
        raise OperationError(f"format must be text, markdown or html, got {format!r}")
    if not content or not content.strip():
        raise OperationError("content is empty: there is nothing to index")
    fmt = cast("ContentFormat", format)  # one of the three, checked just above
    return Ingested.of(ctx.pipeline.ingest_data(str(source).strip(), content, fmt, title=title))


def ingest_url(ctx: AppContext, url: str, source: str | None = None) -> Ingested:
    """Fetch an http(s) page, convert it and index it."""
    ctx.require_places()
    if not url or not str(url).strip():
        raise OperationError("url is required")
    source = str(source).strip() if source and str(source).strip() else None
    return Ingested.of(ctx.pipeline.ingest_url(str(url).strip(), source))


def classify_try(ctx: AppContext, file_path: str) -> ClassifyTry:
    """Label one file the way an ingest would and return everything (nothing is stored).

    Loads the choice model when a facet needs it and releases it before returning. Refuses
    when the corpus has no taxonomy file or the file cannot be parsed."""
    config = ctx.require_places()
    path = require_absolute(file_path)
    if not os.path.isfile(path):
        raise OperationError(f"{path} is not a file")
    loader = ctx.taxonomy
    if not loader.present:
        raise OperationError(
            f"there is no {loader.path}: document labels are off for this corpus, so there is "
            "nothing to try"
        )
    if loader.error:
        raise OperationError(loader.error)
    from minirag_ingest.convert import convert_file
    from minirag_ingest.labels.resolve import ModelSession
    from minirag_ingest.labels.try_file import classify_try as try_file
    from minirag_ingest.roots import PathOutsideRoots

    taxonomy = loader.require()
    with contextlib.suppress(PathOutsideRoots):  # outside every root: only model facets apply
        path = str(ctx.roots.contain(path))

    def convert(target: Path) -> Any:
        return convert_file(
            target,
            max_file_size=config.ingest.max_file_size,
            ocr=config.ocr,
            ocr_min_chars_per_page=config.ingest.rag_ocr_min_chars_per_page,
        )

    with ModelSession(taxonomy.model, config.index.CACHE_DIR) as session:
        tried = try_file(path, taxonomy, session, roots=ctx.roots.paths, convert=convert)
    return ClassifyTry.of(tried)


# -- searching -------------------------------------------------------------------------------


def _labelled_infos(ctx: AppContext, view: LabelView, sources: set[str]) -> dict[str, Any]:
    """The index's rows of ``sources`` when rows carry labels, else nothing."""
    if not view.on or not sources:
        return {}
    from minirag_index.filters import sources_filter_sql

    return ctx.index.store.sources(sources_filter_sql(sources))


def query_documents(
    ctx: AppContext,
    query: str,
    top_k: int = DEFAULT_TOP_K,
    scope: str | None = None,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
) -> QueryResult:
    """Hybrid search; hits, their documents (with displayPath) and their parent sections."""
    ctx.require_places()
    if not query or not str(query).strip():
        raise OperationError(f"nothing to search for: {ctx.wording.arg('query')} is empty")
    view = label_view(ctx, labels, date_from, date_to)
    only: set[str] | None = None
    if view.filtering:
        apply_label_filter(ctx, view, ctx.index.sources(scope or None))
        only = view.matched
    result = ctx.index.search(str(query), top_k=int(top_k), scope=scope or None, sources=only)
    infos = _labelled_infos(ctx, view, {s.source for s in result.sources})
    sources = [
        SourceOut(
            source=item.source,
            title=item.title,
            hits=item.hits,
            display_path=_display(ctx, item.source),
            **(label_fields(infos[item.source]) if item.source in infos else {}),
            look_alikes=_look_alikes_for(ctx, item.source),
        )
        for item in result.sources
    ]
    warning = None
    if result.keyword_error:
        warning = (
            f"{result.keyword_error}; these results come from vector search only, so exact "
            "terms may be missing."
        )
    return QueryResult(
        hits=[HitOut.of(hit) for hit in result.hits],
        sources=sources,
        parents=dict(result.parents),
        **_filter_fields(view),
        notice=result.notice or None,
        warning=warning,
    )


def find_mentions(
    ctx: AppContext,
    terms: list[str] | str,
    match: str = "all",
    scope: str | None = None,
    offset: int = 0,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
) -> MentionsResult:
    """Every document mentioning the terms, counted and paged."""
    ctx.require_places()
    if isinstance(terms, str):
        terms = [terms]
    terms = [t for t in (terms or []) if t and str(t).strip()]
    if not terms:
        raise OperationError("give at least one term")
    if match not in ("all", "any"):
        raise OperationError(f"match must be 'all' or 'any', got {match!r}")
    if int(offset) < 0:
        raise OperationError(f"{ctx.wording.arg('offset')} must not be negative")
    view = label_view(ctx, labels, date_from, date_to)
    doc_filter = None
    if view.filtering:
        apply_label_filter(ctx, view, ctx.index.sources(scope or None))
        doc_filter = view.matched.__contains__
    try:
        result = ctx.index.find_mentions(
            terms,
            match="any" if match == "any" else "all",
            scope=scope or None,
            doc_filter=doc_filter,
            offset=int(offset),
        )
    except ValueError as exc:  # an empty or malformed term
        raise OperationError(str(exc)) from None
    infos = _labelled_infos(ctx, view, {d.source for d in result.documents})
    documents = [
        MentionDocumentOut(
            source=doc.source,
            display_path=_display(ctx, doc.source),
            title=doc.title,
            matching_chunks=doc.matching_chunks,
            title_match=doc.title_match,
            first_match=None if doc.first_match is None else FirstMatchOut.of(doc.first_match),
            **(label_fields(infos[doc.source]) if doc.source in infos else {}),
            look_alikes=_look_alikes_for(ctx, doc.source),
        )
        for doc in result.documents
    ]
    return MentionsResult(
        terms=[term.display for term in result.terms],
        match=result.match,
        searched_documents=result.searched_documents,
        matched_documents=result.matched_documents,
        matched_chunks=result.matched_chunks,
        forms=[FormOut(form=f.form, documents=f.documents) for f in result.forms],
        documents=documents,
        offset=result.offset,
        next_offset=result.next_offset,
        notice=result.notice or None,
        **_filter_fields(view),
    )


# -- reading ---------------------------------------------------------------------------------


def read_chunk_neighbors(
    ctx: AppContext,
    chunk_index: int,
    file_path: str | None = None,
    source: str | None = None,
    before: int = DEFAULT_NEIGHBORS,
    after: int = DEFAULT_NEIGHBORS,
) -> NeighborsResult:
    """The chunks around one chunk of a document, the target marked."""
    ctx.require_places()
    words = ctx.wording
    if int(before) < 0 or int(after) < 0:
        raise OperationError(f"{words.arg('before')} and {words.arg('after')} must not be negative")
    key = _lookup_source(ctx, file_path, source)
    chunks = ctx.index.neighbors(key, int(chunk_index), int(before), int(after))
    if chunks is None:
        raise _not_indexed(key)
    if not any(chunk.is_target for chunk in chunks):
        info = ctx.index.sources(key).get(key)
        count = info.chunk_count if info is not None else 0
        raise OperationError(
            f"there is no chunk {int(chunk_index)} in {_display(ctx, key)}: it has {count} "
            f"chunks, so chunkIndex goes from 0 to {count - 1}"
        )
    return NeighborsResult(
        source=key,
        display_path=_display(ctx, key),
        chunks=[NeighborOut.of(chunk) for chunk in chunks],
    )


def read_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None
) -> DocumentText:
    """A whole indexed document rebuilt as Markdown."""
    ctx.require_places()
    key = _lookup_source(ctx, file_path, source)
    info = ctx.index.sources(key).get(key)
    text = ctx.index.read_document(key) if info is not None else None
    if info is None or text is None:
        raise _not_indexed(key)
    return DocumentText(source=key, title=info.title, text=text)


def delete_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None
) -> Deleted:
    """Remove a document from the index; the file on disk is untouched."""
    ctx.require_places()
    key = _lookup_source(ctx, file_path, source)
    deleted = ctx.index.delete_source(key)
    if not deleted:
        raise _not_indexed(key)
    with contextlib.suppress(Exception):  # rows are gone; index upkeep can wait for later
        ctx.index.refresh()
    return Deleted(source=key, deleted=deleted)


# -- listing ---------------------------------------------------------------------------------


def list_files(
    ctx: AppContext,
    scope: str | None = None,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    sort: str | None = None,
) -> ListResult:
    """Files on disk under the roots with their state, plus indexed data and url sources.

    With a label or date filter only indexed documents that match are listed."""
    ctx.require_places()
    view = label_view(ctx, labels, date_from, date_to, sort)
    from minirag_ingest.scan import ScopeExcluded

    scope_text = str(scope).strip() if scope and str(scope).strip() else None
    # The scope rule of query_documents and find_mentions: an absolute path scopes the folders
    # on disk too; anything else (a URL, a data id) is a prefix of source ids.
    is_path_scope = (
        scope_text is not None
        and not _URL_LIKE.match(scope_text)
        and os.path.isabs(os.path.expanduser(scope_text))
    )
    scope_path = _scope_path(ctx, scope_text) if is_path_scope else None
    try:
        listing = ctx.corpus.list_files(scope_text, scope_path)
    except ScopeExcluded as exc:
        raise OperationError(str(exc)) from None
    listed = listing.files
    if view.on:
        apply_label_filter(ctx, view, listing.indexed)
        listed = filtering.select(view, listed, lambda row: row.info, by_date=sort == "date")
    return ListResult(
        files=[_file_row(ctx, row, view.on) for row in listed],
        **_filter_fields(view),
        ignored=listing.ignored or None,
        unlisted_folders=[UnlistedOut(path=str(u.path), reason=u.message) for u in listing.unlisted]
        or None,
    )


def _file_row(ctx: AppContext, row: ListedFile, labels_on: bool) -> FileRow:
    """One listed file as list_files shows it (its labels while labels are on)."""
    extra = label_fields(row.info) if labels_on and row.info is not None else {}
    return FileRow(
        path=row.path,
        source=row.source,
        display_path=row.source if row.source is not None else _display(ctx, row.path or ""),
        state=row.state,
        chunks=row.chunks,
        title=row.title,
        ocr_engine=row.ocr_engine,
        source_type=row.source_type,
        **extra,
    )
