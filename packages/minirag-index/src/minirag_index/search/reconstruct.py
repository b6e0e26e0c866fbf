"""Rebuilding sections and documents from their chunks.

Each chunk's ``text`` starts with ``context_chars`` characters of repeated context (a heading
breadcrumb, a table's header row, the title line) that its vector needed; ``joiner`` is what
stood between the previous chunk's body and this one in the section. Joining the bodies gives
back the section as it was cut, with every header row and breadcrumb once.

The first chunk of a section carries the section's *seam* in ``joiner`` instead: the
whitespace that stood between this section and the previous one in the document, and, for a
section that continues a table or fenced code block the 4,000-character cap cut, the section's
*frame*: the lines it must open with to stand on its own (the table's header and separator
rows, or the opening fence and the first line's indentation) and the line it must close with
(the closing fence). A frame is shown with the section (:func:`rebuild_section`) and never in
the document (:func:`rebuild_document`), which gets the document back exactly as converted.
Chunks cut before seams existed have an empty first joiner; their sections are joined by a
blank line, as they always were.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple, Protocol

#: Separates the gap, the opening and the closing of a seam. The gap is whitespace only and
#: NUL is not whitespace, so a seam without a frame is just its gap.
SEAM_MARK = "\x00"
_LEGACY_GAP = "\n\n"


class ChunkPiece(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def context_chars(self) -> int: ...
    @property
    def joiner(self) -> str: ...
    @property
    def section(self) -> int: ...


class Piece(NamedTuple):
    """What rebuilding needs of a chunk, and nothing else (a :class:`ChunkPiece`)."""

    text: str
    context_chars: int
    joiner: str
    section: int


class Seam(NamedTuple):
    gap: str
    opening: str = ""
    closing: str = ""


def make_seam(gap: str, opening: str = "", closing: str = "") -> str:
    """The joiner of a section's first chunk (see the module docstring)."""
    opening = opening.replace(SEAM_MARK, "")
    closing = closing.replace(SEAM_MARK, "")
    if not opening and not closing:
        return gap
    return f"{gap}{SEAM_MARK}{opening}{SEAM_MARK}{closing}"


def read_seam(joiner: str) -> Seam:
    gap, mark, frame = joiner.partition(SEAM_MARK)
    if not mark:
        return Seam(gap)
    opening, _, closing = frame.partition(SEAM_MARK)
    return Seam(gap, opening, closing)


def chunk_body(piece: ChunkPiece) -> str:
    return piece.text[piece.context_chars :]


def _bodies(pieces: list[ChunkPiece]) -> str:
    """The section's own slice of the document: its bodies and the joiners between them."""
    if not pieces:
        return ""
    return chunk_body(pieces[0]) + "".join(p.joiner + chunk_body(p) for p in pieces[1:])


def rebuild_section(pieces: Iterable[ChunkPiece]) -> str:
    """The section as a reader gets it, framed when it continues a cut table or code block;
    ``pieces`` are one section's chunks in chunk order."""
    pieces = list(pieces)
    if not pieces:
        return ""
    seam = read_seam(pieces[0].joiner)
    return seam.opening + _bodies(pieces) + seam.closing


def rebuild_document(pieces: Iterable[ChunkPiece]) -> str:
    """The whole document, exactly as converted (leading and trailing whitespace aside)."""
    ordered = sorted(pieces, key=lambda piece: piece.section)  # stable: chunk order kept
    return "".join(document_parts(ordered))


def document_parts(pieces: Iterable[ChunkPiece]) -> Iterator[str]:
    """The pieces :func:`rebuild_document` joins, from chunks already in (section, chunk)
    order: one chunk at a time, so a caller reading a large document need not hold its rows."""
    section: int | None = None
    for piece in pieces:
        if piece.section == section:
            yield piece.joiner
        else:
            if section is not None:
                yield read_seam(piece.joiner).gap or _LEGACY_GAP
            section = piece.section
        yield chunk_body(piece)
