"""Document roots: the security boundary for every file the server reads."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePath

from minirag_index.search import in_scope
from minirag_ingest.errors import IngestError

__all__ = ["PathOutsideRoots", "Roots", "in_scope", "is_within"]


class PathOutsideRoots(IngestError, ValueError):
    """A path, or what its symlinks resolve to, lies outside every configured root."""

    def __init__(self, path: str | os.PathLike[str], roots: Iterable[Path]) -> None:
        listed = ", ".join(str(root) for root in roots)
        super().__init__(
            f"Path outside configured document roots: {path} (roots: {listed}). "
            "To index files there, add the folder to BASE_DIRS and restart."
        )
        self.path = Path(path)


def is_within(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or below it, comparing whole path components."""
    return path == folder or folder in path.parents


class Roots:
    """The configured document roots, each a resolved absolute path. Roots may nest."""

    def __init__(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        unique: list[Path] = []
        for raw in paths:
            root = Path(raw).resolve()
            if root not in unique:
                unique.append(root)
        if not unique:
            raise ValueError("at least one document root is required")
        self.paths: tuple[Path, ...] = tuple(unique)
        # Innermost first: the first root that holds a source names it (display_path).
        self._texts = sorted((str(root) for root in unique), key=len, reverse=True)

    def __iter__(self) -> Iterator[Path]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def __repr__(self) -> str:
        return f"Roots({[str(p) for p in self.paths]!r})"

    @property
    def first(self) -> Path:
        return self.paths[0]

    def roots_above(self, path: Path) -> list[Path]:
        """Every root holding ``path`` (taken as already resolved), outermost first."""
        found = [root for root in self.paths if is_within(path, root)]
        return sorted(found, key=lambda root: len(root.parts))

    def root_of(self, path: str | os.PathLike[str]) -> Path | None:
        """The innermost root holding ``path`` (compared as given, not resolved), or None."""
        above = self.roots_above(Path(path))
        return above[-1] if above else None

    def contain(self, path: str | os.PathLike[str]) -> Path:
        """Resolve ``path`` (symlinks followed) and return it if a root holds it.

        Raises :class:`PathOutsideRoots` otherwise. A relative path is taken against the
        current directory; callers that require absolute paths check that first.
        """
        real = Path(path).resolve()
        if self.roots_above(real):
            return real
        respelled = self._respell(real)
        if respelled is not None:
            return respelled
        raise PathOutsideRoots(path, self.paths)

    def _respell(self, real: Path) -> Path | None:
        """Find a root that is the same folder as an ancestor of ``real`` under another
        spelling (a case-insensitive volume, a bind mount) and rewrite ``real`` under it."""
        for ancestor in (real, *real.parents):
            for root in self.paths:
                try:
                    same = os.path.samefile(ancestor, root)
                except OSError:
                    continue
                if same:
                    return root.joinpath(*real.parts[len(ancestor.parts) :])
        return None

    def display_path(self, source: str) -> str:
        """A source as a person reads it: relative to its root with ``/`` separators.

        Sources that are not paths under a root (data and URL ids) come back unchanged.
        """
        # As text first: listing 100,000 files spent a third of its time comparing Paths.
        holder = next((text for text in self._texts if in_scope(source, text)), None)
        if holder is not None and os.path.isabs(source):
            rest = source[len(holder) :].lstrip("/" + os.sep)
            return rest.replace(os.sep, "/") if rest else PurePath(source).name or source
        path = PurePath(source)
        if not path.is_absolute():
            return source
        root = self.root_of(path)
        if root is None:
            return source
        relative = PurePath(path).relative_to(root)
        return relative.as_posix() if relative.parts else path.name or source
