"""The sections a search returns, read from the table and kept per table version.

A hit comes back with its whole section (its parentId's chunks). Those are read once per table
version: only the sections a search's hits need, or, in a small table, every section at the
first search of the version. In a small table each search reading its hits' sections was a
LanceDB query of its own: on XQuAD (526 chunks) it missed the kept sections in 59 of 100
questions and cost 3-5 ms each time (docs/benchmarks.md, "Search").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from minirag_index.search.scope import sql_string

if TYPE_CHECKING:
    from minirag_index.storage.schema import StoredChunk

#: Sections' chunks kept per table version before they are dropped and read again.
SECTION_CACHE_LIMIT = 5_000
#: A table of at most this many chunks has all its sections read at once (a few MB at most).
WHOLE_TABLE_SECTIONS = 2_000

Sections = dict[str, list["StoredChunk"]]


def read_missing(
    known: Sections,
    wanted: Sequence[str],
    read: Callable[[str | None], list[StoredChunk]],
    table_rows: int,
) -> None:
    """Add to ``known`` the sections of ``wanted`` it lacks, read by ``read(where)`` (None:
    every chunk); in a small table, every section once. Each section is added whole, so two
    searches filling the same ``known`` at once never double a section's chunks."""
    small = table_rows <= WHOLE_TABLE_SECTIONS
    missing = [pid for pid in wanted if pid not in known]
    if not missing or (small and known):  # a small table's sections are all there already
        return
    where = None if small else "parent_id IN (" + ", ".join(sql_string(p) for p in missing) + ")"
    if not small and len(known) > SECTION_CACHE_LIMIT:
        known.clear()
    found: Sections = {}
    for chunk in read(where):
        found.setdefault(chunk.parent_id, []).append(chunk)
    for pid, chunks in found.items():
        known.setdefault(pid, chunks)
