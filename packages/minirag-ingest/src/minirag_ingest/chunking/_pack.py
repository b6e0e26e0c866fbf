"""Token accounting: splitting section units into atoms and packing atoms into chunks.

The expensive operation is the tokenizer call. Each atom is counted once; a chunk's size is
estimated as the sum of its atoms' counts plus its context, which is exact for whitespace-joined
pieces under both WordPiece and SentencePiece tokenizers. Only a chunk whose estimate comes
close to the budget, or that glues pieces cut inside a word, is counted for real before it is
emitted, and if that count is over, the chunk gives back atoms until it fits.
"""

# Longer than 450 lines: the span splitters and the Packer share one token accounting (Unit,
# Atom, SectionPlan); split, the budget rule would be spread over two files.

from __future__ import annotations

import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from ._blocks import strip_span
from ._model import CODE_BUDGET_FACTOR, CODE_SPLIT_MARKER, Chunk

# How far below the budget an estimate must stay to be trusted without a real count.
_VERIFY_SLACK = 4
# A span predicted (from the document's own characters-per-token ratio) to need more than this
# share of the room is split before it is counted: its pieces are counted instead, and merged
# back should their sum fit after all. The prediction only ever decides what is counted when,
# never what a chunk may hold.
_PREDICTED_FIT = 1.3
# Beyond this many characters per token nothing natural fits: not worth counting whole.
_SKIP_COUNT_CHARS_PER_TOKEN = 12

# A chunk at least half full ends before a paragraph whose hash picks it (one in this many),
# even if the paragraph would fit: see Packer.pack.
_CHUNK_ANCHOR_ONE_IN = 4


# Short paragraphs that open a section (a title, a byline, a date line), up to this many
# characters together, are packed with the paragraph after them, not in a chunk of their own.
_OPENING_CHARS = 300

_ITEM_BREAK = re.compile(r"\n[ \t]*(?=(?:[-*+•]|\d{1,9}[.)])[ \t]|>|\|)")
_SENTENCE_END = re.compile(r"[.!?…。！？][\"'”’»)\]]*(\s+)")
_WORD = re.compile(r"\S+")
_LINE = re.compile(r"[^\n]+")
_BLANK_LINES = re.compile(r"\n[ \t\r]*\n\s*")

# Split levels, coarsest first: list items, sentences, runs of a few words, single words, and
# as the last resort characters.
LEVEL_ITEMS, LEVEL_SENTENCES, LEVEL_RUNS, LEVEL_WORDS, LEVEL_CHARS = range(5)
LEVEL_LINE = LEVEL_RUNS  # where a single line (heading, table row, code line) starts


def _spans_between(
    doc: str, start: int, end: int, cuts: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Spans of ``doc[start:end]`` left between the separator spans ``cuts``, each stripped."""
    spans = []
    pos = start
    for cut_start, cut_end in [*cuts, (end, end)]:
        piece = strip_span(doc, pos, cut_start)
        if piece[0] < piece[1]:
            spans.append(piece)
        pos = cut_end
    return spans


def item_spans(doc: str, start: int, end: int, _: int = 0) -> list[tuple[int, int]]:
    """Cut before lines that start a list item, a quote line or a pipe row."""
    cuts = [(m.start(), m.end()) for m in _ITEM_BREAK.finditer(doc, start, end)]
    return _spans_between(doc, start, end, cuts)


def sentence_spans(doc: str, start: int, end: int, _: int = 0) -> list[tuple[int, int]]:
    cuts = []
    for match in _SENTENCE_END.finditer(doc, start, end):
        if match.end(1) < end:
            cuts.append((match.start(1), match.end(1)))
    return _spans_between(doc, start, end, cuts)


def run_spans(doc: str, start: int, end: int, max_chars: int = 0) -> list[tuple[int, int]]:
    """Consecutive words grouped into runs of at most ``max_chars`` (a longer word: alone)."""
    runs: list[tuple[int, int]] = []
    run_start = run_end = -1
    for match in _WORD.finditer(doc, start, end):
        if run_start < 0:
            run_start, run_end = match.start(), match.end()
        elif match.end() - run_start <= max_chars:
            run_end = match.end()
        else:
            runs.append((run_start, run_end))
            run_start, run_end = match.start(), match.end()
    if run_start >= 0:
        runs.append((run_start, run_end))
    return runs


def word_spans(doc: str, start: int, end: int, _: int = 0) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(doc, start, end)]


_SPLITTERS = {
    LEVEL_ITEMS: item_spans,
    LEVEL_SENTENCES: sentence_spans,
    LEVEL_RUNS: run_spans,
    LEVEL_WORDS: word_spans,
}


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


@dataclass(frozen=True, slots=True)
class _Piece:
    """Atoms ``[i, j)`` of a section packed into one chunk, with the chunk's context."""

    i: int
    j: int
    ctx: str
    estimate: int  # tokens of context and body, special tokens included
    body: int = 0  # tokens of the body alone


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


class Packer:
    def __init__(
        self,
        doc: str,
        count_tokens: Callable[[str], int],
        budget: int,
    ) -> None:
        self.doc = doc
        self.count = count_tokens
        self.budget = budget
        self.overhead = count_tokens("")
        self.max_ctx = budget // 3  # a breadcrumb, label or header row on its own
        self._costs: dict[str, int] = {}
        self._contexts: dict[tuple[str, str], str] = {}
        self._next_group = 0
        self._seen_chars = 0
        self._seen_tokens = 0

    # ----- token helpers -------------------------------------------------------------------

    def cost(self, text: str) -> int:
        """Content tokens of ``text`` (special tokens excluded), cached."""
        if not text:
            return 0
        cached = self._costs.get(text)
        if cached is None:
            cached = max(0, self.count(text) - self.overhead)
            self._costs[text] = cached
        return cached

    def tokens(self, start: int, end: int) -> int:
        tokens = max(0, self.count(self.doc[start:end]) - self.overhead)
        self._seen_chars += end - start
        self._seen_tokens += tokens
        return tokens

    def chars_per_token(self) -> float:
        """This document's characters per token so far (starting from a typical 4)."""
        return (self._seen_chars + 4000) / (self._seen_tokens + 1000)

    def new_group(self) -> int:
        self._next_group += 1
        return self._next_group

    def fit_line(self, text: str, limit: int | None = None) -> str:
        """``text`` as a context line of at most ``limit`` tokens, shortened word by word."""
        limit = self.max_ctx if limit is None else limit
        text = " ".join(text.split())
        if not text:
            return ""
        if self.cost(text + "\n") <= limit:
            return text + "\n"
        words = text.split(" ")
        low, high = 0, len(words) - 1  # binary search on how many words to keep
        best = ""
        while low <= high:
            middle = (low + high) // 2
            candidate = " ".join(words[: middle + 1]) + " …\n"
            if middle >= 0 and self.cost(candidate) <= limit:
                best = candidate
                low = middle + 1
            else:
                high = middle - 1
        return best

    def breadcrumb(self, titles: list[str]) -> str:
        """Heading titles joined with " > ", elided in the middle to stay within max_ctx."""
        parts = [t for t in (" ".join(t.split()) for t in titles) if t]
        if not parts:
            return ""
        full = " > ".join(parts) + "\n"
        if self.cost(full) <= self.max_ctx:
            return full
        for keep in range(len(parts) - 2, 0, -1):
            candidate = " > ".join([parts[0], "…", *parts[-keep:]]) + "\n"
            if self.cost(candidate) <= self.max_ctx:
                return candidate
        return self.fit_line("… > " + parts[-1])

    def heading_context(self, opening: str, headings: str, titles: list[str]) -> str:
        """The context of a heading section's later chunks: the section's opening context and
        its heading lines as written (``headings``, up to its first text), so that a chunk reads
        the same whether it opens the section (the headings then in its body) or follows on;
        the breadcrumb of ``titles`` when that would take more than max_ctx, or more characters
        than max_ctx tokens of natural text (blank lines cost no tokens, and every later chunk
        would carry them)."""
        exact = opening + headings
        fits = len(exact) <= self.max_ctx * _SKIP_COUNT_CHARS_PER_TOKEN
        if headings and fits and self.cost(exact) <= self.max_ctx:
            return exact
        return self.breadcrumb(titles)

    def table_lead(self, header_start: int, header_end: int) -> str:
        """The header row repeated above table rows, shortened if it would crowd them out."""
        header = self.doc[header_start:header_end]
        lines = header.split("\n")
        exact = "\n".join(line.rstrip("\r").strip() for line in lines) + "\n"
        if self.cost(exact) <= self.max_ctx:
            return exact
        head = lines[0].strip()
        columns = max(1, head.strip("|").count("|") + 1)
        compact = head + "\n|" + "-|" * columns + "\n"
        if self.cost(compact) <= self.max_ctx:
            return compact
        return self.fit_line(head)

    def context(self, section_ctx: str, lead: str) -> str:
        """The context a chunk gets: the section's, plus what its first atom needs."""
        key = (section_ctx, lead)
        cached = self._contexts.get(key)
        if cached is not None:
            return cached
        # Each part was fitted to its own third of the budget, so together they leave a third
        # for the body; only the mandatory split-code marker may push the section's out.
        combined = section_ctx + lead
        if self.cost(combined) > 2 * self.max_ctx:
            combined = lead if lead == CODE_SPLIT_MARKER + "\n" else section_ctx
        self._contexts[key] = combined
        return combined

    # ----- atoms ---------------------------------------------------------------------------

    def _avail(self, plan: SectionPlan, lead: str) -> int:
        worst = max(
            self.cost(self.context(plan.ctx_first, lead)),
            self.cost(self.context(plan.ctx_rest, lead)),
        )
        return max(1, self.budget - self.overhead - worst)

    def atoms(self, plan: SectionPlan) -> list[Atom]:
        """The section's atoms, each numbered with the paragraph it belongs to: a new one at
        every unit that starts a block, except after a unit kept with the next (a heading, a
        table header) or one of the short paragraphs that open the section, and at every split
        code block."""
        out: list[Atom] = []
        paragraph = -1
        previous: Unit | None = None
        glued = False  # the previous unit starts the paragraph of this one
        opening = -1 if plan.continued else 0  # characters of the short paragraphs that
        # open the section (not a part the cap cut off: where the cap cuts moves with edits)
        for unit in plan.units:
            kind = unit.kind
            mark = len(out)
            if kind == "code":
                self._code_atoms(plan, unit, out)
            elif kind == "codeline":
                lead = CODE_SPLIT_MARKER + "\n"
                self._split(plan, unit.start, unit.end, LEVEL_LINE, lead, lead, out, unit.group)
            elif kind == "turn":
                self._turn_atoms(plan, unit, out)
            elif kind in ("row", "thead"):
                self._split(plan, unit.start, unit.end, LEVEL_LINE, unit.lead, unit.lead, out)
            else:
                self._split(plan, unit.start, unit.end, unit.level, unit.lead, unit.lead, out)
            if previous is None or (
                (unit.block_start or unit.group != previous.group) and not glued
            ):
                paragraph += 1
            for atom in out[mark:]:
                atom.paragraph = paragraph
            if opening >= 0 and unit.kind == "text" and unit.block_start:
                opening += unit.end - unit.start
            else:
                opening = -1
            glued = unit.keep_with_next or 0 <= opening <= _OPENING_CHARS
            previous = unit
        return out

    def _code_atoms(self, plan: SectionPlan, unit: Unit, out: list[Atom]) -> None:
        avail = self._avail(plan, "")
        ceiling = avail + (CODE_BUDGET_FACTOR - 1) * self.budget  # four budgets, context included
        if unit.end - unit.start <= ceiling * _SKIP_COUNT_CHARS_PER_TOKEN:
            tokens = self.tokens(unit.start, unit.end)
            if tokens <= avail:
                out.append(Atom(unit.start, unit.end, tokens))
                return
            if tokens <= ceiling:
                out.append(Atom(unit.start, unit.end, tokens, solo=True))
                return
        group = self.new_group()
        lead = CODE_SPLIT_MARKER + "\n"
        for line_start, line_end in line_spans(self.doc, unit.start, unit.end):
            self._split(plan, line_start, line_end, LEVEL_LINE, lead, lead, out, group)

    def _turn_atoms(self, plan: SectionPlan, unit: Unit, out: list[Atom]) -> None:
        avail = self._avail(plan, "")
        if unit.end - unit.start <= avail * _PREDICTED_FIT * self.chars_per_token():
            tokens = self.tokens(unit.start, unit.end)
            if tokens <= avail:
                out.append(Atom(unit.start, unit.end, tokens, level=LEVEL_ITEMS))
                return
        self._split(plan, unit.start, unit.head_end, LEVEL_SENTENCES, "", unit.lead, out)
        body_start, body_end = strip_span(self.doc, unit.head_end, unit.end)
        for para_start, para_end in paragraph_spans(self.doc, body_start, body_end):
            self._split(plan, para_start, para_end, LEVEL_ITEMS, unit.lead, unit.lead, out)

    def _split(
        self,
        plan: SectionPlan,
        start: int,
        end: int,
        level: int,
        lead_first: str,
        lead_rest: str,
        out: list[Atom],
        group: int = 0,
    ) -> None:
        """Append atoms covering ``[start, end)``, each fitting the budget on its own.

        A span long enough that it probably does not fit is not counted whole: its pieces are
        counted instead and, should their sum fit after all, merged back into one atom. That
        way every character is counted about once however the span ends up being cut.
        """
        avail = self._avail(plan, lead_first)
        ratio = self.chars_per_token()
        tokens = None
        if end - start <= avail * _PREDICTED_FIT * ratio:
            tokens = self.tokens(start, end)
            if tokens <= avail:
                out.append(Atom(start, end, tokens, lead_first, group, level=level))
                return
        spans: list[tuple[int, int]] = []
        run_chars = max(1, int(avail * ratio / 4))  # runs a quarter of a chunk long
        while level < LEVEL_CHARS:
            spans = _SPLITTERS[level](self.doc, start, end, run_chars)
            level += 1
            if len(spans) > 1:
                break
        if len(spans) <= 1:  # a single word: count it, and cut it only if it must be
            if tokens is None:
                tokens = self.tokens(start, end)
                if tokens <= avail:
                    out.append(Atom(start, end, tokens, lead_first, group, level=level))
                    return
            self._hard_split(plan, start, end, tokens, lead_first, lead_rest, out, group)
            return
        mark = len(out)
        for index, (piece_start, piece_end) in enumerate(spans):
            lead = lead_first if index == 0 else lead_rest
            self._split(plan, piece_start, piece_end, level, lead, lead_rest, out, group)
        if tokens is None:
            total = sum(atom.tokens for atom in out[mark:])
            if total <= avail:
                out[mark:] = [Atom(start, end, total, lead_first, group, level=level - 1)]

    def _hard_split(
        self,
        plan: SectionPlan,
        start: int,
        end: int,
        tokens: int | None,
        lead_first: str,
        lead_rest: str,
        out: list[Atom],
        group: int,
    ) -> None:
        """Cut one unbroken run of characters into pieces that fit: the last resort.

        Piece lengths come from the run's own characters-per-token ratio, corrected by at most
        a few real counts per piece, so a long run costs a few passes, never one per character.
        """
        if tokens is None:
            tokens = self.tokens(start, end)
        chars_per_token = (end - start) / max(1, tokens)
        pos = start
        lead = lead_first
        while pos < end:
            room = self._avail(plan, lead)
            remaining = end - pos
            step = min(remaining, max(1, int(room * chars_per_token * 0.9)))
            piece = self.tokens(pos, pos + step)
            while piece > room and step > 1:
                step = max(1, min(step - 1, step * room // piece))
                piece = self.tokens(pos, pos + step)
            for _ in range(2):  # grow toward the room, so pieces are not needlessly small
                if pos + step >= end or piece >= room:
                    break
                bigger = min(remaining, max(step + 1, step * room // max(1, piece)))
                bigger_tokens = self.tokens(pos, pos + bigger)
                if bigger_tokens > room:
                    break
                step, piece = bigger, bigger_tokens
            out.append(Atom(pos, pos + step, piece, lead, group, level=LEVEL_CHARS))
            pos += step
            lead = lead_rest

    # ----- packing -------------------------------------------------------------------------

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
        atoms = self.atoms(plan)
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
            ctx = self.context(plan.ctx_first if i == 0 else plan.ctx_rest, first.lead)
            estimate = self.overhead + self.cost(ctx) + first.tokens
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
            pieces.append(_Piece(i, j, ctx, self.overhead + self.cost(ctx) + body, body))
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
                pieces = _SPLITTERS[level](doc, atom.start, atom.end, run_chars)
                level += 1
            if len(pieces) <= 1:
                middle = atom.start + (atom.end - atom.start) // 2
                pieces = [(atom.start, middle), (middle, atom.end)]
            atoms[i : i + 1] = [
                Atom(
                    start,
                    end,
                    self.tokens(start, end),
                    atom.lead,
                    atom.group,
                    level=level,
                    paragraph=atom.paragraph,
                )
                for start, end in pieces
            ]
            return -1


def line_spans(doc: str, start: int, end: int) -> list[tuple[int, int]]:
    """Non-blank lines of ``doc[start:end]``, each stripped."""
    spans = []
    for match in _LINE.finditer(doc, start, end):
        span = strip_span(doc, match.start(), match.end())
        if span[0] < span[1]:
            spans.append(span)
    return spans


def paragraph_spans(doc: str, start: int, end: int) -> list[tuple[int, int]]:
    """Stretches of ``doc[start:end]`` separated by blank lines, each stripped."""
    cuts = [(m.start(), m.end()) for m in _BLANK_LINES.finditer(doc, start, end)]
    return _spans_between(doc, start, end, cuts)
