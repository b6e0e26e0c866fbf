"""Watch mode's two rules, kept free of I/O: which changed paths can matter to the index, and
which one sync covers a batch of them.

A change matters when it can change what a sync does: a file with a scanned extension, a folder
(a renamed folder arrives as one event for the folder, none for the files inside it), a path
that is gone (it may have been either), and a root's ``.miniragignore`` or ``classify.toml``.
Names the scan always skips (dot-prefixed, Office lock files, ``node_modules``…) and anything
under the index folder (which a sync writes to) never matter; without that a sync would wake
the watcher that started it.

A batch is synced in one sync scoped to the deepest folder holding every changed path's
folder, so the old and the new place of a move are both inside it (a move stays a move).
Changes under more than one root make it a sync of everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from minirag_ingest.files.ignore import IGNORE_FILE_NAME
from minirag_ingest.files.roots import is_within
from minirag_ingest.files.scan import LOCK_FILE_PREFIX, SKIPPED_FOLDER_NAMES

TAXONOMY_FILE_NAME = "classify.toml"
ROOT_FILES = frozenset({IGNORE_FILE_NAME, TAXONOMY_FILE_NAME})


def owning_root(path: Path, roots: Sequence[Path]) -> Path | None:
    """The deepest root holding ``path`` (roots may nest), or None."""
    holding = [root for root in roots if is_within(path, root)]
    return max(holding, key=lambda root: len(root.parts)) if holding else None


def matters(
    path: Path,
    roots: Sequence[Path],
    extensions: frozenset[str],
    *,
    skip_under: Sequence[Path] = (),
    is_plain_file: Callable[[Path], bool],
) -> bool:
    """Whether a change at ``path`` (absolute) can change what a sync of its folder does.

    ``extensions`` are the scanned ones (lower case, with the dot); ``is_plain_file`` is asked
    only about a path whose extension is not scanned (a regular file there never matters; a
    folder or a path that is gone might)."""
    root = owning_root(path, roots)
    if root is None or any(is_within(path, folder) for folder in skip_under):
        return False
    if path == root:
        return True
    parts = path.relative_to(root).parts
    if len(parts) == 1 and parts[0] in ROOT_FILES:
        return True
    if any(_skipped(part) for part in parts):
        return False
    if path.suffix.lower() in extensions:
        return True
    return not is_plain_file(path)


def _skipped(name: str) -> bool:
    return name.startswith((".", LOCK_FILE_PREFIX)) or name in SKIPPED_FOLDER_NAMES


def sync_scope(paths: Iterable[Path], roots: Sequence[Path]) -> Path | None:
    """The folder one sync of these changed paths covers; None means every root.

    Each path stands for the folder it is in (a root stands for itself, and so do a root's
    ignore and taxonomy files, since their rules reach the whole root)."""
    folders: list[Path] = []
    owners: set[Path] = set()
    for path in paths:
        root = owning_root(path, roots)
        if root is None:
            continue
        owners.add(root)
        at_top = path == root or (path.parent == root and path.name in ROOT_FILES)
        folders.append(root if at_top else path.parent)
    if len(owners) != 1:
        return None
    common = folders[0]
    for folder in folders[1:]:
        while not is_within(folder, common):
            common = common.parent
    return common
