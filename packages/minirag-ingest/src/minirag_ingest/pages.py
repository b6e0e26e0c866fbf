"""Page numbers for chunks of a PDF, given only when they are certain.

The Markdown markitdown makes of a PDF and the text layer of its pages hold the same words in
the same order, but not the same spacing, line breaks or markup (table pipes, escapes,
headings). Both sides are therefore reduced to their letters and digits alone before
comparing. A chunk gets a page (or a page span) only when its reduced text occurs in the
document and every occurrence lies on that same page or span.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minirag_index import SourceInfo

_NOT_WORD = re.compile(r"[\W_]+")


def normalize_for_pages(text: str) -> str:
    """Letters and digits only, case-folded and NFKC-normalised (ligatures, full-width)."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKC", text).casefold())


class PageIndex:
    """All pages of one document, reduced and concatenated, with the offset where each starts.

    Build it once per document and ask it for every chunk: each lookup is a few ``str.find``
    calls over the concatenation, not a pass over every page.
    """

    def __init__(self, page_texts: list[str]) -> None:
        self._starts: list[int] = []
        parts: list[str] = []
        offset = 0
        for text in page_texts:
            self._starts.append(offset)
            reduced = normalize_for_pages(text)
            parts.append(reduced)
            offset += len(reduced)
        self._text = "".join(parts)

    def pages_for(self, chunk_body: str) -> str | None:
        """``"12"`` or ``"12-13"`` when the chunk's text sits on one page or span, else None."""
        needle = normalize_for_pages(chunk_body)
        if not needle:
            return None
        span: tuple[int, int] | None = None
        position = self._text.find(needle)
        while position >= 0:
            here = (self._page_at(position), self._page_at(position + len(needle) - 1))
            if span is not None and here != span:
                return None
            span = here
            position = self._text.find(needle, position + 1)
        if span is None:
            return None
        first, last = span
        return str(first) if first == last else f"{first}-{last}"

    def _page_at(self, offset: int) -> int:
        """1-based number of the page holding ``offset`` (empty pages are skipped over)."""
        return bisect.bisect_right(self._starts, offset)


@lru_cache(maxsize=4)
def _index_for(page_texts: tuple[str, ...]) -> PageIndex:
    return PageIndex(list(page_texts))


def chunk_pages(chunk_body: str, page_texts: list[str]) -> str | None:
    """Pages of one chunk; repeated calls with the same page list reuse one index."""
    if not page_texts:
        return None
    return _index_for(tuple(page_texts)).pages_for(chunk_body)


# PDFs carry page numbers from this chunking scheme on; older ones lack them until re-read.
PAGES_SINCE_SCHEME = 1


def lacks_pages(info: SourceInfo) -> bool:
    """A PDF file indexed before page numbers were recorded."""
    return (
        info.source_type == "file"
        and info.source.lower().endswith(".pdf")
        and info.scheme < PAGES_SINCE_SCHEME
    )
