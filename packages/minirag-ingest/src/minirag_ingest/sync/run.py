"""Reconciling the index with the document roots (or one folder or file inside them).

One pass, under the sync lock (:mod:`minirag_ingest.sync.lock`):

1. Scan the disk (:func:`minirag_ingest.files.scan.scan`) and read what the index holds with one
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
   (:mod:`minirag_ingest.sync.failures`): while it and the settings that decided it stay the same,
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
from collections.abc import Iterable
from typing import TYPE_CHECKING

from minirag_index import ModelLoadError
from minirag_ingest.files.file_state import unscanned_image
from minirag_ingest.files.names import to_path
from minirag_ingest.files.scan import ScannedFile, UnlistedFolder, scan
from minirag_ingest.sync.lock import IndexLock, sync_lock_for
from minirag_ingest.sync.moves import MOVE_BATCH, move
from minirag_ingest.sync.pass_state import (
    COUNT_NAMES,
    ProgressCallback,
    Stopped,
    SyncReport,
    SyncState,
    describe,
)
from minirag_ingest.sync.plan import SyncPlan, plan
from minirag_ingest.sync.reindex import Reading
from minirag_ingest.sync.upkeep import relabel, sign

__all__ = ["COUNT_NAMES", "MOVE_BATCH", "ProgressCallback", "SyncReport", "sync"]

if TYPE_CHECKING:
    from minirag_index import SourceInfo
    from minirag_ingest.document.pipeline import Pipeline

log = logging.getLogger(__name__)

KEPT_NAMES_SHOWN = 3


def sync(
    pipeline: Pipeline,
    scope: str | os.PathLike[str] | None = None,
    *,
    progress: ProgressCallback | None = None,
    report: SyncReport | None = None,
    lock: IndexLock | None = None,
    stop: threading.Event | None = None,
) -> SyncReport:
    """Reconcile ``pipeline.index`` with ``pipeline.roots`` (or only ``scope`` inside them).

    Takes the sync lock on the index folder for its whole run, raising
    :class:`~minirag_ingest.sync.lock.SyncLocked` at once when another sync holds it; pass ``lock``
    (already acquired) to run under a lock the caller took. ``progress(done, total)`` is called
    as files are decided; ``report`` may be passed in to be read while the sync runs. Once
    ``stop`` is set the sync ends at the next file, with ``report.interrupted`` set.

    Raises :class:`~minirag_ingest.files.roots.PathOutsideRoots` or
    :class:`~minirag_ingest.files.scan.ScopeExcluded` for a scope it will not sync; per-file
    problems
    never raise, they are counted as failed and listed in ``errors``.
    """
    report = report if report is not None else SyncReport()
    if lock is not None:
        if not lock.held:
            raise RuntimeError("sync(lock=...) needs a lock that is already held")
        return _run(SyncState.start(pipeline, scope, progress, report, stop))
    with sync_lock_for(pipeline.index, pipeline.settings.sync_lease_seconds):
        return _run(SyncState.start(pipeline, scope, progress, report, stop))


def _run(state: SyncState) -> SyncReport:
    """Run one sync pass; its labelling (and the choice model, if loaded) ends with it."""
    try:
        return run_pass(state)
    except Stopped:
        state.report.interrupted = True
        return state.report
    finally:
        state.labels.close()


def run_pass(state: SyncState) -> SyncReport:
    """One sync pass: the plan, then its moves, deletions, reads, signatures and labels."""
    # Another model's vectors: refuse before reading anything. A model that cannot be
    # loaded at all is left to the files that need it (model_failed counts them).
    with contextlib.suppress(ModelLoadError):
        state.index.check_model()
    state.check_stop()
    extensions = sorted(state.pipeline.extensions)
    scanned = scan(state.roots, state.scope, extra_extensions=extensions)
    state.check_stop()
    state.report.scanned = len(scanned.files)
    state.report.ignored = scanned.ignored
    state.total = len(scanned.files)
    state.tell()

    everything = state.index.sources()
    indexed = {
        source: info
        for source, info in everything.items()
        if info.source_type == "file" and state.covers(source)
    }
    decided = decide(state, scanned.files, scanned.unlisted, indexed)
    count(state, decided)
    moved_from = move(state, decided)
    delete(state, (s for s in decided.delete if s not in moved_from.values()))
    remember_stats(state, decided.touched)

    # Documents read again get a signature and labels anyway; the others are kept.
    rereading = {r.file.source for r in decided.read}
    gone = set(decided.delete) | set(moved_from.values())
    kept = [
        (source, info)
        for source, info in (everything if state.scope is None else indexed).items()
        if source not in rereading
        and source not in gone
        and (info.source_type != "file" or state.covers(source))
    ]
    moved = [(to, everything[old]) for to, old in moved_from.items()]
    unsigned = [source for source, info in kept + moved if info.signature is None]
    state.total += len(unsigned)
    state.tell()

    Reading(state).read_again(decided.read)
    sign(state, unsigned)
    relabel(state, kept + moved)
    state.failures.keep_only(decided.seen, state.covers)
    state.failures.save()
    if state.wrote:
        state.pipeline.refresh()
    else:  # an index from before the summaries gains one without a write
        state.index.write_summary(only_if_missing=True)
    return state.report


def decide(
    state: SyncState,
    files: list[ScannedFile],
    unlisted: list[UnlistedFolder],
    indexed: dict[str, SourceInfo],
) -> SyncPlan:
    """The plan for these files and this part of the index (see :mod:`.plan`), with
    what it needs from the disk: which indexed files are still there, and hashes."""
    from minirag_ingest.document.pipeline import file_hash

    def digest(file: ScannedFile) -> str:
        state.check_stop()
        return file_hash(file.real)

    seen = {file.source for file in files}
    on_disk = {s for s in indexed if s not in seen and os.path.lexists(to_path(s))}
    extensions = state.pipeline.extensions
    return plan(
        files,
        unlisted,
        indexed,
        digest=digest,
        on_disk=on_disk,
        unscanned_images={s for s in on_disk if unscanned_image(s, state.roots, extensions)},
        doubled=state.index.stored_twice(indexed),
        has_ocr=state.pipeline.ocr is not None,
        scope=state.scope,
    )


def count(state: SyncState, decided: SyncPlan) -> None:
    """Report what the plan decided without any work: failures, skips, unreadables."""
    report = state.report
    for folder, under in decided.unlisted:
        report.fail(folder.path, kept_message(state, folder, under))
    for file, reason in decided.failed:
        report.fail(file.path, reason)
    report.skipped += decided.skipped
    unreadable = [*decided.kept_unread, *decided.kept_images]
    report.unreadable += len(unreadable)
    report.unreadable_files.extend(unreadable)
    state.advance(len(decided.failed) + decided.skipped + len(decided.kept_unread))


def delete(state: SyncState, sources: Iterable[str]) -> None:
    """Remove these sources from the index, one commit each."""
    for source in sources:
        state.check_stop()
        try:
            state.index.delete_source(source)
        except Exception as exc:
            state.report.fail(source, f"could not remove it from the index: {describe(exc)}")
            continue
        state.report.deleted += 1
        state.wrote = True


def remember_stats(state: SyncState, touched: list[ScannedFile]) -> None:
    """Store the new size/mtime of files whose bytes did not change, in one commit, so
    the next sync skips them without hashing."""
    if not touched:
        return
    stats = [(f.source, f.size, f.mtime) for f in touched]
    try:
        state.index.record_file_stats(stats)
    except Exception as exc:  # only costs a hash next time
        log.warning("could not store the new mtime of %d unchanged files: %s", len(touched), exc)
        return
    state.wrote = True


def kept_message(state: SyncState, folder: UnlistedFolder, kept: list[str]) -> str:
    """Why a folder that could not be listed kept its indexed files, naming the first few."""
    if not kept:
        return f"{folder.message}; nothing indexed under it"
    names = ", ".join(state.roots.display_path(s) for s in kept[:KEPT_NAMES_SHOWN])
    more = len(kept) - KEPT_NAMES_SHOWN
    tail = f" and {more} more" if more > 0 else ""
    files = "file" if len(kept) == 1 else "files"
    return f"{folder.message}; kept the {len(kept)} indexed {files} under it: {names}{tail}"
