"""Rebuilding sections and documents from their chunks.

Each chunk's ``text`` starts with ``context_chars`` characters of repeated context (a heading
breadcrumb, a table's header row, the title line) that its vector needed; ``joiner`` is what
stood between the previous chunk's body and this one in the section. Joining the bodies gives
back the section as it was cut, with every header row and breadcrumb once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class ChunkPiece(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def context_chars(self) -> int: ...
    @property
    def joiner(self) -> str: ...
    @property
    def section(self) -> int: ...


def chunk_body(piece: ChunkPiece) -> str:
    return piece.text[piece.context_chars :]


def rebuild_section(pieces: Iterable[ChunkPiece]) -> str:
    """The section's own text; ``pieces`` are one section's chunks in chunk order."""
    return "".join(p.joiner + chunk_body(p) for p in pieces)


def rebuild_document(pieces: Iterable[ChunkPiece]) -> str:
    """The whole document: its sections in order, separated by a blank line."""
    sections: dict[int, list[ChunkPiece]] = {}
    for piece in pieces:
        sections.setdefault(piece.section, []).append(piece)
    return "\n\n".join(rebuild_section(sections[s]) for s in sorted(sections))
