"""The chunk record, the scheme constants, and rebuilding sections from chunks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Bump whenever a change to this package moves chunk boundaries or changes chunk text: every
# stored chunk records the scheme it was cut with, and an index holding older ones is stale.
SCHEME_VERSION = 5
# 3: a chunk that began inside a paragraph ends with it. 4: cuts depend on nearby text only: a
# paragraph is cut on its own, only whole paragraphs share a chunk, and the section cap and long
# paragraphs cut where a hash of the text picks (see _pack.py and _carve.py). 5: a heading
# section's later chunks repeat its heading lines as written, not a breadcrumb ending in them.

DEFAULT_BUDGET = 110
MIN_BUDGET = 16
MAX_BUDGET = 128

SECTION_CHAR_CAP = 4000
"""A section (what a search hit returns) is cut below this many characters where possible."""

CODE_BUDGET_FACTOR = 4
"""A fenced code block stays in one piece up to this many token budgets."""

CODE_SPLIT_MARKER = "[code block split to fit the token budget]"

TRANSCRIPT_WINDOW_SECONDS = 120

TRANSCRIPT_LINE_SHARE = 0.25
"""Share of non-blank lines that must be timestamp lines for a transcript (measured: real
transcripts sit near 0.5, other documents at 0.0)."""

Category = Literal["transcript", "slides", "headings", "generic"]


@dataclass(frozen=True)
class Chunk:
    """One retrieval unit.

    ``text`` is what gets embedded: ``text[:context_chars]`` is context repeated for the vector's
    sake (breadcrumb, table header, window label, split-code marker), the rest is the chunk's
    own slice of its section. ``joiner`` is the exact text that separated this body from the
    previous chunk's body in the section; the first chunk of a section holds the section's
    seam there instead (see :mod:`minirag_index.search.reconstruct`).
    """

    text: str
    context_chars: int
    joiner: str
    section: int

    @property
    def body(self) -> str:
        return self.text[self.context_chars :]

    @property
    def context(self) -> str:
        return self.text[: self.context_chars]


@dataclass(frozen=True)
class ChunkedDocument:
    category: Category
    chunks: list[Chunk]
