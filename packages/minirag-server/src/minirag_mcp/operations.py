"""One function per tool, shared by the MCP server and the CLI so the two cannot drift.

Each takes an :class:`~minirag_mcp.context.AppContext` and the tool's arguments, and returns a
plain ``dict`` with the tool's camelCase fields. A failure is an exception whose message is
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minirag_mcp.context import AppContext, place_problems

DEFAULT_TOP_K = 10
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
    """Check the file a source id names lies inside a root (raises PathOutsideRoots) and
    return the id."""
    from minirag_ingest.names import to_path

    ctx.roots.contain(to_path(path))
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
    from minirag_ingest.names import to_id, to_path

    real = to_id(Path(to_path(path)).resolve())
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


def _look_alikes_for(ctx: AppContext, source: str) -> list[dict[str, Any]] | None:
    """Other indexed documents sharing most of this one's text, from the whole index."""
    rows = []
    for other in ctx.index.look_alikes(source):
        row: dict[str, Any] = {
            "source": other.source,
            "displayPath": _display(ctx, other.source),
            "overlap": round(other.overlap, 2),
        }
        if other.date:
            row["date"] = other.date
        rows.append(row)
    return rows or None


# -- document labels -------------------------------------------------------------------------
#
# The feature is on only while <first root>/.minirag/classify.toml exists. Without it no key
# is added anywhere, and the label and date arguments (labels, dateFrom, dateTo, sort "date")
# are refused with a message saying how to turn it on: a date filter alone would drop undated
# documents silently, since filterCounts is a key of the feature too.


@dataclass
class LabelView:
    """What one request does with labels: whether rows carry them, and its filter."""

    on: bool = False  # the taxonomy file exists: rows carry labels, date and dateSource
    taxonomy: Any = None  # the parsed taxonomy (None while the file cannot be parsed)
    filter: Any = None  # the request's DocFilter, when it set one
    counts: dict[str, int] | None = None  # filterCounts, once the filter was applied
    notice: str | None = None  # filterNotice
    matched: set[str] = field(default_factory=set)

    @property
    def filtering(self) -> bool:
        return self.filter is not None


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
    error = loader.error
    view = LabelView(on=True, taxonomy=None if error else loader.get())
    if not wants_filter:
        return view
    if error and not _blank(labels):
        raise OperationError(error)
    from minirag_index.filters import parse_filter

    vocabulary = view.taxonomy.filter_vocabulary() if view.taxonomy is not None else None
    try:
        view.filter = parse_filter(labels, date_from, date_to, vocabulary=vocabulary)
    except ValueError as exc:
        raise OperationError(str(exc)) from None
    return view


def apply_label_filter(ctx: AppContext, view: LabelView, indexed: dict[str, Any]) -> None:
    """Filter ``indexed`` (the sources in scope): fills matched, counts and notice."""
    if not view.filtering:
        return
    from minirag_index.filters import apply_filter

    result = apply_filter(indexed, view.filter)
    view.matched = set(result.kept)
    view.counts = result.counts
    if view.filter.labels and view.taxonomy is not None:
        from minirag_ingest.labels.resolve import filter_notice, model_state

        if any(
            (facet := view.taxonomy.facet(name)) is not None and facet.needs_model
            for name in view.filter.labels
        ):
            state, hint = model_state(view.taxonomy, ctx.config.index.CACHE_DIR)
            view.notice = filter_notice(view.taxonomy, list(view.filter.labels), state, hint)


def label_fields(info: Any) -> dict[str, Any]:
    """A row's labels, date and dateSource (only added while the feature is on)."""
    from minirag_index.filters import public_labels

    return {
        "labels": public_labels(info.labels),
        "date": info.doc_date,
        "dateSource": info.date_source,
    }


def _labelled_rows(
    view: LabelView, rows: list[dict[str, Any]], indexed: dict[str, Any], by_date: bool
) -> list[dict[str, Any]]:
    """list_files rows with their labels and dates, filtered, newest first when asked."""
    from types import SimpleNamespace

    from minirag_index.filters import sort_by_date

    kept: list[dict[str, Any]] = []
    for row in rows:
        info = indexed.get(row.get("path") or row.get("source") or "")
        if view.filtering and (info is None or info.source not in view.matched):
            continue
        if info is not None:
            row.update(label_fields(info))
        kept.append(row)
    if not by_date:
        return kept
    dated = (SimpleNamespace(row=r, doc_date=r.get("date")) for r in kept)
    return [item.row for item in sort_by_date(dated)]


def _filter_payload(view: LabelView, out: dict[str, Any]) -> None:
    if view.counts is not None:
        out["filterCounts"] = dict(view.counts)
    if view.notice:
        out["filterNotice"] = view.notice


def _labels_status(ctx: AppContext, infos: dict[str, Any]) -> dict[str, Any] | None:
    """status's labels block, or None when the corpus has no taxonomy file."""
    loader = ctx.taxonomy
    if not loader.present:
        return None
    if loader.error:
        return {"error": loader.error}
    from minirag_index.filters import label_stats
    from minirag_ingest.labels.resolve import model_state

    taxonomy = loader.get()
    stats, undated = label_stats(infos.values(), taxonomy.filter_vocabulary())
    facets: dict[str, Any] = {}
    for facet in taxonomy.facets:
        counted = stats[facet.name]
        entry: dict[str, Any] = {
            "question": facet.question,
            "values": [
                {"id": v.id, "description": v.description, "count": counted.values[v.id]}
                for v in facet.values
            ],
            "unlabelled": counted.unlabelled,
            "uncertain": counted.uncertain,
        }
        if facet.within:
            entry["within"] = list(facet.within)
        facets[facet.name] = entry
    block: dict[str, Any] = {"facets": facets, "undated": undated}
    state, hint = model_state(taxonomy, ctx.config.index.CACHE_DIR)
    block["model"] = state
    if hint:
        block["modelHint"] = hint
    return block


# -- status ----------------------------------------------------------------------------------


def ocr_engine() -> str | None:
    """The OCR engine this install offers (found by entry point, nothing loaded), or None."""
    try:
        from minirag_ingest.ocr import ocr_engine_name
    except ImportError:
        return None
    return ocr_engine_name()


def scan_extensions() -> frozenset[str]:
    """Extensions the scan adds to the base whitelist: images, when OCR is installed."""
    if ocr_engine() is None:
        return frozenset()
    from minirag_ingest.ocr import IMAGE_EXTENSIONS

    return IMAGE_EXTENSIONS


UNRECORDED_MODEL_NOTE = (
    "This index was written before indexes recorded their embedding model. The next sync or "
    "ingest records the configured MODEL_NAME as the model its vectors were made with; if they "
    "were made with another one, set MODEL_NAME to that model first, or use a new DB_PATH."
)


def _index_model_status(ctx: AppContext) -> dict[str, Any]:
    """The model the index was embedded with, beside the configured one (``modelName``)."""
    index = ctx.index
    if index.store.vector_dim() is None:
        return {"indexModel": None}  # nothing indexed yet
    recorded = index.recorded_model()
    out: dict[str, Any] = {"indexModel": recorded.to_dict() if recorded is not None else None}
    if recorded is None:
        out["indexModelNote"] = UNRECORDED_MODEL_NOTE
    problem = index.model_problem()
    if problem:
        out["modelMismatch"] = problem
    return out


def status(ctx: AppContext) -> dict[str, Any]:
    """Configuration and index health. Answers even when the configuration is broken."""
    config = ctx.config
    if config.error:
        return {"version": config.version, "configError": config.error}
    from minirag_ingest.scan import IgnoreFileUnreadable, load_rules

    assert config.index is not None
    errors: list[str] = []
    out: dict[str, Any] = {
        "version": config.version,
        "roots": [str(root) for root in config.roots],
        "dbPath": str(config.db_path),
        "cacheDir": str(config.index.CACHE_DIR),
        "modelName": config.index.MODEL_NAME,
    }
    built = ctx.index_if_built
    out["model"] = "loaded" if built is not None and built.embedder.loaded else "not loaded"
    if built is not None and built.embedder.load_error:
        out["modelError"] = built.embedder.load_error
    try:
        out.update(_index_model_status(ctx))
    except Exception as exc:  # reported, never raised: status must always answer
        errors.append(f"the index's embedding model could not be checked: {exc}")

    errors.extend(place_problems(config, every_missing_root=True))
    ignore_files = []
    for root in config.roots:
        if not root.is_dir():
            if root.exists():
                errors.append(f"root {root} is not a folder that can be listed")
            continue
        try:
            rules = load_rules(root)
        except IgnoreFileUnreadable as exc:
            errors.append(f"{exc}; nothing under {root} is scanned until it is fixed")
            continue
        if rules is not None:
            ignore_files.append({"path": str(rules.file), "rules": rules.count})
    out["ignoreFiles"] = ignore_files

    documents = chunks = stale = unsigned = unpaged = 0
    infos: dict[str, Any] = {}
    try:
        from minirag_ingest.chunking import SCHEME_VERSION
        from minirag_ingest.pages import lacks_pages

        infos = ctx.index.sources()
        documents = len(infos)
        chunks = sum(info.chunk_count for info in infos.values())
        stale = ctx.index.stale_chunk_count(SCHEME_VERSION) if documents else 0
        unsigned = sum(1 for info in infos.values() if info.signature is None)
        unpaged = sum(1 for info in infos.values() if lacks_pages(info))
    except Exception as exc:  # reported, never raised: status must always answer
        errors.append(f"the index at {config.db_path} could not be read: {exc}")
    out.update(documents=documents, chunks=chunks, staleChunkCount=stale)
    if stale:
        out["schemeWarning"] = (
            f"{stale} chunks were cut by an older chunking scheme and rank poorly; "
            "run sync_start (or minirag-mcp sync) to rebuild them."
        )
    if unsigned:
        out["unsignedSourceCount"] = unsigned
    if unpaged:
        out["unpagedSourceCount"] = unpaged
    try:
        labels = _labels_status(ctx, infos)
    except Exception as exc:  # reported, never raised: status must always answer
        labels = {"error": f"the labels could not be counted: {exc}"}
    if labels is not None:
        out["labels"] = labels
    engine = ocr_engine()
    out["ocr"] = engine or "unavailable"
    if engine is None:
        from minirag_ingest.install import install_hint

        out["ocrHint"] = f"Scanned PDFs and image files need the [ocr] extra: {install_hint('ocr')}"
    if errors:
        out["errors"] = errors
    return out


# -- syncing ---------------------------------------------------------------------------------


def _scope_path(ctx: AppContext, scope: str | None) -> Path | None:
    if scope is None or not str(scope).strip():
        return None
    from minirag_ingest.names import to_path

    return Path(to_path(_contained(ctx, require_absolute(scope, ctx.wording.arg("scope")))))


def sync_start(ctx: AppContext, scope: str | None = None) -> dict[str, Any]:
    """Start a background sync; returns at once with its jobId."""
    ctx.require_places()
    path = _scope_path(ctx, scope)
    job_id = ctx.jobs.start(path)
    return {"jobId": job_id}


def sync_status(ctx: AppContext, job_id: str) -> dict[str, Any]:
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
    return job.to_dict()


def sync_run(
    ctx: AppContext,
    scope: str | None = None,
    on_progress: Callable[[dict[str, Any]], None] | None = None,
    poll: float = 0.2,
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """Run a sync to the end (the CLI's ``sync``): start a job and wait for it.

    Once ``stop`` is set the job is asked to stop, and this returns when it has (state
    ``interrupted``), its background thread finished."""
    job_id = sync_start(ctx, scope)["jobId"]
    cancelled = False
    while True:
        if stop is not None and stop.is_set() and not cancelled:
            ctx.jobs.cancel(job_id)
            cancelled = True
        current = sync_status(ctx, job_id)
        if on_progress is not None:
            on_progress(current)
        if current["state"] != "running":
            ctx.jobs.wait(job_id)  # ended: this joins its thread
            return current
        ctx.jobs.wait(job_id, timeout=poll)


# -- ingesting -------------------------------------------------------------------------------


def _ingest_payload(result: Any) -> dict[str, Any]:
    out = {"source": result.source, "title": result.title, "chunks": result.chunks}
    problem = getattr(result, "label_problem", None)
    if problem:
        out["labelProblem"] = problem
    return out


def ingest_file(ctx: AppContext, file_path: str, labels: Any = None) -> dict[str, Any]:
    """Ingest (or re-ingest) one file under the roots.

    ``labels`` is a job's labelling (:meth:`Pipeline.labelling`) shared by several ingests, as
    the CLI's folder ingest does; without it this call is a labelling job of its own."""
    from minirag_ingest.names import to_path

    ctx.require_places()
    path = _contained(ctx, require_absolute(file_path))
    return _ingest_payload(ctx.pipeline.ingest_file(Path(to_path(path)), labels=labels))


def ingest_data(
    ctx: AppContext, source: str, content: str, format: str = "markdown", title: str | None = None
) -> dict[str, Any]:
    """Index text the client holds under a source id of its choosing."""
    ctx.require_places()
    if not source or not str(source).strip():
        raise OperationError("source (the id to store the content under) is required")
    if format not in ("text", "markdown", "html"):
        raise OperationError(f"format must be text, markdown or html, got {format!r}")
    if not content or not content.strip():
        raise OperationError("content is empty: there is nothing to index")
    result = ctx.pipeline.ingest_data(str(source).strip(), content, format, title=title)
    return _ingest_payload(result)


def ingest_url(ctx: AppContext, url: str, source: str | None = None) -> dict[str, Any]:
    """Fetch an http(s) page, convert it and index it."""
    ctx.require_places()
    if not url or not str(url).strip():
        raise OperationError("url is required")
    source = str(source).strip() if source and str(source).strip() else None
    return _ingest_payload(ctx.pipeline.ingest_url(str(url).strip(), source))


def classify_try(ctx: AppContext, file_path: str) -> dict[str, Any]:
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
    from minirag_ingest.ocr import load_ocr_engine
    from minirag_ingest.roots import PathOutsideRoots

    taxonomy = loader.get()
    engine = load_ocr_engine(config.ocr)
    with contextlib.suppress(PathOutsideRoots):  # outside every root: only model facets apply
        path = str(ctx.roots.contain(path))

    def convert(target: Path) -> Any:
        return convert_file(
            target,
            max_file_size=config.ingest.max_file_size,
            ocr=engine,
            ocr_min_chars_per_page=config.ocr.RAG_OCR_MIN_CHARS_PER_PAGE,
        )

    with ModelSession(taxonomy.model, config.index.CACHE_DIR) as session:
        return try_file(path, taxonomy, session, roots=ctx.roots.paths, convert=convert)


# -- searching -------------------------------------------------------------------------------


def query_documents(
    ctx: AppContext,
    query: str,
    top_k: int = DEFAULT_TOP_K,
    scope: str | None = None,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
) -> dict[str, Any]:
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
    infos: dict[str, Any] = {}
    if view.on and result.sources:
        from minirag_index.filters import sources_filter_sql

        infos = ctx.index.store.sources(sources_filter_sql({s.source for s in result.sources}))
    sources = []
    for item in result.sources:
        row: dict[str, Any] = {
            "source": item.source,
            "title": item.title,
            "hits": item.hits,
            "displayPath": _display(ctx, item.source),
        }
        if item.source in infos:
            row.update(label_fields(infos[item.source]))
        look = _look_alikes_for(ctx, item.source)
        if look:
            row["lookAlikes"] = look
        sources.append(row)
    out: dict[str, Any] = {
        "hits": [hit.to_dict() for hit in result.hits],
        "sources": sources,
        "parents": dict(result.parents),
    }
    _filter_payload(view, out)
    if result.notice:
        out["notice"] = result.notice
    if result.keyword_error:
        out["warning"] = (
            f"{result.keyword_error}; these results come from vector search only, so exact "
            "terms may be missing."
        )
    return out


def find_mentions(
    ctx: AppContext,
    terms: list[str] | str,
    match: str = "all",
    scope: str | None = None,
    offset: int = 0,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
) -> dict[str, Any]:
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
            terms, match=match, scope=scope or None, doc_filter=doc_filter, offset=int(offset)
        )
    except ValueError as exc:  # an empty or malformed term
        raise OperationError(str(exc)) from None
    out = result.to_dict()
    infos: dict[str, Any] = {}
    if view.on and out["documents"]:
        from minirag_index.filters import sources_filter_sql

        infos = ctx.index.store.sources(sources_filter_sql({d["source"] for d in out["documents"]}))
    documents = []
    for document in out["documents"]:
        source = document.pop("source")
        row = {"source": source, "displayPath": _display(ctx, source), **document}
        if source in infos:
            row.update(label_fields(infos[source]))
        look = _look_alikes_for(ctx, source)
        if look:
            row["lookAlikes"] = look
        documents.append(row)
    out["documents"] = documents
    _filter_payload(view, out)
    return out


# -- reading ---------------------------------------------------------------------------------


def read_chunk_neighbors(
    ctx: AppContext,
    chunk_index: int,
    file_path: str | None = None,
    source: str | None = None,
    before: int = 2,
    after: int = 2,
) -> dict[str, Any]:
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
    rows = []
    for chunk in chunks:
        row: dict[str, Any] = {
            "chunkIndex": chunk.chunk_index,
            "text": chunk.text,
            "parentId": chunk.parent_id,
        }
        if chunk.pages:
            row["pages"] = chunk.pages
        if chunk.is_target:
            row["isTarget"] = True
        rows.append(row)
    return {"source": key, "displayPath": _display(ctx, key), "chunks": rows}


def read_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None
) -> dict[str, Any]:
    """A whole indexed document rebuilt as Markdown."""
    ctx.require_places()
    key = _lookup_source(ctx, file_path, source)
    info = ctx.index.sources(key).get(key)
    text = ctx.index.read_document(key) if info is not None else None
    if text is None:
        raise _not_indexed(key)
    return {"source": key, "title": info.title, "text": text}


def delete_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None
) -> dict[str, Any]:
    """Remove a document from the index; the file on disk is untouched."""
    ctx.require_places()
    key = _lookup_source(ctx, file_path, source)
    deleted = ctx.index.delete_source(key)
    if not deleted:
        raise _not_indexed(key)
    with contextlib.suppress(Exception):  # rows are gone; index upkeep can wait for later
        ctx.index.refresh()
    return {"source": key, "deleted": deleted}


# -- listing ---------------------------------------------------------------------------------


def _unscanned_image(ctx: AppContext, source: str) -> bool:
    """An indexed image still on disk that the scan skips because the [ocr] extra is absent
    (sync keeps it as unreadable), rather than one that is gone or excluded by a rule."""
    from minirag_ingest.names import to_path
    from minirag_ingest.ocr import IMAGE_EXTENSIONS
    from minirag_ingest.scan import is_excluded

    path = to_path(source)
    if Path(path).suffix.lower() not in IMAGE_EXTENSIONS or not os.path.lexists(path):
        return False
    try:
        return is_excluded(path, ctx.roots) is None
    except (OSError, ValueError):
        return True  # cannot tell: sync keeps it too


def list_files(
    ctx: AppContext,
    scope: str | None = None,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    sort: str | None = None,
) -> dict[str, Any]:
    """Files on disk under the roots with their state, plus indexed data and url sources.

    With a label or date filter only indexed documents that match are listed."""
    ctx.require_places()
    view = label_view(ctx, labels, date_from, date_to, sort)
    from minirag_index import in_scope
    from minirag_ingest.chunking import SCHEME_VERSION
    from minirag_ingest.names import to_id
    from minirag_ingest.pages import lacks_pages
    from minirag_ingest.scan import ScopeExcluded, scan

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
        scanned = (
            scan(ctx.roots, scope_path, extra_extensions=scan_extensions())
            if scope_text is None or scope_path is not None
            else None
        )
    except ScopeExcluded as exc:
        raise OperationError(str(exc)) from None
    indexed = ctx.index.sources(scope_text)
    without_ocr = ocr_engine() is None
    files: list[dict[str, Any]] = []
    seen: set[str] = set()
    for item in scanned.files if scanned else []:
        path = item.source
        seen.add(path)
        info = indexed.get(path)
        row: dict[str, Any] = {"path": path, "displayPath": _display(ctx, path)}
        if info is None:
            row.update(state="not_indexed", chunks=0)
        else:
            unchanged = info.size == item.size and abs(info.mtime - item.mtime) < 1e-3
            if unchanged and info.scheme >= SCHEME_VERSION:
                state = "indexed"
            elif unchanged and without_ocr and info.ocr_engine:
                state = "unreadable"  # sync keeps it: reading it again needs the [ocr] extra
            elif unchanged and lacks_pages(info):
                state = "stale_pages"  # the next sync reads it again for its page numbers
            else:
                state = "stale"
            row.update(state=state, chunks=info.chunk_count)
            row["title"] = info.title
            row["ocrEngine"] = info.ocr_engine or ""
        files.append(row)
    unlisted = [to_id(u.path) for u in scanned.unlisted] if scanned else []
    for source, info in sorted(indexed.items()):
        if source in seen or not in_scope(source, scope_text):
            continue
        if info.source_type != "file":
            files.append(
                {
                    "source": source,
                    "displayPath": source,
                    "state": "indexed",
                    "chunks": info.chunk_count,
                    "title": info.title,
                    "sourceType": info.source_type,
                }
            )
            continue
        state = "missing"
        if any(in_scope(source, folder) for folder in unlisted):
            state = "unlisted"
        elif without_ocr and _unscanned_image(ctx, source):
            state = "unreadable"
        files.append(
            {
                "path": source,
                "displayPath": _display(ctx, source),
                "state": state,
                "chunks": info.chunk_count,
                "title": info.title,
                "ocrEngine": info.ocr_engine or "",
            }
        )
    if view.on:
        apply_label_filter(ctx, view, indexed)
        files = _labelled_rows(view, files, indexed, sort == "date")
    out: dict[str, Any] = {"files": files}
    _filter_payload(view, out)
    if scanned and scanned.ignored:
        out["ignored"] = scanned.ignored
    if scanned and scanned.unlisted:
        out["unlistedFolders"] = [
            {"path": to_id(u.path), "reason": u.message} for u in scanned.unlisted
        ]
    return out
