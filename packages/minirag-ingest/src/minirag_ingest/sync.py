"""Reconciling the index with the document roots (or one folder or file inside them).

One pass, under the sync lock (:mod:`minirag_ingest.lock`):

1. Scan the disk (:func:`minirag_ingest.scan.scan`) and read what the index holds with one
   ``sources()`` query (plus one two-column query that spots a source stored twice).
2. Decide per file. A file whose size and mtime match what is stored is skipped without being
   read. When either differs, its content hash decides: the same bytes (a touch, a copy that kept
   its contents) are skipped and their stored size/mtime updated (one commit for all of them),
   so the next sync takes the fast path again; other bytes are read again. A source cut by an
   older chunking scheme, or stored twice by two racing writers, is read again whatever its
   bytes - except one read with OCR when this install has no OCR engine: while its bytes are
   unchanged it is kept as it is and counted as ``unreadable``, not read without its scans.
3. Moves. A new file with the same name and bytes as an indexed file that is gone from disk
   gets that file's chunks (vectors included) - nothing is read, converted or embedded again.
   Up to :data:`MOVE_BATCH` moves share one commit (old rows out, new rows in, together).
   Only files inside this sync's scope can be the old place, so a sync scoped to the new
   folder ingests the file as new and leaves the old entry for a full sync.
4. Deletions. An indexed file that is gone, or that a ``.miniragignore`` rule now excludes, is
   removed - but never one under a folder that could not be listed, a root that is an empty
   folder or a root whose ignore file is unreadable. Those folders are reported as errors naming
   the first few files kept; a root always counts as one failed item, a subfolder only when
   something indexed is under it or it was the requested scope. An indexed image that the scan
   no longer lists because the [ocr] extra is gone is kept and counted as ``unreadable``.
5. Files to read are converted and chunked one by one and embedded in batches of several
   documents (:meth:`Pipeline.store`), each source swapped in one commit. A file that fails is
   recorded in ``errors`` and the rest carry on. A file that failed to convert is remembered
   (:mod:`minirag_ingest.failures`): while it and the settings that decided it stay the same,
   later syncs report it as failed again, with its reason, without reading it.
6. Documents without a look-alike signature (an index built before signatures existed) get one
   from their stored chunk text, :data:`SIGN_BATCH` documents per read and per commit: nothing
   is read from disk or embedded again.
7. With a taxonomy file (``classify.toml``), documents not read again are labelled again from
   their stored chunk text when their labels were made under another taxonomy or at another
   path (a moved file), or when the model still owes them an answer; nothing is embedded.
   Label problems go to ``errors`` (one entry per distinct reason), never to ``failed``.
8. The keyword indexes are refreshed at the end (and every :data:`REFRESH_EVERY` stored files on
   a long sync), only when something was written.

Data and URL sources are never read, moved or deleted by a sync. A full sync (no scope) does
sign them, since that only adds a field computed from their stored text. File sources outside
every root (a root taken out of BASE_DIRS) are left as they are.

A sync killed at any point leaves every source either as it was or as it became: each swap,
move or deletion is one commit, and the next sync picks up what is left. Asked to stop (``stop``
set, as the CLI does on Ctrl-C), it finishes the commit in flight, abandons the documents
prepared but not stored yet, skips what is left and reports ``interrupted``.

An embedding model that cannot be loaded stops the reading: every file still to read is counted
as failed, and the reason (naming the model) is the report's ``error``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import unicodedata
from collections import deque
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_index import (
    IndexMismatchError,
    ModelLoadError,
    SourceDoc,
    StoredChunk,
    rebuild_document,
)
from minirag_index.filters import decode_labels
from minirag_index.scope import sql_string
from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.convert import ConversionError
from minirag_ingest.convert_pool import PoolStopped
from minirag_ingest.failures import FailureMemory, settings_key
from minirag_ingest.labels.resolve import needs_relabel, relative_path
from minirag_ingest.lock import SyncLock
from minirag_ingest.names import id_name, to_id, to_path
from minirag_ingest.no_text import NoText
from minirag_ingest.ocr import IMAGE_EXTENSIONS, OcrError
from minirag_ingest.roots import in_scope
from minirag_ingest.scan import ScannedFile, UnlistedFolder, is_excluded, scan

if TYPE_CHECKING:
    from minirag_index import SourceInfo
    from minirag_ingest.pipeline import LabelJob, Pipeline, Prepared
    from minirag_ingest.reading import FileRead

log = logging.getLogger(__name__)

BATCH_DOCS = 64  # documents whose chunks are embedded and stored together
BATCH_CHUNKS = 512  # ...or fewer documents once they hold this many chunks
MOVE_BATCH = 100  # moves committed together
SIGN_BATCH = 256  # documents signed per read and per commit
# Fold new rows into the keyword indexes this often on a long sync. Rows not folded in yet are
# still found (LanceDB scans them), only more slowly; each refresh leaves memory behind, and
# every 2,000 files instead of 500 took a 10,000-file sync from 885 to 781 MiB peak and from 27
# to 18 s with the embedding replaced by random vectors (docs/benchmarks.md).
REFRESH_EVERY = 2000
KEPT_NAMES_SHOWN = 3
STOP_POLL_SECONDS = 0.2  # how often a sync waiting on a conversion worker checks for a stop

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

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNT_NAMES}

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.counts(),
            "errors": [dict(e) for e in list(self.errors)],
            "unreadableFiles": list(self.unreadable_files),
        }

    def fail(self, path: str | os.PathLike[str], reason: str) -> None:
        self.errors.append({"path": to_id(path), "reason": reason})
        self.failed += 1


def sync(
    pipeline: Pipeline,
    scope: str | os.PathLike[str] | None = None,
    *,
    progress: ProgressCallback | None = None,
    report: SyncReport | None = None,
    lock: SyncLock | None = None,
    stop: threading.Event | None = None,
) -> SyncReport:
    """Reconcile ``pipeline.index`` with ``pipeline.roots`` (or only ``scope`` inside them).

    Takes the sync lock on the index folder for its whole run, raising
    :class:`~minirag_ingest.lock.SyncLocked` at once when another sync holds it; pass ``lock``
    (already acquired) to run under a lock the caller took. ``progress(done, total)`` is called
    as files are decided; ``report`` may be passed in to be read while the sync runs. Once
    ``stop`` is set the sync ends at the next file, with ``report.interrupted`` set.

    Raises :class:`~minirag_ingest.roots.PathOutsideRoots` or
    :class:`~minirag_ingest.scan.ScopeExcluded` for a scope it will not sync; per-file problems
    never raise, they are counted as failed and listed in ``errors``.
    """
    report = report if report is not None else SyncReport()
    if lock is not None:
        if not lock.held:
            raise RuntimeError("sync(lock=...) needs a lock that is already held")
        return _run(_Sync(pipeline, scope, progress, report, stop))
    with SyncLock(pipeline.index.store.db_path):
        return _run(_Sync(pipeline, scope, progress, report, stop))


class _Stopped(Exception):
    """Raised inside a sync pass when it was asked to stop."""


def _run(job: _Sync) -> SyncReport:
    """Run one sync pass; its labelling (and the choice model, if loaded) ends with it."""
    try:
        return job.run()
    except _Stopped:
        job.report.interrupted = True
        return job.report
    finally:
        job.labels.close()


@dataclass
class _Work:
    file: ScannedFile
    content_hash: str | None = None
    repair: bool = False  # stored twice: drop every copy before storing it again


class _Sync:
    def __init__(
        self,
        pipeline: Pipeline,
        scope: str | os.PathLike[str] | None,
        progress: ProgressCallback | None,
        report: SyncReport,
        stop: threading.Event | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.stop = stop
        self.index = pipeline.index
        self.roots = pipeline.roots
        self.scope = None if scope is None else self.roots.contain(scope)
        self.progress = progress
        self.report = report
        self.done = 0
        self.total = 0
        self.wrote = False
        self.since_refresh = 0
        # The taxonomy is read once per sync; the model is loaded by the first document that
        # needs it and released when the sync ends (see _run).
        self.labels: LabelJob = pipeline.labelling()
        self.label_errors: dict[str, dict[str, str]] = {}
        self.label_error_counts: dict[str, int] = {}
        self.batch: list[tuple[_Work, Prepared]] = []  # read, waiting to be embedded and stored
        self.batch_chunks = 0
        self.failures = FailureMemory(self.index.store.db_path, _failure_settings(pipeline))

    # -- the pass --------------------------------------------------------------------------
    def run(self) -> SyncReport:
        from minirag_ingest.pipeline import file_hash

        report = self.report
        # Another model's vectors: refuse before reading anything. A model that cannot be
        # loaded at all is left to the files that need it (model_failed counts them).
        with contextlib.suppress(ModelLoadError):
            self.index.check_model()
        extensions = sorted(getattr(self.pipeline, "extensions", ()))
        self.check_stop()
        scanned = scan(self.roots, self.scope, extra_extensions=extensions)
        self.check_stop()
        report.scanned = len(scanned.files)
        report.ignored = scanned.ignored
        self.total = len(scanned.files)
        self.tell()

        everything = self.index.store.sources()
        indexed = {
            source: info
            for source, info in everything.items()
            if info.source_type == "file" and self.covers(source)
        }
        doubled = self.stored_twice(indexed)

        # Folders whose contents are unknown: keep what is indexed there, and say so.
        kept_behind: list[str] = []  # under a folder that could not be listed: never touched
        emptied: list[str] = []  # under a root that is an empty folder: may have moved away
        for folder in scanned.unlisted:
            key = to_id(folder.path)
            under = sorted(s for s in indexed if in_scope(s, key))
            (emptied if folder.empty else kept_behind).append(key)
            if folder.is_root or under or (self.scope is not None and folder.path == self.scope):
                report.fail(folder.path, self.kept_message(folder, under))

        # Decide each file on disk.
        work: list[_Work] = []
        new: list[ScannedFile] = []
        touched: list[ScannedFile] = []
        seen: set[str] = set()
        skipped = 0
        kept_unread: list[str] = []  # read with OCR, which this install lacks
        for file in scanned.files:
            self.check_stop()
            source = file.source
            seen.add(source)
            info = indexed.get(source)
            if info is None:
                new.append(file)
                continue
            reread = info.scheme < SCHEME_VERSION or source in doubled
            # A document read with OCR is not read again without it (a PDF would lose its
            # scanned pages): unless its bytes changed, it is kept as it is, as unreadable.
            keep = reread and self.needs_ocr(info)
            if reread and not keep:
                work.append(_Work(file, repair=source in doubled))
            elif info.size == file.size and info.mtime == file.mtime:
                if keep:
                    kept_unread.append(source)
                else:
                    skipped += 1
            else:
                digest = self.hash_or_fail(file_hash, file)
                if digest is None:
                    continue
                if digest == info.content_hash:
                    touched.append(file)
                    if keep:
                        kept_unread.append(source)
                    else:
                        skipped += 1
                else:
                    work.append(_Work(file, digest, repair=source in doubled))
        report.skipped += skipped
        report.unreadable += len(kept_unread)
        report.unreadable_files.extend(kept_unread)
        self.advance(skipped + len(kept_unread))

        # Indexed files no longer found where they were.
        origins: dict[tuple[str, int], list[SourceInfo]] = {}
        doomed: list[str] = []
        for source, info in indexed.items():
            if source in seen or _under_any(source, kept_behind):
                continue
            protected = _under_any(source, emptied)
            if not protected and os.path.lexists(to_path(source)):
                if self.unreadable_here(source):
                    report.unreadable += 1
                    report.unreadable_files.append(source)
                    continue
                doomed.append(source)  # still there but no longer scanned: excluded now
                continue
            if info.scheme >= SCHEME_VERSION and source not in doubled:
                origins.setdefault(_move_key(id_name(source), info.size), []).append(info)
            if not protected:
                doomed.append(source)

        # Moves: same name and bytes, old place gone. Nothing read or embedded again.
        planned: list[tuple[SourceInfo, ScannedFile, str]] = []
        for file in new:
            candidates = origins.get(_move_key(id_name(file.source), file.size))
            if not candidates:
                work.append(_Work(file))
                continue
            digest = self.hash_or_fail(file_hash, file)
            if digest is None:
                continue
            match = next((c for c in candidates if c.content_hash == digest), None)
            if match is None:
                work.append(_Work(file, digest))
                continue
            candidates.remove(match)
            planned.append((match, file, digest))
        moved_from: dict[str, str] = {}
        for start in range(0, len(planned), MOVE_BATCH):
            self.check_stop()
            done, failed = self.move_batch(planned[start : start + MOVE_BATCH])
            moved_from.update(done)
            work.extend(_Work(file, digest) for file, digest in failed)

        moved_away = set(moved_from.values())
        for source in doomed:
            if source in moved_away:
                continue
            self.check_stop()
            try:
                self.index.store.delete_source(source)
            except Exception as exc:
                report.fail(source, f"could not remove it from the index: {_describe(exc)}")
                continue
            report.deleted += 1
            self.wrote = True

        self.remember_stats(touched)

        # Which documents to sign afterwards (those read again get a signature anyway).
        rereading = {w.file.source for w in work}
        gone = set(doomed) | moved_away
        unsigned = [
            source
            for source, info in (everything if self.scope is None else indexed).items()
            if info.signature is None
            and source not in rereading
            and source not in gone
            and (info.source_type != "file" or self.covers(source))
        ]
        unsigned += [to for to, old in moved_from.items() if everything[old].signature is None]
        self.total += len(unsigned)
        self.tell()

        self.read_again(work)
        self.sign(unsigned)
        kept = [
            (source, info)
            for source, info in (everything if self.scope is None else indexed).items()
            if source not in rereading
            and source not in gone
            and (info.source_type != "file" or self.covers(source))
        ]
        self.relabel(kept + [(to, everything[old]) for to, old in moved_from.items()])
        self.failures.keep_only(seen, self.covers)
        self.failures.save()
        if self.wrote:
            self.pipeline.refresh()
        return report

    # -- pieces ----------------------------------------------------------------------------
    def covers(self, source: str) -> bool:
        if self.scope is not None:
            return in_scope(source, to_id(self.scope))
        return any(in_scope(source, to_id(root)) for root in self.roots)

    def stored_twice(self, indexed: dict[str, SourceInfo]) -> set[str]:
        """Sources holding more rows than distinct chunk numbers: two writers stored them."""
        if not indexed:
            return set()
        table = self.index.store.column_table(["source", "chunk_index"], "source_type = 'file'")
        if table is None or table.num_rows == 0:
            return set()
        grouped = table.group_by("source").aggregate(
            [("chunk_index", "count"), ("chunk_index", "count_distinct")]
        )
        sources = grouped.column("source").to_pylist()
        rows = grouped.column("chunk_index_count").to_pylist()
        distinct = grouped.column("chunk_index_count_distinct").to_pylist()
        return {
            s for s, n, d in zip(sources, rows, distinct, strict=True) if n != d and s in indexed
        }

    def remember_stats(self, touched: list[ScannedFile]) -> None:
        """Store the new size/mtime of files whose bytes did not change, in one commit, so
        the next sync skips them without hashing."""
        if not touched:
            return
        stats = [(f.source, f.size, f.mtime) for f in touched]
        try:
            self.index.store.set_file_stats(stats)
        except Exception as exc:  # only costs a hash next time
            log.warning(
                "could not store the new mtime of %d unchanged files: %s", len(touched), exc
            )
            return
        self.wrote = True

    def needs_ocr(self, info: SourceInfo) -> bool:
        """A source read with OCR, on a pipeline that has no OCR engine (the extra is gone)."""
        return bool(getattr(info, "ocr_engine", "")) and getattr(self.pipeline, "ocr", None) is None

    def unreadable_here(self, source: str) -> bool:
        """An indexed image this install no longer scans (the [ocr] extra is gone): kept as it
        is rather than deleted, unless a rule now excludes it."""
        suffix = Path(source).suffix.lower()
        if suffix not in IMAGE_EXTENSIONS or suffix in getattr(self.pipeline, "extensions", ()):
            return False
        try:
            return is_excluded(to_path(source), self.roots) is None
        except (OSError, ValueError):
            return True  # cannot tell: keep it

    def kept_message(self, folder: UnlistedFolder, kept: list[str]) -> str:
        if not kept:
            return f"{folder.message}; nothing indexed under it"
        names = ", ".join(self.roots.display_path(s) for s in kept[:KEPT_NAMES_SHOWN])
        more = len(kept) - KEPT_NAMES_SHOWN
        tail = f" and {more} more" if more > 0 else ""
        files = "file" if len(kept) == 1 else "files"
        return f"{folder.message}; kept the {len(kept)} indexed {files} under it: {names}{tail}"

    def hash_or_fail(self, file_hash: Callable[[Path], str], file: ScannedFile) -> str | None:
        try:
            return file_hash(file.real)
        except OSError as exc:
            self.report.fail(file.path, f"could not read it: {exc.strerror or exc}")
            self.advance(1)
            return None

    def move_batch(
        self, batch: list[tuple[SourceInfo, ScannedFile, str]]
    ) -> tuple[dict[str, str], list[tuple[ScannedFile, str]]]:
        """Give each old source's chunks (vectors included) to its new path.

        The whole batch is one commit: the rows are re-keyed under their new path and the old
        rows dropped by the same ``merge_insert``. Should that fail, each file is moved on its
        own (:meth:`Store.move_source`, one commit each). Returns new → old for every file
        moved, and the files that could not be moved (they are read again instead).
        """
        if not batch:
            return {}, []
        try:
            self.commit_moves(batch)
        except Exception as exc:
            log.warning("moving %d files in one commit failed (%s); one by one", len(batch), exc)
        else:
            self.report.moved += len(batch)
            self.wrote = True
            self.advance(len(batch))
            return {file.source: origin.source for origin, file, _ in batch}, []
        moved: dict[str, str] = {}
        failed: list[tuple[ScannedFile, str]] = []
        for origin, file, digest in batch:
            doc = SourceDoc(
                source=file.source,
                source_type="file",
                content_hash=digest,
                size=file.size,
                mtime=file.mtime,
            )
            try:
                self.index.store.move_source(origin.source, doc)
            except Exception as exc:
                log.warning("moving %s failed, reading it again: %s", origin.source, exc)
                failed.append((file, digest))
                continue
            moved[doc.source] = origin.source
            self.report.moved += 1
            self.wrote = True
            self.advance(1)
        return moved, failed

    def commit_moves(self, batch: list[tuple[SourceInfo, ScannedFile, str]]) -> None:
        self.index.store.move_sources(
            {
                origin.source: SourceDoc(
                    source=file.source, content_hash=digest, size=file.size, mtime=file.mtime
                )
                for origin, file, digest in batch
            }
        )

    def read_again(self, work: list[_Work]) -> None:
        """Convert, chunk, embed and store ``work``, a batch of documents per commit. With
        conversion workers, the next few files are handed to them while this thread chunks and
        embeds the current one.

        Stopping abandons the documents prepared since the last commit (nothing of them is
        written); an embedding model that cannot be loaded fails every file not stored yet."""
        ahead = getattr(self.pipeline, "read_ahead", 0)
        reading: deque[tuple[_Work, Future[FileRead] | None]] = deque()
        queued = iter(work)
        left = len(work)  # files not taken up yet
        try:
            while True:
                while len(reading) <= ahead and (item := next(queued, None)) is not None:
                    remembered = self.remembered_failure(item)
                    if remembered is not None:  # failed last time, nothing changed: not read
                        left -= 1
                        self.report.fail(item.file.path, remembered)
                        self.advance(1)
                        continue
                    started = (
                        self.pipeline.start_reading(item.file.path, item.content_hash)
                        if ahead
                        else None
                    )
                    reading.append((item, started))
                if not reading:
                    break
                self.check_stop()
                left -= 1
                if not self.read_one(*reading.popleft(), left):
                    return
            if self.batch:
                batch, self.batch, self.batch_chunks = self.batch, [], 0
                self.store_or_fail(batch, 0)
        finally:
            for _, started in reading:  # the sync stopped early: nobody wants these now
                if started is not None:
                    started.cancel()

    def read_one(self, item: _Work, started: Future[FileRead] | None, left: int) -> bool:
        """Prepare one file and store the batch once it is full; False when the embedding
        model failed (``left`` is how many files come after this one)."""
        more: dict[str, Future[FileRead]] = {}
        if started is not None:
            self.wait_for(started)
            more["reading"] = started
        try:
            prepared = self.pipeline.prepare_file(
                item.file.path, content_hash=item.content_hash, labels=self.labels, **more
            )
        except ConversionError as exc:
            if isinstance(exc, PoolStopped):
                self.check_stop()  # the workers were stopped because the sync is stopping
            self.report.fail(item.file.path, exc.reason)
            self.remember_failure(item, exc)
            if isinstance(exc, NoText):
                self.drop_stale_entry(item)
            self.advance(1)
            return True
        except IndexMismatchError:
            raise
        except ModelLoadError as exc:
            self.model_failed(exc, len(self.batch) + left + 1)
            return False
        except Exception as exc:
            self.report.fail(item.file.path, _describe(exc))
            self.advance(1)
            return True
        self.failures.forget(item.file.source)
        self.batch.append((item, prepared))
        self.batch_chunks += len(prepared.chunks)
        if len(self.batch) >= BATCH_DOCS or self.batch_chunks >= BATCH_CHUNKS:
            batch, self.batch, self.batch_chunks = self.batch, [], 0
            return self.store_or_fail(batch, left)
        return True

    def store_or_fail(self, batch: list[tuple[_Work, Prepared]], left: int) -> bool:
        """Store ``batch``; False when the model failed (the batch and ``left`` more files are
        then counted as failed)."""
        self.check_stop()
        try:
            self.store(batch)
        except ModelLoadError as exc:
            self.model_failed(exc, len(batch) + left)
            return False
        return True

    def model_failed(self, exc: ModelLoadError, files: int) -> None:
        """The embedding model cannot be loaded: the ``files`` not stored yet all fail, with one
        entry naming the model rather than the same reason once per file."""
        embedder = getattr(self.index, "embedder", None)
        named = getattr(embedder, "local_folder", None) or getattr(embedder, "model_name", "")
        model = str(named or "the embedding model")
        report = self.report
        report.error = str(exc)
        report.failed += files
        noun = "file" if files == 1 else "files"
        report.errors.append({"path": model, "reason": f"{files} {noun} not read: {exc}"})
        self.advance(files)

    def remembered_failure(self, item: _Work) -> str | None:
        """Why this file failed to convert last time, if it is still the same file."""
        from minirag_ingest.pipeline import file_hash

        def digest() -> str | None:
            if item.content_hash:
                return item.content_hash
            try:
                return file_hash(item.file.real)
            except OSError:
                return None

        file = item.file
        return self.failures.recall(file.source, file.size, file.mtime, digest)

    def drop_stale_entry(self, item: _Work) -> None:
        """A file that converts to no text keeps no entry from an earlier reading (such as a
        title-only document from before that was a failure); one that fails otherwise keeps
        what was indexed, since the next attempt may read it again."""
        source = item.file.source
        try:
            if self.index.store.delete_source(source):
                self.wrote = True
        except Exception as exc:  # it is reported as failed either way
            log.warning("could not remove the earlier entry of %s: %s", source, exc)

    def remember_failure(self, item: _Work, exc: ConversionError) -> None:
        """Remember a conversion failure. One from not being able to read the file, or from
        the OCR engine itself (a model download that failed), is not: it may pass."""
        from minirag_ingest.pipeline import file_hash

        if isinstance(exc.__cause__, (OSError, OcrError)):
            return
        try:
            digest = item.content_hash or file_hash(item.file.real)
        except OSError:
            return
        file = item.file
        self.failures.remember(file.source, file.size, file.mtime, digest, exc.reason)

    def store(self, batch: list[tuple[_Work, Prepared]]) -> None:
        for item, _ in batch:
            if item.repair:
                self.index.store.delete_source(item.file.source)
        for item, prepared in batch:
            self.label_problems(item.file.source, prepared.label_problems)

        def embedded(done: int, total: int) -> None:
            self.report.embedding = (done, total)
            self.tell()

        try:
            stored = len(self.pipeline.store([prepared for _, prepared in batch], embedded))
        except (IndexMismatchError, ModelLoadError):
            raise
        except Exception as exc:
            log.warning("storing a batch failed (%s); storing its documents one by one", exc)
            stored = 0
            for item, prepared in batch:
                try:
                    self.pipeline.store([prepared])
                    stored += 1
                except (IndexMismatchError, ModelLoadError):
                    raise
                except Exception as single:
                    self.report.fail(item.file.path, f"could not store it: {_describe(single)}")
        finally:
            self.report.embedding = None
        self.report.ingested += stored
        self.wrote = True
        self.advance(len(batch))
        self.since_refresh += stored
        if self.since_refresh >= REFRESH_EVERY:
            self.pipeline.refresh()
            self.since_refresh = 0

    def sign(self, sources: list[str]) -> None:
        """Give documents a look-alike signature from their stored chunk text, a batch of
        sources per read and per commit; nothing is read from disk or embedded."""
        for start in range(0, len(sources), SIGN_BATCH):
            self.check_stop()
            group = sources[start : start + SIGN_BATCH]
            try:
                self.sign_batch(group)
            except Exception as exc:
                log.warning("signing %d documents in one commit failed (%s)", len(group), exc)
                for source in group:
                    self.sign_one(source)
            self.advance(len(group))

    def sign_batch(self, group: list[str]) -> None:
        where = "source IN (" + ", ".join(sql_string(s) for s in group) + ")"
        by_source: dict[str, list[StoredChunk]] = {}
        for chunk in self.index.store.chunks(where):
            by_source.setdefault(chunk.source, []).append(chunk)
        signatures = {
            source: self.pipeline.signature_for(rebuild_document(chunks))
            for source, chunks in by_source.items()
        }
        signed = {s: sig for s, sig in signatures.items() if sig is not None}
        if not signed:
            return
        self.index.store.set_signatures(signed)
        self.report.signed += len(signed)
        self.wrote = True

    def sign_one(self, source: str) -> None:
        try:
            chunks = self.index.source_chunks(source)
            signature = self.pipeline.signature_for(rebuild_document(chunks)) if chunks else None
            if signature is not None:
                self.index.store.update_source_fields(source, {"signature": signature})
                self.report.signed += 1
                self.wrote = True
        except Exception as exc:  # a missing signature costs look-alikes, nothing else
            log.warning("could not sign %s: %s", source, exc)

    # -- labels ----------------------------------------------------------------------------
    def relabel(self, candidates: list[tuple[str, SourceInfo]]) -> None:
        """Label again, from the stored chunk text, every document whose labels were made under
        another taxonomy or at another path, or that the model still owes an answer. Nothing is
        read from disk or embedded; a label problem is reported, never a failed file."""
        labels = self.labels
        if labels.error is not None:
            path = str(self.pipeline.taxonomy.path) if self.pipeline.taxonomy else ""
            self.report.errors.append(
                {"path": path, "reason": f"labels not updated: {labels.error}"}
            )
            return
        taxonomy = labels.taxonomy
        if taxonomy is None:
            return
        due = [
            (source, info, rel)
            for source, info in candidates
            if needs_relabel(info.labels, taxonomy, rel := self.rel_path(source, info))
        ]
        if not due:
            return
        self.total += len(due)
        self.tell()
        fingerprint = taxonomy.fingerprint()
        for source, info, rel in due:
            self.check_stop()
            try:
                stored = decode_labels(info.labels)
                broken = labels.session.problem if labels.session is not None else None
                if (
                    broken is not None
                    and stored is not None
                    and stored.taxonomy == fingerprint
                    and stored.at == rel
                ):
                    # Only the model owes it an answer, and the model already failed this sync.
                    self.label_problems(source, [f"{name}: {broken}" for name in stored.pending])
                    continue
                text = self.index.read_document(source)
                if text is None:
                    continue
                name = Path(source).name if info.source_type == "file" else None
                doc = SourceDoc(source=source, labels=info.labels)
                doc, _, problems = labels.label(doc, text, rel, name)
                self.label_problems(source, problems)
                if doc.labels != info.labels:
                    self.index.store.update_source_fields(source, {"labels": doc.labels})
                    self.report.relabelled += 1
                    self.wrote = True
            except Exception as exc:  # labels are worth a warning, never a failed sync
                log.warning("could not re-label %s: %s", source, exc)
                self.report.errors.append(
                    {"path": source, "reason": f"could not re-label it: {_describe(exc)}"}
                )
            finally:
                self.advance(1)

    def rel_path(self, source: str, info: SourceInfo) -> str | None:
        if info.source_type != "file":
            return None
        return relative_path(source, self.roots)

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
        if self.stop is not None and self.stop.is_set():
            raise _Stopped

    def wait_for(self, reading: Future[FileRead]) -> None:
        """Wait for a worker's conversion, stopping as soon as the sync is asked to (the
        worker finishes that one file on its own, within its time limit)."""
        while not reading.done():
            self.check_stop()
            futures.wait([reading], timeout=STOP_POLL_SECONDS)

    def advance(self, files: int) -> None:
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


def _under_any(source: str, folders: list[str]) -> bool:
    return any(in_scope(source, folder) for folder in folders)


def _move_key(name: str, size: int) -> tuple[str, int]:
    return unicodedata.normalize("NFC", name), size


def _describe(exc: BaseException) -> str:
    message = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {message}"[:300]
