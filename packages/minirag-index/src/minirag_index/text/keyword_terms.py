"""The keyword analysis: what the BM25 index stores for a text, and what a query looks up.

One rule for both languages in one index, applied at ingest to every chunk and title and at
query time to the question, so the two always agree:

* the text is folded first (:func:`minirag_index.text.folding.fold`: case, ё/е, Unicode composition,
  Markdown escapes, soft hyphens), then cut into words at anything not a letter or digit
  (an apostrophe inside a word stays: ``nfl's``, ``don't``);
* a word in Latin letters is stemmed by Snowball's English stemmer after its accents are folded
  (``café`` → ``cafe``, ``heating``/``heated`` → ``heat``); a word in Cyrillic letters by
  Snowball's Russian stemmer (``договоров`` → ``договор``); anything else — a word with digits,
  mixed scripts, another script — is kept as it is;
* an identifier — word pieces joined by ``-``, ``_``, ``.``, ``/`` or ``:`` with a digit among
  them (``ERR-4711``, ``QP-7.2``, ``ТЗ_2024_015``) — gives its pieces as words and also the
  whole identifier as one term, so its exact spelling outranks documents sharing a piece;
* :func:`index_terms` keeps every word (nothing falls out of the index); :func:`query_terms`
  leaves out English function words (:mod:`minirag_index.text.stop_words`, which says why Russian
  ones stay) unless the query holds nothing else.

Terms are joined by single spaces: LanceDB indexes that column with its whitespace tokenizer and
no analysis of its own. Changing any of this changes what is stored, so ``ANALYSIS_VERSION``
goes up with it and indexes built before are re-analysed when opened.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

import Stemmer

from minirag_index.text.folding import fold
from minirag_index.text.stop_words import ENGLISH

__all__ = ["ANALYSIS_VERSION", "MAX_TERM_CHARS", "index_terms", "query_terms", "terms"]

ANALYSIS_VERSION = "1"
#: Longer runs (hashes, base64 blobs) are left out; LanceDB's own limit is set to the same.
MAX_TERM_CHARS = 64

# A word: letters and digits, with inner apostrophes. An identifier: two or more such runs
# joined by single connector characters, at least one run holding a digit.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_IDENTIFIER = re.compile(r"[^\W_]+(?:[-_./:][^\W_]+)+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})
_LATIN = re.compile(r"[a-z']+")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]+")

_local = threading.local()  # a PyStemmer object must not be shared between threads


def _stemmer(language: str) -> Stemmer.Stemmer:
    stemmer = getattr(_local, language, None)
    if stemmer is None:
        stemmer = Stemmer.Stemmer(language)
        setattr(_local, language, stemmer)
    return stemmer


def _fold_accents(word: str) -> str:
    """``café`` → ``cafe`` for Latin words; a word that does not become ASCII stays as it was."""
    parts = unicodedata.normalize("NFKD", word)
    stripped = "".join(c for c in parts if not unicodedata.combining(c))
    return stripped if stripped.isascii() else word


@lru_cache(maxsize=200_000)
def _word_term(word: str) -> tuple[str, bool]:
    """The term for one folded word, and whether the word is a function word."""
    if not word.isascii():
        ascii_form = _fold_accents(word)
        if _CYRILLIC.fullmatch(word):
            return _stemmer("russian").stemWord(word), False
        word = ascii_form
    if _LATIN.fullmatch(word):
        return _stemmer("english").stemWord(word), word in ENGLISH
    return word, False


def terms(text: str, *, drop_stop_words: bool = False) -> list[str]:
    """The keyword terms of ``text`` in reading order (identifiers add their whole form)."""
    folded = fold(text).translate(_APOSTROPHES)
    found: list[str] = []
    content = 0
    stops: list[int] = []  # positions of function words in ``found``
    for match in _WORD.finditer(folded):
        word = match.group()
        if len(word) > MAX_TERM_CHARS:
            continue
        term, is_stop = _word_term(word)
        if is_stop:
            stops.append(len(found))
        else:
            content += 1
        found.append(term)
    for match in _IDENTIFIER.finditer(folded):
        whole = match.group()
        if len(whole) <= MAX_TERM_CHARS and any(c.isdigit() for c in whole):
            found.append(whole)
            content += 1
    if drop_stop_words and stops and content:
        dropped = set(stops)
        found = [t for i, t in enumerate(found) if i not in dropped]
    return found


def index_terms(text: str) -> str:
    """What the keyword index stores for ``text``: every term, space-separated."""
    return " ".join(terms(text))


def query_terms(query: str) -> str:
    """What a query looks up: its terms without function words (unless that leaves none)."""
    return " ".join(terms(query, drop_stop_words=True))
