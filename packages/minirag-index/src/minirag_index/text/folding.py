"""Text folding for literal matching: one canonical form for text and query alike.

``fold`` makes two spellings that a reader sees as the same word compare equal:

* case (full Unicode case folding, so ``ß`` and ``ss`` agree);
* ``ё``/``е`` (``Ё`` folds to ``е`` as well);
* Unicode composition: text is brought to NFC, so a file name macOS stored decomposed
  matches a composed query. Combining marks are never stripped (``й`` stays ``й``);
* conversion leftovers: Markdown backslash escapes (``ТЗ\\_2024\\_015`` reads ``ТЗ_2024_015``),
  soft hyphens and zero-width characters are removed.

NUL characters become spaces, so callers may join folded texts with ``"\\x00"`` as a separator
that no folded text contains.

``fold_with_offsets`` does the same work character by character and also returns, for every
folded character, the index of the original character it came from. It is slow and meant for
the few texts a response quotes (snippets), never for a whole corpus.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Sequence

__all__ = ["IGNORABLE_CHARS", "fold", "fold_with_offsets", "folds_one_to_one"]

#: Characters removed outright: soft hyphen, zero-width space / non-joiner / joiner,
#: word joiner and the zero-width no-break space (BOM).
IGNORABLE_CHARS = "\u00ad\u200b\u200c\u200d\u2060\ufeff"

_YO_TABLE = {ord("ё"): "е", ord("Ё"): "е"}

# A backslash before ASCII punctuation is a Markdown escape (CommonMark: any ASCII punctuation
# character may be escaped). ``\\`` reads as one backslash; ``\U`` (a Windows path) is kept.
_ESCAPE_RE = re.compile(r"\\([!-/:-@\[-`{-~])")
_UNESCAPE = operator.itemgetter(1)  # C-level replacement: no template expansion per match
_ESCAPABLE = frozenset(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())


def fold(text: str) -> str:
    """Return the matching form of ``text``: casefolded, NFC, ё→е, escapes and marks removed."""
    # str.translate costs ~100 ns a character; ``in`` and ``replace`` scan at memory speed,
    # and most texts hold none of these characters.
    if not text.isascii():
        for c in IGNORABLE_CHARS:
            if c in text:
                text = text.replace(c, "")
    if "\x00" in text:
        text = text.replace("\x00", " ")
    if "\\" in text:
        text = _ESCAPE_RE.sub(_UNESCAPE, text)
    text = text.casefold()
    if not text.isascii():
        if not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)
        if "ё" in text:
            text = text.replace("ё", "е")
    return text


def folds_one_to_one(text: str) -> bool:
    """True when folding ``text`` maps each character to exactly one character."""
    if text.isascii():
        return "\\" not in text or _ESCAPE_RE.search(text) is None
    return (
        not any(c in text for c in IGNORABLE_CHARS)
        and ("\\" not in text or _ESCAPE_RE.search(text) is None)
        and unicodedata.is_normalized("NFC", text)
        and len(text.casefold()) == len(text)
    )


def fold_with_offsets(text: str) -> tuple[str, Sequence[int]]:
    """Fold ``text`` and map each folded character back to an index into ``text``.

    Returns ``(folded, offsets)`` with ``len(offsets) == len(folded)``; ``offsets[i]`` is the
    index in ``text`` of the character that produced ``folded[i]``. The folded string equals
    ``fold(text)`` except in rare compositions that span more than one base character (Hangul
    jamo sequences), which callers must tolerate.
    """
    folded = fold(text)
    if len(folded) == len(text) and folds_one_to_one(text):
        return folded, range(len(text))
    chars: list[str] = []
    origin: list[int] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in IGNORABLE_CHARS:
            i += 1
            continue
        if c == "\\" and i + 1 < n and text[i + 1] in _ESCAPABLE:
            i += 1
            c = text[i]
        elif c == "\x00":
            c = " "
        for f in c.casefold():
            chars.append(f)
            origin.append(i)
        i += 1

    # NFC per cluster: a starter plus the combining marks that follow it.
    out: list[str] = []
    offsets: list[int] = []
    j = 0
    m = len(chars)
    while j < m:
        k = j + 1
        while k < m and unicodedata.combining(chars[k]):
            k += 1
        cluster = "".join(chars[j:k])
        if k - j > 1 or not cluster.isascii():
            cluster = unicodedata.normalize("NFC", cluster).translate(_YO_TABLE)
        for f in cluster:
            out.append(f)
            offsets.append(origin[j])
        j = k
    return "".join(out), offsets
