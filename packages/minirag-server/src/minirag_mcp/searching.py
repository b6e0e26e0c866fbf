"""``query_documents`` and ``find_mentions``: the index's hybrid search and mention scan, with a
request's label filter applied first, shaped into their result models.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from minirag_index import DEFAULT_TOP_K, READ, Version
from minirag_ingest.files.names import to_path
from minirag_ingest.files.roots import PathOutsideRoots
from minirag_ingest.labels.filtering import LabelView
from minirag_mcp.context import AppContext
from minirag_mcp.labelling import apply_label_filter, filter_fields, label_fields, label_view
from minirag_mcp.operations import OperationError, contained, require_absolute
from minirag_mcp.results import (
    FirstMatchOut,
    FormOut,
    HitOut,
    LookAlikeOut,
    MentionDocumentOut,
    MentionsResult,
    QueryResult,
    SourceOut,
)


def _look_alikes_of(
    ctx: AppContext, sources: list[str], version: Version = READ
) -> dict[str, list[LookAlikeOut] | None]:
    """Other indexed documents sharing most of each one's text, from the whole index (at
    ``version``, the one a search read, when given)."""
    return {
        source: [
            LookAlikeOut(
                source=other.source,
                display_path=ctx.display_path(other.source),
                overlap=round(other.overlap, 2),
                date=other.date or None,
            )
            for other in others
        ]
        or None
        for source, others in ctx.index.look_alikes_of(sources, version=version).items()
    }


# -- the scope rule --------------------------------------------------------------------------

URL_LIKE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def names_items(ctx: AppContext, scope: str) -> bool:
    """True when ``scope`` covers an indexed data or url item (ids the client chose)."""
    try:
        infos = ctx.index.sources(scope)
    except Exception:  # no table yet, or unreadable: it covers nothing
        return False
    return any(info.source_type != "file" for info in infos.values())


def scope_and_folder(ctx: AppContext, scope: str | None) -> tuple[str | None, Path | None]:
    """The ``scope`` of query_documents, find_mentions and list_files, checked by one rule,
    and the folder (or file) on disk it names, if it names one.

    A URL (``scheme://...``) is a prefix of url and data ids and is taken as it is. Any other
    scope is a path: it must be absolute and inside a root (or a root itself), and is refused
    with the words ``filePath`` gets otherwise - unless it covers indexed data items, whose ids
    the client chose and may look like paths (``notes/2024``). The scope comes back
    normalised."""
    text = str(scope).strip() if scope is not None else ""
    if not text:
        return None, None
    if URL_LIKE.match(text):
        return text, None
    if not os.path.isabs(os.path.expanduser(text)):
        if names_items(ctx, text):
            return text, None
        require_absolute(text, ctx.wording.arg("scope"))  # raises: a relative path
    path = require_absolute(text, ctx.wording.arg("scope"))
    try:
        return contained(ctx, path), Path(to_path(path))
    except PathOutsideRoots:
        if names_items(ctx, path):
            return path, None
        raise


def checked_scope(ctx: AppContext, scope: str | None) -> str | None:
    """``scope`` checked by the one rule of :func:`scope_and_folder`."""
    return scope_and_folder(ctx, scope)[0]


# -- searching -------------------------------------------------------------------------------


def _labelled_infos(ctx: AppContext, view: LabelView, sources: set[str]) -> dict[str, Any]:
    """The index's rows of ``sources`` when rows carry labels, else nothing."""
    if not view.on or not sources:
        return {}
    return ctx.index.sources_among(sources)


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
    scope = checked_scope(ctx, scope)
    view = label_view(ctx, labels, date_from, date_to)
    only: set[str] | None = None
    if view.filtering:
        apply_label_filter(ctx, view, ctx.index.sources(scope or None))
        only = view.matched
    result = ctx.index.search(str(query), top_k=int(top_k), scope=scope or None, sources=only)
    infos = _labelled_infos(ctx, view, {s.source for s in result.sources})
    alikes = _look_alikes_of(ctx, [s.source for s in result.sources], result.version)
    sources = [
        SourceOut(
            source=item.source,
            title=item.title,
            hits=item.hits,
            display_path=ctx.display_path(item.source),
            **(label_fields(infos[item.source]) if item.source in infos else {}),
            look_alikes=alikes[item.source],
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
        **filter_fields(view),
        notice=result.notice or None,
        warning=warning,
    )


def _checked_terms(ctx: AppContext, terms: list[str] | str, match: str, offset: int) -> list[str]:
    """find_mentions's terms without the blank ones; refuses no term, another ``match`` than
    all or any, and a negative offset."""
    if isinstance(terms, str):
        terms = [terms]
    terms = [t for t in (terms or []) if t and str(t).strip()]
    if not terms:
        raise OperationError("give at least one term")
    if match not in ("all", "any"):
        raise OperationError(f"match must be 'all' or 'any', got {match!r}")
    if int(offset) < 0:
        raise OperationError(f"{ctx.wording.arg('offset')} must not be negative")
    return terms


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
    terms = _checked_terms(ctx, terms, match, offset)
    scope = checked_scope(ctx, scope)
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
    alikes = _look_alikes_of(ctx, [d.source for d in result.documents])
    documents = [
        MentionDocumentOut(
            source=doc.source,
            display_path=ctx.display_path(doc.source),
            title=doc.title,
            matching_chunks=doc.matching_chunks,
            title_match=doc.title_match,
            first_match=None if doc.first_match is None else FirstMatchOut.of(doc.first_match),
            **(label_fields(infos[doc.source]) if doc.source in infos else {}),
            look_alikes=alikes[doc.source],
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
        **filter_fields(view),
    )
