"""read_file in pages: a document is sent a page at a time, each response a few MB at most.

A model gains nothing from a 50 MB answer, and a client, the transport and the server each hold
a response whole (the text travels twice: as structured content and as its JSON text). A page
is at most :data:`PAGE_CHARS` characters, which stays under 4 MB on the wire whatever the text:
a control character is the worst, 6 bytes escaped in the structured content and 7 in the JSON
text (its backslash escaped again), 13 bytes a character, 3.25 MB a page. It ends at a line break
in its second half when there is one, so pages read as whole lines; ``nextOffset`` is where the
next page starts, and the pages joined are the document, character for character.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

PAGE_CHARS = 250_000


@dataclass(frozen=True)
class Page:
    text: str
    offset: int
    next_offset: int | None  # None on the last page
    total_chars: int


def page_of(text: str, offset: int, page_chars: int = PAGE_CHARS) -> Page:
    """The page of ``text`` starting at character ``offset``."""
    if offset < 0:
        raise ValueError(f"offset must not be negative (got {offset})")
    total = len(text)
    if offset > total:
        raise ValueError(f"offset {offset} is past the end of the document ({total} characters)")
    end = min(offset + page_chars, total)
    if end < total:
        line_end = text.rfind("\n", offset + page_chars // 2, end)
        if line_end >= 0:
            end = line_end + 1
    return Page(text[offset:end], offset, end if end < total else None, total)


class LastDocument:
    """The document read last, kept while the index is at the same version, so that a client
    paging through a large document does not have it rebuilt for every page."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[str, object, str] | None = None

    def text(self, source: str, version: object, rebuild: Callable[[], str | None]) -> str | None:
        with self._lock:
            held = self._held
            if held is not None and held[0] == source and held[1] == version:
                return held[2]
        text = rebuild()
        with self._lock:
            self._held = None if text is None else (source, version, text)
        return text
