"""Whether converted Markdown holds any text at all.

A document that converts to nothing readable (a blank Word file, slides that are only
pictures, a notebook of empty cells, a scan) must not reach the index as a title with nothing
under it: it is a per-file failure with a reason, the way a scanned PDF without OCR is. Markup
does not count as text: slide markers and other HTML comments, fence lines, table separator
rows and pipes, heading marks and punctuation. A letter or a digit anywhere else does.
"""

from __future__ import annotations

import os
import re

from minirag_ingest.errors import ConversionError

NO_TEXT_REASON = (
    "converted to no text: the document is empty or holds only markup or pictures, "
    "so there is nothing to index"
)

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,}).*$", re.M)
_WORD_CHAR = re.compile(r"[^\W_]")


def holds_text(markdown: str) -> bool:
    """True when ``markdown`` has a letter or digit outside comments and fence lines."""
    bare = _FENCE_LINE.sub("", _COMMENT.sub("", markdown))
    return _WORD_CHAR.search(bare) is not None


class NoText(ConversionError):
    """A file or content that converted to no text (see :data:`NO_TEXT_REASON`)."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        super().__init__(path, NO_TEXT_REASON)
