"""Page numbers for chunks of a PDF, given only when they are certain.

The page texts come from the same conversion as the Markdown
(:mod:`minirag_ingest.conversion.pdf`), so
they hold the same words in the same order, but not the same spacing, line breaks or markup
(table pipes, escapes, headings). Both sides are therefore reduced to their letters and digits
alone before comparing. Two ways to be certain:

* By position. When the whole Markdown, reduced, is the pages' reduced texts one after the
  other, every chunk's place in the Markdown is a place on a page. A chunk gets the page (or
  span) its place falls on when its own reduced text is found there, at that very place. A
  header repeated on every page of an invoice gets the page that copy is on.
* By search, when the two do not line up (OCR text is appended after the document but belongs
  to its page): a chunk gets a page only when its reduced text occurs in the document and every
  occurrence lies on that same page or span.
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

    def __init__(self, page_texts: list[str], markdown: str | None = None) -> None:
        self._starts: list[int] = []
        parts: list[str] = []
        offset = 0
        for text in page_texts:
            self._starts.append(offset)
            reduced = normalize_for_pages(text)
            parts.append(reduced)
            offset += len(reduced)
        self._text = "".join(parts)
        self._markdown = markdown
        #: The Markdown is the pages' text in page order: a chunk's place in it is its page.
        self.aligned = markdown is not None and normalize_for_pages(markdown) == self._text

    def pages_for_chunks(self, bodies: list[str]) -> list[str | None]:
        """Pages of each chunk body, given in document order as slices of the Markdown."""
        if not self.aligned or self._markdown is None:
            return [self.pages_for(body) for body in bodies]
        markdown = self._markdown
        found: list[str | None] = []
        cursor = 0  # in the Markdown
        reduced_at = 0  # the same place in the reduced text
        for body in bodies:
            start = markdown.find(body, cursor)
            if start < 0:  # not a slice of this Markdown: fall back to searching
                found.append(self.pages_for(body))
                continue
            reduced_at += len(normalize_for_pages(markdown[cursor:start]))
            needle = normalize_for_pages(body)
            if needle and self._text.startswith(needle, reduced_at):
                found.append(self._span(reduced_at, reduced_at + len(needle) - 1))
            else:
                found.append(self.pages_for(body))
            reduced_at += len(needle)
            cursor = start + len(body)
        return found

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

    def _span(self, first_char: int, last_char: int) -> str:
        first, last = self._page_at(first_char), self._page_at(last_char)
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
