"""What one sync pass shares between its steps: the report it fills in, its progress, its
labelling job, the failures it remembers, and how it stops when asked to."""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from minirag_index.search import in_any_scope
from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.conversion.pictures import PictureCounts
from minirag_ingest.errors import IngestError
from minirag_ingest.files.names import to_id
from minirag_ingest.sync.failures import FailureMemory, settings_key

if TYPE_CHECKING:
    from pathlib import Path

    from minirag_index.index import MiniragIndex
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.labels.job import LabelJob
    from minirag_ingest.sync.object_store import SideObjects

log = logging.getLogger(__name__)

COUNT_NAMES = (
    "scanned",
    "ingested",
    "skipped",
    "moved",
    "deleted",
    "relabelled",
    "signed",
    "ignored",
    "unreadable",
    "failed",
)

ProgressCallback = Callable[[int, int], None]


@dataclass
class SyncReport:
    """What a sync did. Safe to read from another thread while the sync fills it in."""

    scanned: int = 0
    ingested: int = 0
    skipped: int = 0
    moved: int = 0
    deleted: int = 0
    relabelled: int = 0  # documents re-labelled from stored text; 0 without a classify.toml
    signed: int = 0
    ignored: int = 0
    unreadable: int = 0  # indexed files this install cannot read again (images without OCR)
    failed: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    unreadable_files: list[str] = field(default_factory=list)  # the sources counted unreadable
    interrupted: bool = False  # asked to stop before the end; the next sync does the rest
    error: str | None = None  # why files could not be read at all (the embedding model)
    # (chunks embedded, chunks to embed) while a batch longer than one embedding call is
    # embedded - a single long document - else None.
    embedding: tuple[int, int] | None = None
    # Pictures embedded in the documents read with OCR: held, recognised, skipped.
    pictures: PictureCounts = field(default_factory=PictureCounts)

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNT_NAMES}

    def fail(self, path: str | os.PathLike[str], reason: str) -> None:
        self.errors.append({"path": to_id(path), "reason": reason})
        self.failed += 1


class Stopped(IngestError):
    """Raised inside a sync pass when it was asked to stop."""


@dataclass
class SyncState:
    """Everything one sync pass shares between its steps: what it works on (the pipeline, its
    index and roots, the scope), the report it fills in, its progress, its labelling job, the
    failures it remembers and how it stops when asked to.

    The steps are plain functions and small classes that take this state
    (:mod:`~minirag_ingest.sync.moves`, :mod:`~minirag_ingest.sync.reindex`,
    :mod:`~minirag_ingest.sync.upkeep`), composed by :mod:`~minirag_ingest.sync.run`.
    Build one with :meth:`start`."""

    pipeline: Pipeline
    scope: Path | None  # the folder or file synced, inside the roots; None for every root
    report: SyncReport
    progress: ProgressCallback | None
    stop: threading.Event | None
    # The taxonomy is read once per sync; the model is loaded by the first document that
    # needs it and released when the sync ends (see run._run).
    labels: LabelJob
    failures: FailureMemory
    done: int = 0  # items decided so far (files, then documents signed or labelled)
    total: int = 0  # items to decide
    wrote: bool = False  # something was committed: the keyword indexes want a refresh
    label_errors: dict[str, dict[str, str]] = field(default_factory=dict)
    label_error_counts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def start(
        cls,
        pipeline: Pipeline,
        scope: str | os.PathLike[str] | None,
        progress: ProgressCallback | None,
        report: SyncReport,
        stop: threading.Event | None = None,
    ) -> SyncState:
        """The state of a new pass over ``pipeline`` (``scope`` is checked against its roots
        first: :class:`~minirag_ingest.files.roots.PathOutsideRoots` before anything opens)."""
        contained = None if scope is None else pipeline.roots.contain(scope)
        return cls(
            pipeline=pipeline,
            scope=contained,
            report=report,
            progress=progress,
            stop=stop,
            labels=pipeline.labelling(),
            failures=FailureMemory(_failures_place(pipeline.index), _failure_settings(pipeline)),
        )

    @property
    def index(self) -> MiniragIndex:
        return self.pipeline.index

    @property
    def roots(self) -> Roots:
        return self.pipeline.roots

    def covers(self, source: str) -> bool:
        """Whether ``source`` is inside this sync's scope (every root when it has none)."""
        return self._covered(source)

    @functools.cached_property
    def _covered(self) -> Callable[[str], bool]:
        """The test of the scope, or of every root: asked for each indexed source."""
        if self.scope is not None:
            return in_any_scope([to_id(self.scope)])
        return in_any_scope(to_id(root) for root in self.roots)

    def label_problems(self, source: str, problems: tuple[str, ...] | list[str]) -> None:
        """Add a document's label problems to the report, one entry per distinct problem (a
        missing model would otherwise repeat the same reason for every document)."""
        for problem in problems:
            count = self.label_error_counts.get(problem, 0) + 1
            self.label_error_counts[problem] = count
            entry = self.label_errors.get(problem)
            if entry is None:
                entry = {"path": source, "reason": f"labelling {problem}"}
                self.label_errors[problem] = entry
                self.report.errors.append(entry)
            else:
                others = "document" if count == 2 else "documents"
                entry["reason"] = f"labelling {problem} (and {count - 1} more {others})"

    def check_stop(self) -> None:
        """Raise :class:`Stopped` once the sync was asked to stop."""
        if self.stop is not None and self.stop.is_set():
            raise Stopped

    def advance(self, files: int) -> None:
        """Count ``files`` more items decided, and tell the listener."""
        if files:
            self.done += files
            self.tell()

    def tell(self) -> None:
        if self.progress is None:
            return
        try:
            self.progress(min(self.done, self.total), self.total)
        except Exception as exc:  # a progress listener never stops a sync
            log.warning("sync progress callback failed: %s", exc)


def _failures_place(index: MiniragIndex) -> Path | SideObjects:
    """Where the failure memory lives: in the index's folder, or beside its table."""
    folder = index.location.local
    if folder is not None:
        return folder
    from minirag_ingest.sync.object_store import SideObjects

    return SideObjects(index.location, index.storage_options)


def _failure_settings(pipeline: Pipeline) -> str:
    """What decides whether a file converts, for :class:`FailureMemory`."""
    ocr = getattr(pipeline, "ocr", None)
    engine = "" if ocr is None else f"{ocr.name}:{getattr(ocr, 'lang', '')}"
    return settings_key(
        max_file_size=pipeline.settings.max_file_size,
        ocr_engine=engine,
        ocr_min_chars_per_page=getattr(pipeline, "ocr_min_chars_per_page", 0),
        extensions=getattr(pipeline, "extensions", ()),
        scheme=SCHEME_VERSION,
        convert_limits=_convert_limits(pipeline),
    )


def _convert_limits(pipeline: Pipeline) -> str:
    pool = getattr(pipeline, "pool", None)
    if pool is None:
        return ""
    return f"{pool.limits.max_memory}:{pool.limits.timeout:g}"


def describe(exc: BaseException) -> str:
    from minirag_index.errors import brief, looks_like_store_error

    if looks_like_store_error(exc):  # one line, never the object store's debug dump
        return f"{type(exc).__name__}: {brief(exc)}"[:300]
    message = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {message}"[:300]
