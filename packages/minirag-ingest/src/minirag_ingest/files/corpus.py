"""The corpus as a server or a CLI sees it: its files with their state, and its health.

A :class:`Corpus` joins the index (minirag-index) and the document roots: ``list_files`` is the
scan of the roots beside the index's entries, each file in the state :func:`file_state` gives
it (the rule the sync acts on); ``report`` is what the roots' ignore files and the index hold,
for ``status``. Neither loads the embedding model. Results are plain dataclasses; the caller
shapes them into its own output.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_index.errors import StoreUnavailableError, looks_like_store_error
from minirag_ingest.files.file_state import FileState, file_state, unscanned_image
from minirag_ingest.files.names import to_id
from minirag_ingest.files.roots import in_scope

if TYPE_CHECKING:
    from minirag_index import MiniragIndex, SourceInfo
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.files.scan import IgnoreFileInfo, ScannedFile, ScanResult, UnlistedFolder


@dataclass(frozen=True)
class ListedFile:
    """One row of a listing: a file (``path``), or a data or url source (``source``)."""

    state: FileState
    chunks: int
    path: str | None = None
    source: str | None = None
    title: str | None = None
    ocr_engine: str | None = None  # a file's ("" when read without OCR)
    source_type: str | None = None  # a data or url source's
    info: SourceInfo | None = None  # its index entry, when it has one


@dataclass
class Listing:
    files: list[ListedFile]
    indexed: dict[str, SourceInfo]  # the index's entries in the listing's scope
    ignored: int = 0  # files the ignore rules kept out of the scan
    unlisted: list[UnlistedFolder] = field(default_factory=list)


@dataclass
class CorpusReport:
    """status's view of the corpus. ``errors`` say what could not be read, never raised."""

    ignore_files: list[IgnoreFileInfo] = field(default_factory=list)
    sources: dict[str, SourceInfo] = field(default_factory=dict)
    documents: int = 0
    chunks: int = 0
    stale_chunk_count: int = 0  # chunks cut by an older chunking scheme
    unsigned: int = 0  # sources without a look-alike signature
    unpaged: int = 0  # PDFs indexed before page numbers
    errors: list[str] = field(default_factory=list)
    # The store holding the index could not be reached: the counts above say nothing then.
    store_error: str | None = None


def installed_ocr() -> str | None:
    """The OCR plug-in this install offers (no engine built), or None."""
    from minirag_ingest.extras.ocr import ocr_engine_name

    return ocr_engine_name()


def scanned_extensions() -> frozenset[str]:
    """Extensions the scan adds to the base list: images, when OCR is installed."""
    if installed_ocr() is None:
        return frozenset()
    from minirag_ingest.files.formats import IMAGE_EXTENSIONS

    return IMAGE_EXTENSIONS


class Corpus:
    """The files under ``roots`` and what ``index`` holds of them."""

    def __init__(self, index: MiniragIndex, roots: Roots) -> None:
        self.index = index
        self.roots = roots

    def list_files(
        self, scope: str | None = None, scope_path: Path | None = None, *, on_disk: bool = True
    ) -> Listing:
        """Files on disk under the roots (or ``scope_path``) with their state, then indexed
        sources not found there. ``scope`` limits the index's entries by prefix; without a
        ``scope_path`` a scope that is no path (a URL, a data id) lists nothing from disk.
        Without ``on_disk`` (a reader without the documents) only what is indexed is listed,
        every entry ``indexed``.

        Raises :class:`~minirag_ingest.files.scan.ScopeExcluded` for a scope the scan never
        enters."""
        from minirag_ingest.files.scan import scan

        if not on_disk:
            indexed = self.index.sources(scope)
            rows = [_indexed_row(info) for _, info in sorted(indexed.items())]
            return Listing(files=rows, indexed=indexed)
        extensions = scanned_extensions()
        scanned: ScanResult | None = None
        if scope is None or scope_path is not None:
            scanned = scan(self.roots, scope_path, extra_extensions=extensions)
        indexed = self.index.sources(scope)
        has_ocr = bool(extensions)
        files = [self._on_disk(f, indexed, has_ocr) for f in _files(scanned)]
        seen = {row.path for row in files}
        unlisted = list(scanned.unlisted) if scanned else []
        for source, info in sorted(indexed.items()):
            if source not in seen and in_scope(source, scope):
                files.append(self._not_on_disk(info, unlisted, extensions))
        return Listing(
            files=files,
            indexed=indexed,
            ignored=scanned.ignored if scanned else 0,
            unlisted=unlisted,
        )

    def _on_disk(
        self, file: ScannedFile, indexed: dict[str, SourceInfo], has_ocr: bool
    ) -> ListedFile:
        info = indexed.get(file.source)
        state = file_state(info, file.size, file.mtime, has_ocr=has_ocr)
        if info is None:
            return ListedFile(state=state, chunks=0, path=file.source)
        return _indexed_row(info, state)

    def _not_on_disk(
        self, info: SourceInfo, unlisted: list[UnlistedFolder], extensions: Collection[str]
    ) -> ListedFile:
        source = info.source
        if info.source_type != "file":
            return _indexed_row(info)
        state: FileState = "missing"
        if any(in_scope(source, to_id(u.path)) for u in unlisted):
            state = "unlisted"
        elif unscanned_image(source, self.roots, extensions):
            state = "unreadable"
        return _indexed_row(info, state)

    def report(self) -> CorpusReport:
        """The roots' ignore files and what the index holds. Answers whatever is broken."""
        report = CorpusReport()
        self._read_ignore_files(report)
        try:
            from minirag_ingest.chunking import SCHEME_VERSION
            from minirag_ingest.conversion.pages import lacks_pages

            infos = self.index.sources()
            report.sources = infos
            report.documents = len(infos)
            report.chunks = sum(info.chunk_count for info in infos.values())
            if infos:
                report.stale_chunk_count = self.index.stale_chunk_count(SCHEME_VERSION)
            report.unsigned = sum(1 for info in infos.values() if info.signature is None)
            report.unpaged = sum(1 for info in infos.values() if lacks_pages(info))
        except Exception as exc:  # reported, never raised: status must always answer
            if looks_like_store_error(exc):  # an outage, never "0 documents"
                outage = exc if isinstance(exc, StoreUnavailableError) else None
                report.store_error = str(outage or StoreUnavailableError(self.index.db_path, exc))
                report.errors.append(report.store_error)
            else:
                report.errors.append(f"the index at {self.index.db_path} could not be read: {exc}")
        return report

    def _read_ignore_files(self, report: CorpusReport) -> None:
        from minirag_ingest.files.ignore import IgnoreFileUnreadable, load_rules
        from minirag_ingest.files.scan import IgnoreFileInfo

        for root in self.roots:
            if not root.is_dir():
                if root.exists():
                    report.errors.append(f"root {root} is not a folder that can be listed")
                continue
            try:
                rules = load_rules(root)
            except IgnoreFileUnreadable as exc:
                report.errors.append(f"{exc}; nothing under {root} is scanned until it is fixed")
                continue
            if rules is not None:
                report.ignore_files.append(IgnoreFileInfo(path=rules.file, rules=rules.count))


def _indexed_row(info: SourceInfo, state: FileState = "indexed") -> ListedFile:
    """An index entry as a listing row: a file by its path (in ``state``), a data or url item
    by its source id (always ``indexed``)."""
    if info.source_type == "file":
        return ListedFile(
            state=state,
            chunks=info.chunk_count,
            path=info.source,
            title=info.title,
            ocr_engine=info.ocr_engine or "",
            info=info,
        )
    return ListedFile(
        state="indexed",
        chunks=info.chunk_count,
        source=info.source,
        title=info.title,
        source_type=info.source_type,
        info=info,
    )


def _files(scanned: ScanResult | None) -> list[ScannedFile]:
    return [] if scanned is None else scanned.files
