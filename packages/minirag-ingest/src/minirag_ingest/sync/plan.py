"""The sync rule: what becomes of each file on disk and each file source in the index.

:func:`plan` is the whole decision, and touches neither the disk nor the index: the caller
hands it what the scan found, what the index holds, which indexed files are still on disk, and
a function that hashes a file. :mod:`minirag_ingest.sync.run` carries the plan out. Its predicates
(unchanged, outdated, needs OCR again) are those of :mod:`minirag_ingest.files.file_state`, which
``list_files`` reports with.

Per file on disk (each gets exactly one fate):

- not indexed: **read**, unless an indexed file that is gone has the same name, size and bytes:
  then it **moves** (its stored chunks, vectors included, are re-keyed; nothing is embedded);
- cut by an older chunking scheme, or stored twice by two racing writers: **read** - unless it
  was read with OCR and this install has none: then it is **kept unreadable** while its bytes
  are unchanged (a PDF would lose its scanned pages);
- size and mtime as stored: **skipped**;
- otherwise hashed: the same bytes are **touched** (skipped, its new size and mtime stored),
  other bytes are **read**; a file that cannot be hashed **fails**.

Per indexed file source not found by the scan:

- under a folder that could not be listed: kept, never touched;
- still on disk (a rule excludes it now): **deleted** - unless it is an image this install no
  longer scans for lack of the [ocr] extra, which is **kept unreadable**;
- gone: a possible move origin, and **deleted** unless it moves or lies under a root that is an
  empty folder (a drive not mounted, which must not empty the index).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_ingest.files.file_state import needs_ocr_again, outdated, unchanged
from minirag_ingest.files.names import id_name, to_id
from minirag_ingest.files.roots import in_scope

if TYPE_CHECKING:
    from minirag_index import SourceInfo
    from minirag_ingest.files.scan import ScannedFile, UnlistedFolder


@dataclass(frozen=True)
class Read:
    """A file to convert, chunk, embed and store."""

    file: ScannedFile
    content_hash: str | None = None  # when the plan hashed it already
    repair: bool = False  # stored twice: drop every copy before storing it again


@dataclass(frozen=True)
class Move:
    """An indexed file found again under another path: its chunks go to the new one."""

    origin: SourceInfo
    file: ScannedFile
    content_hash: str


@dataclass
class SyncPlan:
    read: list[Read] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    # Sources to remove from the index. The origin of a move is here too when it is not under
    # an empty root: a move that fails is read again from its new place, and the old entry
    # goes; a move that succeeds removes it in its own commit.
    delete: list[str] = field(default_factory=list)
    touched: list[ScannedFile] = field(default_factory=list)  # same bytes, new size or mtime
    skipped: int = 0  # files on disk left as they are (touched ones included)
    kept_unread: list[str] = field(default_factory=list)  # on disk, needs the [ocr] extra
    kept_images: list[str] = field(default_factory=list)  # indexed images no longer scanned
    failed: list[tuple[ScannedFile, str]] = field(default_factory=list)  # file, reason
    # Each folder that could not be listed, with the indexed files under it, when it is to be
    # reported as failed (a root, the scope itself, or one with something indexed under it).
    unlisted: list[tuple[UnlistedFolder, list[str]]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # the sources of the files on disk


Digest = Callable[["ScannedFile"], str]  # a file's content hash; raises OSError


def plan(
    files: Sequence[ScannedFile],
    unlisted: Sequence[UnlistedFolder],
    indexed: Mapping[str, SourceInfo],
    *,
    digest: Digest,
    on_disk: Collection[str] = frozenset(),
    unscanned_images: Collection[str] = frozenset(),
    doubled: Collection[str] = frozenset(),
    has_ocr: bool = True,
    scope: Path | None = None,
) -> SyncPlan:
    """Decide a sync. ``indexed`` holds the file sources the sync covers; ``on_disk`` those of
    them not among ``files`` that still exist, ``unscanned_images`` those of ``on_disk`` that
    are images the scan skipped for lack of OCR (and no rule excludes); ``doubled`` the sources
    stored twice; ``has_ocr`` whether this install reads with OCR."""
    result = SyncPlan(seen={f.source for f in files})
    kept_behind, emptied = _folders(result, unlisted, indexed, scope)
    new = _decide_files(result, files, indexed, digest, doubled, has_ocr)
    origins: dict[tuple[str, int], list[SourceInfo]] = {}
    for source, info in indexed.items():
        if source in result.seen or _under_any(source, kept_behind):
            continue
        protected = _under_any(source, emptied)
        if not protected and source in on_disk:
            if source in unscanned_images:
                result.kept_images.append(source)
            else:
                result.delete.append(source)  # still there but no longer scanned: excluded
            continue
        if not outdated(info) and source not in doubled:
            origins.setdefault(_move_key(id_name(source), info.size), []).append(info)
        if not protected:
            result.delete.append(source)
    _find_moves(result, new, origins, digest)
    return result


def _folders(
    result: SyncPlan,
    unlisted: Sequence[UnlistedFolder],
    indexed: Mapping[str, SourceInfo],
    scope: Path | None,
) -> tuple[list[str], list[str]]:
    """The folders whose contents are unknown: those that could not be listed (nothing under
    them is touched) and roots that are empty folders (nothing under them is deleted)."""
    kept_behind: list[str] = []
    emptied: list[str] = []
    for folder in unlisted:
        key = to_id(folder.path)
        under = sorted(s for s in indexed if in_scope(s, key))
        (emptied if folder.empty else kept_behind).append(key)
        if folder.is_root or under or (scope is not None and folder.path == scope):
            result.unlisted.append((folder, under))
    return kept_behind, emptied


def _decide_files(
    result: SyncPlan,
    files: Sequence[ScannedFile],
    indexed: Mapping[str, SourceInfo],
    digest: Digest,
    doubled: Collection[str],
    has_ocr: bool,
) -> list[ScannedFile]:
    """Decide each file on disk that is indexed; return the ones that are not."""
    new: list[ScannedFile] = []
    for file in files:
        source = file.source
        info = indexed.get(source)
        if info is None:
            new.append(file)
            continue
        reread = outdated(info) or source in doubled
        keep = reread and needs_ocr_again(info, has_ocr)
        if reread and not keep:
            result.read.append(Read(file, repair=source in doubled))
            continue
        content_hash = None
        if not unchanged(info, file.size, file.mtime):
            content_hash = _hash(result, file, digest)
            if content_hash is None:
                continue
            if content_hash != info.content_hash:
                result.read.append(Read(file, content_hash, repair=source in doubled))
                continue
            result.touched.append(file)
        if keep:
            result.kept_unread.append(source)
        else:
            result.skipped += 1
    return new


def _find_moves(
    result: SyncPlan,
    new: list[ScannedFile],
    origins: dict[tuple[str, int], list[SourceInfo]],
    digest: Digest,
) -> None:
    """Moves: a new file with the name and bytes of a gone one. The rest are read."""
    for file in new:
        candidates = origins.get(_move_key(id_name(file.source), file.size))
        if not candidates:
            result.read.append(Read(file))
            continue
        content_hash = _hash(result, file, digest)
        if content_hash is None:
            continue
        match = next((c for c in candidates if c.content_hash == content_hash), None)
        if match is None:
            result.read.append(Read(file, content_hash))
            continue
        candidates.remove(match)
        result.moves.append(Move(match, file, content_hash))


def _hash(result: SyncPlan, file: ScannedFile, digest: Digest) -> str | None:
    try:
        return digest(file)
    except OSError as exc:
        result.failed.append((file, f"could not read it: {exc.strerror or exc}"))
        return None


def _under_any(source: str, folders: list[str]) -> bool:
    return any(in_scope(source, folder) for folder in folders)


def _move_key(name: str, size: int) -> tuple[str, int]:
    return unicodedata.normalize("NFC", name), size
