"""Structure-first chunking of converted Markdown into token-sized retrieval units.

Two units are produced. A *section* is what a search hit gives back to the reader: a transcript
time window, a heading section, a slide, or one structural block, capped near 4,000 characters.
A *chunk* is what gets embedded: a run of a section's paragraphs, table rows or turns packed to
the token budget, prefixed with whatever context its vector needs (heading breadcrumb, table
header, window label). The context is recorded by length, so a section is rebuilt from its
chunks exactly, with nothing repeated: see :func:`rebuild_section`. A section the cap cuts
inside a table or code block is framed (header rows, fences) so it reads on its own, while the
document rebuilt from all chunks is the converted Markdown byte for byte.

Everything here is pure: no I/O, and the tokenizer is passed in as ``count_tokens``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from minirag_index.search import (
    chunk_body,
    make_seam,
    rebuild_document,
    rebuild_section,
)

from ._blocks import Lines
from ._carve import (
    cap_sections,
    carve_generic,
    carve_headings,
    carve_slides,
    carve_transcript,
    window_label,
)
from ._detect import detect_category, timestamp_seconds
from ._measure import Measure
from ._model import (
    CODE_BUDGET_FACTOR,
    CODE_SPLIT_MARKER,
    DEFAULT_BUDGET,
    MAX_BUDGET,
    MIN_BUDGET,
    SCHEME_VERSION,
    SECTION_CHAR_CAP,
    TRANSCRIPT_LINE_SHARE,
    TRANSCRIPT_WINDOW_SECONDS,
    Category,
    Chunk,
    ChunkedDocument,
)
from ._pack import Packer

__all__ = [
    "CODE_BUDGET_FACTOR",
    "CODE_SPLIT_MARKER",
    "DEFAULT_BUDGET",
    "MAX_BUDGET",
    "MIN_BUDGET",
    "SCHEME_VERSION",
    "SECTION_CHAR_CAP",
    "TRANSCRIPT_LINE_SHARE",
    "TRANSCRIPT_WINDOW_SECONDS",
    "Category",
    "Chunk",
    "ChunkedDocument",
    "chunk_body",
    "chunk_markdown",
    "detect_category",
    "rebuild_document",
    "rebuild_section",
    "timestamp_seconds",
    "window_label",
]


def chunk_markdown(
    markdown: str,
    *,
    count_tokens: Callable[[str], int],
    budget: int = DEFAULT_BUDGET,
    title: str = "",
) -> ChunkedDocument:
    """Cut ``markdown`` into sections and token-budgeted chunks.

    ``count_tokens`` must count with the embedding model's own tokenizer, truncation and padding
    off and special tokens included; every chunk then satisfies
    ``count_tokens(chunk.text) <= budget``, except a fenced code block kept whole (at most
    ``CODE_BUDGET_FACTOR`` budgets). ``title`` labels transcript windows. The chunks depend on
    ``markdown``, the counter and the settings alone: the same document gives the same chunks
    in any index.
    """
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise ValueError(f"budget must be between {MIN_BUDGET} and {MAX_BUDGET}, got {budget}")
    lines = Lines(markdown)
    category = detect_category(markdown, lines)
    measure = Measure(markdown, count_tokens, budget)
    packer = Packer(measure)
    if category == "transcript":
        plans = carve_transcript(markdown, lines, measure, title)
    elif category == "slides":
        plans = carve_slides(markdown, lines, measure)
    elif category == "headings":
        plans = carve_headings(markdown, lines, measure)
    else:
        plans = carve_generic(markdown, lines, measure)
    chunks: list[Chunk] = []
    section = 0
    previous_end: int | None = None
    for plan in plans:
        for capped in cap_sections(plan, measure):
            packed = packer.pack(capped, section)
            gap = "" if previous_end is None else markdown[previous_end : capped.start]
            seam = make_seam(gap, capped.opening, capped.closing)
            chunks.append(replace(packed[0], joiner=seam))
            chunks.extend(packed[1:])
            previous_end = capped.end
            section += 1
    return ChunkedDocument(category, chunks)
