"""Moves in a sync: a new file with the same name and bytes as an indexed file gone from disk
gets that file's chunks (vectors included); nothing is read, converted or embedded again."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from minirag_index import SourceDoc
from minirag_ingest.sync.plan import Move, Read

if TYPE_CHECKING:
    from minirag_index.index import MiniragIndex
    from minirag_ingest.files.scan import ScannedFile
    from minirag_ingest.sync.pass_state import SyncState
    from minirag_ingest.sync.plan import SyncPlan

log = logging.getLogger(__name__)

MOVE_BATCH = 100  # moves committed together


def move(state: SyncState, decided: SyncPlan) -> dict[str, str]:
    """Carry out the plan's moves, :data:`MOVE_BATCH` a commit; a file that cannot be
    moved is read again instead (added to ``decided.read``). Returns new source → old for
    every file moved."""
    moved_from: dict[str, str] = {}
    moves = decided.moves
    for start in range(0, len(moves), MOVE_BATCH):
        state.check_stop()
        done, failed = move_batch(state, moves[start : start + MOVE_BATCH])
        moved_from.update(done)
        decided.read.extend(Read(file, digest) for file, digest in failed)
    return moved_from


def move_batch(
    state: SyncState, batch: list[Move]
) -> tuple[dict[str, str], list[tuple[ScannedFile, str]]]:
    """Give each old source's chunks (vectors included) to its new path.

    The whole batch is one commit (two in a large table): the rows are re-keyed under their
    new path and the old rows dropped. Should that fail, each file is moved on its own (one
    commit each). Returns new → old for every file moved, and the files that
    could not be moved (they are read again instead).
    """
    if not batch:
        return {}, []
    try:
        commit_moves(state.index, batch)
    except Exception as exc:
        log.warning("moving %d files in one commit failed (%s); one by one", len(batch), exc)
    else:
        state.report.moved += len(batch)
        state.wrote = True
        state.advance(len(batch))
        return {item.file.source: item.origin.source for item in batch}, []
    moved: dict[str, str] = {}
    failed: list[tuple[ScannedFile, str]] = []
    for one in batch:
        try:
            state.index.move_source(one.origin.source, moved_doc(one))
        except Exception as exc:
            log.warning("moving %s failed, reading it again: %s", one.origin.source, exc)
            failed.append((one.file, one.content_hash))
            continue
        moved[one.file.source] = one.origin.source
        state.report.moved += 1
        state.wrote = True
        state.advance(1)
    return moved, failed


def commit_moves(index: MiniragIndex, batch: list[Move]) -> None:
    """Move a whole batch in one commit."""
    index.move_sources({item.origin.source: moved_doc(item) for item in batch})


def moved_doc(move: Move) -> SourceDoc:
    """What a moved file's rows are stored under: its new path, hash, size and mtime."""
    file = move.file
    return SourceDoc(
        source=file.source,
        source_type="file",
        content_hash=move.content_hash,
        size=file.size,
        mtime=file.mtime,
    )
