"""The tool functions shared by the MCP server and the CLI, so the two cannot drift: the helpers
they share, and syncing, ingesting, reading and deleting. Listing and status are in
:mod:`minirag_mcp.listing`, searching in :mod:`minirag_mcp.searching`, document labels in
:mod:`minirag_mcp.labelling`.

Each takes an :class:`~minirag_mcp.context.AppContext` and the tool's arguments, checks them,
calls the libraries (the rules live there) and returns the tool's result model
(:mod:`minirag_mcp.results`). A failure is an exception whose message is meant for the user; the
server turns it into a tool error, the CLI into ``error:`` and exit 1.

Paths handed to these functions must be absolute: the MCP tools pass on what the client sent
(and a relative path is refused), the CLI resolves its arguments against the current directory
first.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from minirag_index import DEFAULT_NEIGHBORS
from minirag_mcp import paging
from minirag_mcp.context import AppContext
from minirag_mcp.errors import ServerError
from minirag_mcp.results import (
    Deleted,
    DocumentText,
    Ingested,
    NeighborOut,
    NeighborsResult,
    SyncJob,
    SyncStarted,
)

if TYPE_CHECKING:
    from minirag_ingest.document.pipeline import ContentFormat


class OperationError(ServerError, ValueError):
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


def contained(ctx: AppContext, path: str) -> str:
    """Check the file a source id names lies inside a root (raises PathOutsideRoots) and
    return the id."""
    from minirag_ingest.files.names import to_path

    ctx.roots.contain(to_path(path))
    return path


def _lookup_source(ctx: AppContext, file_path: str | None, source: str | None) -> str:
    """The indexed source a request names: a file by absolute path, or any source id."""
    if file_path and source:
        raise OperationError(f"give either filePath or {ctx.wording.arg('source')}, not both")
    if source is not None and str(source).strip():
        return str(source).strip()
    path = contained(ctx, require_absolute(file_path))
    known = ctx.index.sources(path)
    if path in known:
        return path
    from minirag_ingest.files.names import to_id, to_path

    real = to_id(Path(to_path(path)).resolve())
    if real in ctx.index.sources(real):
        return real
    return path


def _not_indexed(source: str) -> OperationError:
    return OperationError(
        f"{source} is not in the index. Run sync_start (or ingest_file) first, or check the "
        "path with list_files."
    )


# -- syncing ---------------------------------------------------------------------------------


def scope_folder(ctx: AppContext, scope: str | None) -> Path | None:
    if scope is None or not str(scope).strip():
        return None
    from minirag_ingest.files.names import to_path

    return Path(to_path(contained(ctx, require_absolute(scope, ctx.wording.arg("scope")))))


def sync_start(ctx: AppContext, scope: str | None = None) -> SyncStarted:
    """Start a background sync; returns at once with its jobId."""
    ctx.require_writable()
    path = scope_folder(ctx, scope)
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
    from minirag_ingest.files.names import to_path

    ctx.require_writable()
    path = contained(ctx, require_absolute(file_path))
    return Ingested.of(ctx.pipeline.ingest_file(Path(to_path(path)), labels=labels))


def ingest_data(
    ctx: AppContext, source: str, content: str, format: str = "markdown", title: str | None = None
) -> Ingested:
    """Index text the client holds under a source id of its choosing."""
    ctx.require_writable()
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
    ctx.require_writable()
    if not url or not str(url).strip():
        raise OperationError("url is required")
    source = str(source).strip() if source and str(source).strip() else None
    return Ingested.of(ctx.pipeline.ingest_url(str(url).strip(), source))


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
            f"there is no chunk {int(chunk_index)} in {ctx.display_path(key)}: it has {count} "
            f"chunk{'' if count == 1 else 's'}, so chunkIndex goes from 0 to {count - 1}"
        )
    return NeighborsResult(
        source=key,
        display_path=ctx.display_path(key),
        chunks=[NeighborOut.of(chunk) for chunk in chunks],
    )


def read_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None, offset: int = 0
) -> DocumentText:
    """One page of an indexed document rebuilt as Markdown (see :mod:`minirag_mcp.paging`):
    from character ``offset``, with the offset of the next page while one remains."""
    ctx.require_places()
    key = _lookup_source(ctx, file_path, source)
    info = ctx.index.sources(key).get(key)
    text = None
    if info is not None:
        rebuild = lambda: ctx.index.read_document(key)  # noqa: E731
        text = ctx.last_document.text(key, ctx.index.version(), rebuild)
    if info is None or text is None:
        raise _not_indexed(key)
    try:
        page = paging.page_of(text, offset, paging.PAGE_CHARS)
    except ValueError as exc:
        raise OperationError(str(exc)) from None
    return DocumentText(
        source=key,
        title=info.title,
        text=page.text,
        offset=page.offset,
        next_offset=page.next_offset,
        total_chars=page.total_chars,
    )


def read_whole_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None
) -> DocumentText:
    """Every page of :func:`read_file`, joined: the whole document (the CLI's ``read``)."""
    first = read_file(ctx, file_path, source)
    pages = [first.text]
    next_offset = first.next_offset
    while next_offset is not None:
        page = read_file(ctx, first.source, None, next_offset)
        pages.append(page.text)
        next_offset = page.next_offset
    text = "".join(pages)
    return first.model_copy(update={"text": text, "next_offset": None})


def delete_file(
    ctx: AppContext, file_path: str | None = None, source: str | None = None
) -> Deleted:
    """Remove a document from the index; the file on disk is untouched."""
    ctx.require_writable()
    key = _lookup_source(ctx, file_path, source)
    deleted = ctx.index.delete_source(key)
    if not deleted:
        raise _not_indexed(key)
    with contextlib.suppress(Exception):  # rows are gone; index upkeep can wait for later
        ctx.index.refresh()
    return Deleted(source=key, deleted=deleted)
