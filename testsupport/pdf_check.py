"""Checking a page number against the PDF itself, independently of how it was found.

pdfplumber's characters of a page, reduced to letters and digits, say which words are on it;
no text layout or word order is involved, so the check does not share the page finder's logic.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

_WORD = re.compile(r"[^\W_]+")


def reduced(text: str) -> str:
    return "".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def page_letters(path: Path) -> list[str]:
    """Each page's characters as pdfplumber reads them, letters and digits only."""
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [reduced("".join(ch["text"] for ch in page.chars)) for page in pdf.pages]


def words_not_on(body: str, pages: str, letters: list[str]) -> list[str]:
    """The words of ``body`` found on none of ``pages`` ("3" or "2-3"); [] when all are."""
    first, _, last = pages.partition("-")
    span = letters[int(first) - 1 : int(last or first)]
    words = {reduced(word) for word in _WORD.findall(body)}
    return sorted(w for w in words if w and not any(w in page for page in span))
