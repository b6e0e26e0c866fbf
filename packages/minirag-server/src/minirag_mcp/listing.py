"""``status`` and ``list_files``: the corpus's report and listing
(:class:`minirag_ingest.Corpus`) beside the configuration, shaped into their result models.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_index.errors import StoreUnavailableError
from minirag_ingest.files.corpus import installed_ocr, scanned_extensions
from minirag_ingest.files.names import to_id
from minirag_ingest.labels import filtering
from minirag_mcp.config import Config, ConfigProblem
from minirag_mcp.context import AppContext, place_problems
from minirag_mcp.labelling import (
    apply_label_filter,
    filter_fields,
    label_fields,
    label_view,
    labels_status,
)
from minirag_mcp.operations import OperationError
from minirag_mcp.results import (
    FileRow,
    IgnoreFileOut,
    IndexModelOut,
    LabelsStatus,
    ListResult,
    StatusResult,
    UnlistedOut,
    WatchOut,
)
from minirag_mcp.searching import scope_and_folder

if TYPE_CHECKING:
    from minirag_ingest.files.corpus import ListedFile


# -- status ----------------------------------------------------------------------------------


def ocr_engine() -> str | None:
    """The OCR plug-in this install offers (no engine built), or None."""
    return installed_ocr()


def ocr_model_state(cache_dir: Path) -> str | None:
    """Whether the OCR plug-in's recognition model is bundled, cached or downloads on first
    use (a plug-in that does not say: None). Nothing is fetched."""
    from minirag_ingest.extras.plugins import OCR, find

    state = getattr(find(OCR).plugin, "model_state", None)
    if state is None:
        return None
    try:
        return str(state(Path(cache_dir)))
    except Exception:  # a bad RAG_OCR_LANG: the engine's own error reports it
        return None


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
    if index.is_empty():
        return {"index_model_checked": True}  # nothing indexed yet: indexModel is null
    recorded = index.recorded_model()
    return {
        "index_version": index.version(),
        "index_model_checked": True,
        "index_model": None if recorded is None else IndexModelOut.of(recorded),
        "index_model_note": UNRECORDED_MODEL_NOTE if recorded is None else None,
        "model_mismatch": index.model_problem() or None,
    }


def _settings_fields(ctx: AppContext, config: Config) -> dict[str, Any]:
    """What status says of the configuration and of the embedding model's load."""
    built = ctx.index_if_built
    return {
        "version": config.version,
        "roots": [str(root) for root in config.roots],
        "db_path": str(config.db_path),
        "store": config.db_path.kind,
        "cache_dir": str(config.index.CACHE_DIR),
        "model_name": config.index.MODEL_NAME,
        "model": "loaded" if built is not None and built.embedder.loaded else "not loaded",
        "model_error": built.embedder.load_error if built is not None else None,
        "read_only": config.read_only,
    }


def status(ctx: AppContext) -> StatusResult:
    """Configuration and index health. Answers even when the configuration is broken."""
    if isinstance(ctx.config, ConfigProblem):
        return StatusResult(version=ctx.config.version, config_error=ctx.config.error)
    config = ctx.config
    errors: list[str] = []
    fields = _settings_fields(ctx, config)
    try:
        fields.update(_index_model_status(ctx))
    except StoreUnavailableError:  # the corpus report below names the outage, once
        pass
    except Exception as exc:  # reported, never raised: status must always answer
        errors.append(f"the index's embedding model could not be checked: {exc}")
    errors.extend(place_problems(config, every_missing_root=True))
    report = ctx.corpus.report()
    errors.extend(report.errors)
    if config.read_only and report.store_error is None:
        errors.extend(_read_only_notes(ctx))
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
        fields["labels"] = labels_status(ctx, report.sources)
    except Exception as exc:  # reported, never raised: status must always answer
        fields["labels"] = LabelsStatus(error=f"the labels could not be counted: {exc}")
    from minirag_ingest.conversion.pictures import pictures_status
    from minirag_ingest.extras.ocr import ocr_missing

    fields["ocr"] = ocr_engine() or "unavailable"
    fields["ocr_model"] = ocr_model_state(config.index.CACHE_DIR)
    fields["ocr_hint"] = ocr_missing()
    fields["pictures"] = pictures_status(ocr_engine())  # text in embedded pictures
    watcher = ctx.watcher
    fields["watch"] = WatchOut.of(None if watcher is None else watcher.status())
    fields["errors"] = errors or None
    if report.store_error is not None:  # the counts say nothing: never "0 documents"
        fields.update(documents=None, chunks=None, stale_chunk_count=None)
        fields["store_error"] = report.store_error
    return StatusResult(**fields)


def _read_only_notes(ctx: AppContext) -> list[str]:
    """What a read-only server cannot do about its index: create a missing table, upgrade an
    older one (the store's warnings say what the writer's next sync brings up to date)."""
    index = ctx.index
    folder = index.location.local  # None on object storage, where no folder is needed
    if (folder is None or folder.is_dir()) and not index.has_table():
        return [
            f"the index at {index.db_path} holds no table yet; a read-only server never "
            "creates one: the writer's first sync does"
        ]
    try:
        index.open_table()
    except Exception:  # an index too old to read: the corpus report says so already
        return []
    return index.warnings


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

    With a label or date filter only indexed documents that match are listed. A read-only
    server lists what the index holds, without looking at the disk (the documents may not be
    on its machine)."""
    ctx.require_places()
    view = label_view(ctx, labels, date_from, date_to, sort)
    from minirag_ingest.files.scan import ScopeExcluded

    # The scope rule of query_documents and find_mentions; a scope inside a root scopes the
    # folders on disk too, any other (a URL, data ids) is a prefix of source ids.
    scope_text, scope_path = scope_and_folder(ctx, scope)
    try:
        listing = ctx.corpus.list_files(scope_text, scope_path, on_disk=not ctx.read_only)
    except ScopeExcluded as exc:
        raise OperationError(str(exc)) from None
    listed = listing.files
    if view.on:
        apply_label_filter(ctx, view, listing.indexed)
        listed = filtering.select(view, listed, lambda row: row.info, by_date=sort == "date")
    return ListResult(
        files=[_file_row(ctx, row, view.on) for row in listed],
        **filter_fields(view),
        ignored=listing.ignored or None,
        unlisted_folders=[
            UnlistedOut(path=to_id(u.path), reason=u.message) for u in listing.unlisted
        ]
        or None,
    )


def _file_row(ctx: AppContext, row: ListedFile, labels_on: bool) -> FileRow:
    """One listed file as list_files shows it (its labels while labels are on)."""
    extra = label_fields(row.info) if labels_on and row.info is not None else {}
    return FileRow(
        path=row.path,
        source=row.source,
        display_path=row.source if row.source is not None else ctx.display_path(row.path or ""),
        state=row.state,
        chunks=row.chunks,
        title=row.title,
        ocr_engine=row.ocr_engine,
        source_type=row.source_type,
        **extra,
    )
