"""Walking the document roots: which files belong to the corpus.

Rules, in order: hidden names (dot-prefixed), Office lock files (``~$…``), ``node_modules``,
``__pycache__`` and virtualenvs are always skipped; then the ``.miniragignore`` at the top of
every root holding a path applies (gitignore syntax, relative to that root, compared
case-insensitively and across Unicode composition: :mod:`minirag_ingest.files.ignore`); then the
extension whitelist.

Symlinks are judged by where they point: a target outside every root is skipped silently, a
target a rule excludes is left out (and counted), anything else is listed under the link's path.

The walk uses :func:`os.scandir` and keeps paths as strings until it emits a file, so a tree of
tens of thousands of files scans in a fraction of a second.
"""

from __future__ import annotations

import functools
import os
import stat as stat_module
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from minirag_ingest.errors import IngestError
from minirag_ingest.files.formats import SUPPORTED_EXTENSIONS
from minirag_ingest.files.ignore import (
    IGNORE_FILE_NAME,
    IgnoreFileUnreadable,
    IgnoreRules,
    RuleContext,
    contexts_for,
    excluded_by,
    fold,
    is_excluded,
    load_all,
    load_rules,
    rule_excluding,
)
from minirag_ingest.files.names import to_id
from minirag_ingest.files.roots import Roots, is_within

SKIPPED_FOLDER_NAMES = frozenset({"node_modules", "__pycache__", "venv", ".venv"})
VENV_MARKER = "pyvenv.cfg"
LOCK_FILE_PREFIX = "~$"

# The ignore rules live in minirag_ingest.files.ignore; these names are also importable from here.
__all__ = [
    "IGNORE_FILE_NAME",
    "LOCK_FILE_PREFIX",
    "SKIPPED_FOLDER_NAMES",
    "IgnoreFileInfo",
    "IgnoreFileUnreadable",
    "ScanResult",
    "ScannedFile",
    "ScopeExcluded",
    "UnlistedFolder",
    "is_excluded",
    "load_rules",
    "scan",
]


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScannedFile:
    """A file the scan found, with its size and mtime.

    Its paths are kept as the strings the scan listed, and made ``Path`` objects only when
    asked for: a no-op sync over 100,000 files compares sizes and times, and building a
    ``Path`` for each file was half of its scan (docs/benchmarks.md, the no-op sync)."""

    location: str  # where the file was found (a link's own path for a symlink), absolute
    real_location: str  # the file that will actually be read
    size: int
    mtime: float

    @functools.cached_property
    def path(self) -> Path:
        return Path(self.location)

    @functools.cached_property
    def real(self) -> Path:
        return self.path if self.real_location == self.location else Path(self.real_location)

    @functools.cached_property
    def source(self) -> str:
        """The source id the file is indexed under (:func:`minirag_ingest.files.names.to_id`)."""
        return to_id(self.location)


@dataclass(frozen=True)
class UnlistedFolder:
    """A folder whose contents are unknown this time; callers must keep what is indexed there."""

    path: Path
    reason: str
    is_root: bool
    empty: bool = False  # a root that listed fine but held nothing

    @property
    def message(self) -> str:
        kind = "root" if self.is_root else "folder"
        if self.empty:
            return f"{kind} {self.path} is an empty folder"
        return f"could not list {kind} {self.path}: {self.reason}"


@dataclass(frozen=True)
class IgnoreFileInfo:
    path: Path
    rules: int


@dataclass
class ScanResult:
    files: list[ScannedFile] = field(default_factory=list)
    ignored: int = 0
    unlisted: list[UnlistedFolder] = field(default_factory=list)
    ignore_files: list[IgnoreFileInfo] = field(default_factory=list)


class ScopeExcluded(IngestError, ValueError):
    """The scope itself is something the scan would never enter."""

    def __init__(self, scope: Path, reason: str, rule_file: Path | None = None) -> None:
        super().__init__(f"Scope {scope} is excluded from the index: {reason}")
        self.scope = scope
        self.rule_file = rule_file


def _skipped_name(name: str, is_dir: bool) -> bool:
    if name.startswith("."):
        return True
    if is_dir:
        return name in SKIPPED_FOLDER_NAMES
    return name.startswith(LOCK_FILE_PREFIX)


def _normalise_extensions(extra: Iterable[str]) -> frozenset[str]:
    extensions = set(SUPPORTED_EXTENSIONS)
    for ext in extra:
        ext = ext.lower()
        extensions.add(ext if ext.startswith(".") else "." + ext)
    return frozenset(extensions)


def _has_extension(name: str, extensions: frozenset[str]) -> bool:
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in extensions


# --- the walk ------------------------------------------------------------------------------


@dataclass
class _Walk:
    roots: Roots
    rules: dict[Path, IgnoreRules | None]
    blocked: dict[Path, str]  # root -> why its rules (or an enclosing root's) are unreadable
    extensions: frozenset[str]
    result: ScanResult = field(default_factory=ScanResult)
    root_strings: frozenset[str] = frozenset()

    def unlisted(self, path: str, reason: str, is_root: bool, empty: bool = False) -> None:
        self.result.unlisted.append(UnlistedFolder(Path(path), reason, is_root, empty))

    def target_contexts(self, real: str) -> list[RuleContext] | None:
        """Rule contexts for a symlink target; None when no readable rules can judge it."""
        real_path = Path(real)
        above = self.roots.roots_above(real_path)
        if not above or any(root in self.blocked for root in above):
            return None
        return contexts_for(real_path, self.rules, self.roots)

    def target_excluded(self, real: str, is_dir: bool) -> bool:
        """Whether the rules of the roots holding ``real`` exclude it or a folder above it."""
        real_path = Path(real)
        for root in self.roots.roots_above(real_path):
            root_rules = self.rules.get(root)
            if root_rules is not None and rule_excluding(root_rules, real_path, is_dir):
                return True
        return False

    def walk(self, top: str, contexts: list[RuleContext], is_root: bool) -> None:
        # Each frame: (link path, real path, rule contexts, real folders on the way down).
        stack: list[tuple[str, str, list[RuleContext], tuple[str, ...]]] = [
            (top, top, contexts, (top,))
        ]
        first = True
        while stack:
            path, real, frame_contexts, chain = stack.pop()
            self.walk_folder(path, real, frame_contexts, chain, stack, is_root and first)
            first = False

    def walk_folder(
        self,
        path: str,
        real: str,
        contexts: list[RuleContext],
        chain: tuple[str, ...],
        stack: list[tuple[str, str, list[RuleContext], tuple[str, ...]]],
        is_root: bool,
    ) -> None:
        try:
            with os.scandir(path) as listing:
                entries = list(listing)
        except OSError as exc:
            self.unlisted(path, _reason(exc), is_root)
            return
        if is_root and all(entry.name.startswith(".") for entry in entries):
            self.unlisted(path, "is an empty folder", is_root, empty=True)
            return
        if any(entry.name == VENV_MARKER for entry in entries) and not is_root:
            return
        reported = False
        for entry in entries:
            try:
                self.visit(entry, real, contexts, chain, stack)
            except OSError as exc:
                if not isinstance(exc, FileNotFoundError) and not reported:
                    self.unlisted(path, _reason(exc), is_root)
                    reported = True

    def visit(
        self,
        entry: os.DirEntry[str],
        parent_real: str,
        contexts: list[RuleContext],
        chain: tuple[str, ...],
        stack: list[tuple[str, str, list[RuleContext], tuple[str, ...]]],
    ) -> None:
        name = entry.name
        if name.startswith("."):
            return
        link = entry.is_symlink()
        kind = self.link_target(entry) if link else _plain_kind(entry, parent_real)
        if kind is None:
            return
        real, is_dir, info = kind
        if _skipped_name(name, is_dir):
            return
        if not is_dir and not _has_extension(name, self.extensions):
            return
        if is_dir and not link and real in self.root_strings:
            return  # a nested root: walked on its own, under every rule above it
        folded = fold(name)
        if excluded_by(contexts, folded, is_dir) is not None:
            self.result.ignored += 1
            return
        target_contexts: list[RuleContext] = []
        if link:
            judged = self.target_contexts(real)
            if judged is None:
                return  # under a root whose ignore file is unreadable: reported there
            if self.target_excluded(real, is_dir):
                self.result.ignored += 1
                return
            target_contexts = judged
        if is_dir:
            child_contexts = [(rules, prefix + folded + "/") for rules, prefix in contexts]
            if link:
                if _is_loop(real, chain):
                    return
                child_contexts += target_contexts  # the target's own rules keep applying
            stack.append((entry.path, real, child_contexts, (*chain, real)))
            return
        if info is None:
            info = entry.stat(follow_symlinks=False)
        where = entry.path
        self.result.files.append(
            ScannedFile(where, where if real == where else real, info.st_size, info.st_mtime)
        )

    def link_target(self, entry: os.DirEntry[str]) -> _EntryKind | None:
        """Where a symbolic link leads, when that is a folder or file inside a root."""
        real = os.path.realpath(entry.path)
        if not self.roots.roots_above(Path(real)):
            return None  # escapes every root: not part of the corpus
        try:
            info = os.stat(real)
        except OSError:
            return None  # a broken link or a link loop
        is_dir = stat_module.S_ISDIR(info.st_mode)
        if not is_dir and not stat_module.S_ISREG(info.st_mode):
            return None
        return real, is_dir, info


# An entry's real path, whether it is a folder, and its stat when already taken.
_EntryKind = tuple[str, bool, "os.stat_result | None"]


def _plain_kind(entry: os.DirEntry[str], parent_real: str) -> _EntryKind | None:
    """A folder or regular file that is not a link (anything else is skipped)."""
    is_dir = entry.is_dir(follow_symlinks=False)
    if not is_dir and not entry.is_file(follow_symlinks=False):
        return None
    return parent_real + os.sep + entry.name, is_dir, None


def _is_loop(target: str, chain: tuple[str, ...]) -> bool:
    """Following a link to ``target`` could revisit a folder already on the way down."""
    prefix = target.rstrip(os.sep) + os.sep
    return any(folder == target or folder.startswith(prefix) for folder in chain)


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such folder"
    if isinstance(exc, NotADirectoryError):
        return "not a folder"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or str(exc)


# --- public entry points -------------------------------------------------------------------


def scan(
    roots: Roots, scope: Path | None = None, extra_extensions: Iterable[str] = ()
) -> ScanResult:
    """List the corpus under ``roots`` (or only under ``scope``, a folder or file in them).

    Raises :class:`~minirag_ingest.files.roots.PathOutsideRoots` for a scope outside the roots and
    :class:`ScopeExcluded` for a scope the scan would never enter.
    """
    rules, blocked = load_all(roots)
    walk = _Walk(
        roots=roots,
        rules=rules,
        blocked=blocked,
        extensions=_normalise_extensions(extra_extensions),
        root_strings=frozenset(str(root) for root in roots),
    )
    walk.result.ignore_files = [
        IgnoreFileInfo(root_rules.file, root_rules.count)
        for root_rules in rules.values()
        if root_rules is not None
    ]
    if scope is None:
        for root in roots:
            _walk_root(walk, root)
    else:
        _scan_scope(walk, roots.contain(scope))
    walk.result.files.sort(key=lambda scanned: scanned.location)
    return walk.result


def _scan_scope(walk: _Walk, scope: Path) -> None:
    roots = walk.roots
    above = roots.roots_above(scope)
    innermost = above[-1]
    for root in above:
        if root in walk.blocked:
            walk.unlisted(str(root), walk.blocked[root], is_root=True)
            return
    try:
        info = os.stat(scope)
    except FileNotFoundError:
        if not os.path.isdir(innermost):
            walk.unlisted(str(innermost), "no such folder", is_root=True)
        return  # gone from a root that is there: callers treat its files as deleted
    except OSError as exc:
        walk.unlisted(str(scope), _reason(exc), is_root=scope == innermost)
        return
    is_dir = stat_module.S_ISDIR(info.st_mode)
    _refuse_excluded_scope(walk, scope, innermost, is_dir)
    if not is_dir:
        if _has_extension(scope.name, walk.extensions):
            where = str(scope)
            walk.result.files.append(ScannedFile(where, where, info.st_size, info.st_mtime))
        return
    walk.walk(str(scope), contexts_for(scope, walk.rules, roots), is_root=scope in roots.paths)
    for root in roots:  # nested roots below the scope are walked on their own
        if root != scope and is_within(root, scope):
            _walk_root(walk, root)


def _walk_root(walk: _Walk, root: Path) -> None:
    if root in walk.blocked:
        walk.unlisted(str(root), walk.blocked[root], is_root=True)
        return
    for outer in walk.roots.roots_above(root)[:-1]:
        outer_rules = walk.rules.get(outer)
        if outer_rules is not None and rule_excluding(outer_rules, root, is_dir=True):
            walk.result.ignored += 1  # a nested root the rules of an outer root exclude
            return
    walk.walk(str(root), contexts_for(root, walk.rules, walk.roots), is_root=True)


def _refuse_excluded_scope(walk: _Walk, scope: Path, innermost: Path, is_dir: bool) -> None:
    parts = scope.relative_to(innermost).parts
    folder = innermost
    for index, part in enumerate(parts):
        folder = folder / part
        part_is_dir = is_dir or index < len(parts) - 1
        if _skipped_name(part, part_is_dir) or (part_is_dir and _is_venv(folder)):
            raise ScopeExcluded(scope, f"{folder} is a hidden or tool folder the scan skips")
    for root in walk.roots.roots_above(scope):
        root_rules = walk.rules.get(root)
        if root_rules is None:
            continue
        rule = rule_excluding(root_rules, scope, is_dir)
        if rule is not None:
            raise ScopeExcluded(
                scope, f"rule {rule!r} in {root_rules.file} excludes it", root_rules.file
            )


def _is_venv(folder: Path) -> bool:
    return (folder / VENV_MARKER).exists()
