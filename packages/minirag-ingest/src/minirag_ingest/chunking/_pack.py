"""Packing a section's atoms into chunks (the atoms come from :mod:`._atoms`, their token
counts from :mod:`._measure`).

The expensive operation is the tokenizer call. Each atom is counted once; a chunk's size is
estimated as the sum of its atoms' counts plus its context, which is exact for whitespace-joined
pieces under both WordPiece and SentencePiece tokenizers. Only a chunk whose estimate comes
close to the budget, or that glues pieces cut inside a word, is counted for real before it is
emitted, and if that count is over, the chunk gives back atoms until it fits.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._atoms import atoms as split_atoms
from ._measure import Measure
from ._model import Chunk
from ._spans import LEVEL_CHARS, SPLITTERS
from ._units import Atom, SectionPlan, content_anchor

# How far below the budget an estimate must stay to be trusted without a real count.
_VERIFY_SLACK = 4

# A chunk at least half full ends before a paragraph whose hash picks it (one in this many),
# even if the paragraph would fit: see Packer.pack.
_CHUNK_ANCHOR_ONE_IN = 4


@dataclass(frozen=True, slots=True)
class _Piece:
    """Atoms ``[i, j)`` of a section packed into one chunk, with the chunk's context."""

    i: int
    j: int
    ctx: str
    estimate: int  # tokens of context and body, special tokens included
    body: int = 0  # tokens of the body alone


class Packer:
    """Packs a section's atoms into chunks, over the document's :class:`Measure`."""

    def __init__(self, measure: Measure) -> None:
        self.measure = measure
        self.doc = measure.doc
        self.count = measure.count
        self.budget = measure.budget
        self.overhead = measure.overhead

    def pack(self, plan: SectionPlan, section: int) -> list[Chunk]:
        """The chunks of one section, cut where nearby text alone decides.

        First each paragraph is cut on its own, from its own start, into pieces packed up to the
        budget: where a paragraph's pieces end depends on that paragraph's text alone, and a
        paragraph cut in several pieces shares a chunk with no other. Then consecutive
        paragraphs that fit whole are packed together up to the budget, except that a chunk
        already half full ends before a paragraph its hash picks (one in
        ``_CHUNK_ANCHOR_ONE_IN``): a change in one short paragraph then re-groups the short
        paragraphs after it only up to the next such cut, not to the end of the section. An edit
        re-cuts the paragraph it touched and, at most, the chunks of its short neighbours.
        """
        doc = self.doc
        atoms = split_atoms(self.measure, plan)
        pieces = self._pieces(plan, atoms)
        paragraphs: dict[int, tuple[int, int]] = {}
        for atom in atoms:
            start, _ = paragraphs.get(atom.paragraph, (atom.start, atom.end))
            paragraphs[atom.paragraph] = (start, atom.end)
        merged: list[_Piece] = []
        for piece in pieces:
            if merged and self._joins(merged[-1], piece, atoms, paragraphs):
                last = merged[-1]
                merged[-1] = _Piece(
                    last.i, piece.j, last.ctx, last.estimate + piece.body, last.body + piece.body
                )
            else:
                merged.append(piece)
        chunks: list[Chunk] = []
        for piece in merged:
            first = atoms[piece.i]
            body = doc[first.start : atoms[piece.j - 1].end]
            joiner = doc[atoms[piece.i - 1].end : first.start] if piece.i else ""
            chunks.append(Chunk(piece.ctx + body, len(piece.ctx), joiner, section))
        return chunks

    def _pieces(self, plan: SectionPlan, atoms: list[Atom]) -> list[_Piece]:
        """Each paragraph's atoms packed in order up to the budget, never past its end."""
        budget = self.budget
        pieces: list[_Piece] = []
        i = 0
        while i < len(atoms):
            first = atoms[i]
            ctx = self.measure.context(plan.ctx_first if i == 0 else plan.ctx_rest, first.lead)
            estimate = self.overhead + self.measure.cost(ctx) + first.tokens
            j = i + 1
            glued = False
            if not first.solo:
                while j < len(atoms):
                    nxt = atoms[j]
                    if (
                        nxt.paragraph != first.paragraph
                        or nxt.solo
                        or nxt.group != first.group
                        or estimate + nxt.tokens > budget
                    ):
                        break
                    if nxt.start == atoms[j - 1].end:
                        glued = True
                    estimate += nxt.tokens
                    j += 1
            if not first.solo and (glued or estimate > budget - _VERIFY_SLACK):
                j = self._verify(atoms, i, j, ctx)
                if j < 0:  # a single atom that does not fit after all: it was split in place
                    continue
            body = sum(atom.tokens for atom in atoms[i:j])
            pieces.append(_Piece(i, j, ctx, self.overhead + self.measure.cost(ctx) + body, body))
            i = j
        return pieces

    @staticmethod
    def _whole(piece: _Piece, atoms: list[Atom]) -> bool:
        """Whether ``piece`` holds whole paragraphs only."""
        i, j = piece.i, piece.j
        starts = i == 0 or atoms[i - 1].paragraph != atoms[i].paragraph
        ends = j == len(atoms) or atoms[j].paragraph != atoms[j - 1].paragraph
        return starts and ends

    def _joins(
        self,
        chunk: _Piece,
        piece: _Piece,
        atoms: list[Atom],
        paragraphs: dict[int, tuple[int, int]],
    ) -> bool:
        """Whether ``piece`` is packed into ``chunk``, the one before it (see :meth:`pack`)."""
        first, previous = atoms[piece.i], atoms[piece.i - 1]
        if not (self._whole(chunk, atoms) and self._whole(piece, atoms)):
            return False  # a piece of a paragraph cut in several is a chunk of its own
        if first.solo or atoms[chunk.i].solo or first.group or atoms[chunk.i].group:
            return False  # a code block kept whole or split in lines packs with nothing else
        estimate = chunk.estimate + piece.body
        if estimate > self.budget:
            return False
        start, end = paragraphs[first.paragraph]
        if 2 * chunk.estimate >= self.budget and content_anchor(
            self.doc[start:end], _CHUNK_ANCHOR_ONE_IN
        ):
            return False
        if estimate > self.budget - _VERIFY_SLACK or first.start == previous.end:
            text = chunk.ctx + self.doc[atoms[chunk.i].start : atoms[piece.j - 1].end]
            return self.count(text) <= self.budget
        return True

    def _verify(self, atoms: list[Atom], i: int, j: int, ctx: str) -> int:
        """The end of the longest run ``atoms[i:j']`` that really fits; -1 if none does.

        A lone atom that does not fit (the estimate was off) is replaced in ``atoms`` by its
        pieces at the next split level, or by two halves, and -1 tells the caller to retry.
        """
        doc = self.doc
        while True:
            if self.count(ctx + doc[atoms[i].start : atoms[j - 1].end]) <= self.budget:
                return j
            if j - 1 > i:
                j -= 1
                continue
            atom = atoms[i]
            if atom.end - atom.start <= 1:
                return i + 1  # one character and its context: nothing left to cut
            pieces: list[tuple[int, int]] = []
            level = atom.level
            run_chars = max(1, (atom.end - atom.start) // 4)
            while level < LEVEL_CHARS and len(pieces) <= 1:
                pieces = SPLITTERS[level](doc, atom.start, atom.end, run_chars)
                level += 1
            if len(pieces) <= 1:
                middle = atom.start + (atom.end - atom.start) // 2
                pieces = [(atom.start, middle), (middle, atom.end)]
            atoms[i : i + 1] = [
                Atom(
                    start,
                    end,
                    self.measure.tokens(start, end),
                    atom.lead,
                    atom.group,
                    level=level,
                    paragraph=atom.paragraph,
                )
                for start, end in pieces
            ]
            return -1
