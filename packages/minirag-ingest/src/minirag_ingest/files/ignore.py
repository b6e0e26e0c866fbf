"""The ``.miniragignore`` rules of the roots: reading and parsing them (gitignore syntax,
relative to the root holding the file, compared case-insensitively and across Unicode
composition) and asking whether they exclude a path. :mod:`minirag_ingest.files.scan` applies
them during its walk."""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pathspec

from minirag_ingest.errors import IngestError
from minirag_ingest.files.roots import Roots

IGNORE_FILE_NAME = ".miniragignore"


class IgnoreFileUnreadable(IngestError, OSError):
    """A ``.miniragignore`` exists but cannot be read, so nothing under its root can be judged."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"ignore file {path} exists but cannot be read ({why})")
        self.path = path
        self.why = why


def fold(text: str) -> str:
    """Case- and composition-insensitive form used on both rules and paths."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())


@dataclass(frozen=True)
class IgnoreRules:
    """The parsed ``.miniragignore`` of one root."""

    root: Path
    file: Path
    lines: tuple[str, ...]
    spec: pathspec.GitIgnoreSpec

    @property
    def count(self) -> int:
        return sum(1 for pattern in self.spec.patterns if pattern.include is not None)

    def match(self, folded_relative: str) -> str | None:
        """The rule line excluding ``folded_relative`` (a folded, ``/``-separated path under
        the root; folders end with ``/``), or None when it is not excluded."""
        result = self.spec.check_file(folded_relative)
        if result.include and result.index is not None:
            return self.lines[result.index].strip()
        return None


def parse_rules(root: Path, file: Path, text: str) -> IgnoreRules:
    lines = tuple(text.splitlines())
    spec = pathspec.GitIgnoreSpec.from_lines([fold(line) for line in lines])
    return IgnoreRules(root=root, file=file, lines=lines, spec=spec)


def load_rules(root: Path) -> IgnoreRules | None:
    """Read ``<root>/.miniragignore``; None when there is none.

    Raises :class:`IgnoreFileUnreadable` when the name exists but yields no rules we can
    trust: a broken link, a folder, bad permissions or text that is not UTF-8.
    """
    file = root / IGNORE_FILE_NAME
    try:
        os.lstat(file)
    except (FileNotFoundError, NotADirectoryError):
        return None  # no ignore file, or the root is not a folder (reported by the walk)
    except OSError as exc:
        raise IgnoreFileUnreadable(file, exc.strerror or str(exc)) from exc
    try:
        data = file.read_bytes()
    except FileNotFoundError as exc:
        raise IgnoreFileUnreadable(file, "it is a broken link") from exc
    except IsADirectoryError as exc:
        raise IgnoreFileUnreadable(file, "it is a folder, not a file") from exc
    except OSError as exc:
        raise IgnoreFileUnreadable(file, exc.strerror or str(exc)) from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IgnoreFileUnreadable(file, "it is not valid UTF-8 text") from exc
    return parse_rules(root, file, text)


# A rule context: the rules of one root plus the folded relative prefix of the folder being
# walked (ending in "/", or "" at the root itself).
RuleContext = tuple[IgnoreRules, str]


def contexts_for(
    real: Path, rules: dict[Path, IgnoreRules | None], roots: Roots
) -> list[RuleContext]:
    """Rule contexts for a folder at resolved path ``real`` from every root above it."""
    contexts: list[RuleContext] = []
    for root in roots.roots_above(real):
        root_rules = rules.get(root)
        if root_rules is None:
            continue
        relative = real.relative_to(root).as_posix()
        contexts.append((root_rules, "" if relative == "." else fold(relative) + "/"))
    return contexts


def excluded_by(contexts: list[RuleContext], folded_name: str, is_dir: bool) -> IgnoreRules | None:
    suffix = "/" if is_dir else ""
    for root_rules, prefix in contexts:
        if root_rules.match(prefix + folded_name + suffix) is not None:
            return root_rules
    return None


def rule_excluding(root_rules: IgnoreRules, real: Path, is_dir: bool) -> str | None:
    """The rule excluding ``real`` or any folder between it and the root (git semantics:
    a file inside an excluded folder cannot be re-included)."""
    parts = real.relative_to(root_rules.root).parts
    prefix = ""
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        candidate = prefix + fold(part) + ("/" if is_dir or not last else "")
        rule = root_rules.match(candidate)
        if rule is not None:
            return rule
        prefix += fold(part) + "/"
    return None


def load_all(roots: Roots) -> tuple[dict[Path, IgnoreRules | None], dict[Path, str]]:
    """Rules per root, and the roots whose scan must stop because rules above are unreadable."""
    rules: dict[Path, IgnoreRules | None] = {}
    unreadable: dict[Path, str] = {}
    for root in roots:
        try:
            rules[root] = load_rules(root)
        except IgnoreFileUnreadable as exc:
            rules[root] = None
            unreadable[root] = str(exc)
    blocked: dict[Path, str] = {}
    for root in roots:
        for above in roots.roots_above(root):
            if above in unreadable:
                blocked[root] = unreadable[above]
                break
    return rules, blocked


def is_excluded(path: str | os.PathLike[str], roots: Roots) -> str | None:
    """The ignore file whose rules exclude ``path`` (as given, and as its symlinks resolve),
    or None. Raises :class:`IgnoreFileUnreadable` when a root above it has an unreadable
    ignore file: exclusion cannot then be ruled out."""
    given = Path(os.path.abspath(path))
    real = roots.contain(path)
    is_dir = real.is_dir()
    for candidate in dict.fromkeys((given, real)):
        for root in roots.roots_above(candidate):
            root_rules = load_rules(root)
            if root_rules is not None and rule_excluding(root_rules, candidate, is_dir):
                return str(root_rules.file)
    return None
