"""What the carver hands the packer: a section's plan (:class:`SectionPlan`) made of
:class:`Unit` s, and the :class:`Atom` s a unit is split into so that each fits the budget."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from ._spans import LEVEL_CHARS, LEVEL_ITEMS


@dataclass(slots=True)
class Unit:
    """A structural piece of a section: the smallest thing the section cap may cut between."""

    start: int
    end: int
    kind: str  # "text" | "thead" | "row" | "code" | "codeline" | "turn"
    lead: str = ""  # context a chunk starting inside this unit needs (table header, speaker)
    level: int = LEVEL_ITEMS  # first split level to try for "text"
    block_start: bool = True  # False for rows, sentences, lines cut out of a bigger block
    head_end: int = 0  # "turn": end of the timestamp line
    group: int = 0  # "codeline": which split code block it came from
    # What a section cut by the cap needs when it starts or ends at this unit to stand on its
    # own: a table row's header and separator, a code line's opening and closing fence.
    opens: str = ""
    closes: str = ""
    # A table header, an opening fence or a heading never ends a section, and starts the
    # paragraph after it: they are packed as one (see Packer.pack).
    keep_with_next: bool = False
    keep_with_previous: bool = False  # a closing fence never starts a section


def content_anchor(text: str, one_in: int) -> bool:
    """Whether ``text`` is a preferred cut point: a stable hash of its own characters picks one
    text in ``one_in``. A cut chosen this way depends on the text at the cut alone, so an edit
    elsewhere cannot move it."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) % one_in == 0


@dataclass(slots=True)
class Atom:
    start: int
    end: int
    tokens: int  # content tokens, special tokens excluded
    lead: str = ""
    group: int = 0  # atoms of a split code block only pack with each other
    solo: bool = False  # a whole code block over the budget: a chunk of its own
    level: int = LEVEL_CHARS  # how to split it further if a real count disagrees
    paragraph: int = 0  # which of the section's paragraphs it belongs to (see Packer.pack)


@dataclass
class SectionPlan:
    units: list[Unit]
    ctx_first: str  # context of the chunk that opens the section
    ctx_rest: str  # context of every later chunk
    opening: str = ""  # the section's frame (see minirag_index.search.reconstruct): shown with it,
    closing: str = ""  # never in the document
    continued: bool = False  # a later part of a section cut by the character cap

    @property
    def start(self) -> int:
        return self.units[0].start

    @property
    def end(self) -> int:
        return self.units[-1].end
