"""One-paragraph edits of a document held as a list of paragraphs, for counting what a re-sync
embeds after each kind (bench/reembed.py and the ingest tests share them)."""

from __future__ import annotations

import re
from collections.abc import Callable

ADDED_SENTENCE = "Indeed, the records of that time were later found to be incomplete."
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")

Edit = Callable[[list[str], int, str], list[str]]
"""``edit(paragraphs, at, spare)``: the paragraphs with the one at ``at`` edited; ``spare`` is a
paragraph of new text the document does not hold, for the edits that bring new text in."""


def sentences(paragraph: str) -> list[str]:
    return _SENTENCE_BREAK.split(paragraph)


def _replaced(paragraphs: list[str], at: int, *new: str) -> list[str]:
    return [*paragraphs[:at], *new, *paragraphs[at + 1 :]]


def word_changed(paragraphs: list[str], at: int, spare: str) -> list[str]:
    p = paragraphs[at]
    edited = p.replace(" the ", " this ", 1) if " the " in p else p.replace(" ", " also ", 1)
    return _replaced(paragraphs, at, edited)


def sentence_added(paragraphs: list[str], at: int, spare: str) -> list[str]:
    first, *rest = sentences(paragraphs[at])
    return _replaced(paragraphs, at, " ".join([first, ADDED_SENTENCE, *rest]))


def rewritten(paragraphs: list[str], at: int, spare: str) -> list[str]:
    return _replaced(paragraphs, at, spare)


def halved(paragraphs: list[str], at: int, spare: str) -> list[str]:
    cut = sentences(paragraphs[at])
    return _replaced(paragraphs, at, " ".join(cut[: max(1, len(cut) // 2)]))


def doubled(paragraphs: list[str], at: int, spare: str) -> list[str]:
    """The paragraph grown to about twice its length with new text (sentences of ``spare``)."""
    p = paragraphs[at]
    grown = [p]
    for sentence in sentences(spare):
        if sum(map(len, grown)) >= 2 * len(p):
            break
        grown.append(sentence)
    return _replaced(paragraphs, at, " ".join(grown))


def deleted(paragraphs: list[str], at: int, spare: str) -> list[str]:
    return _replaced(paragraphs, at)


def inserted(paragraphs: list[str], at: int, spare: str) -> list[str]:
    """``spare`` as a new paragraph before the one at ``at``."""
    return [*paragraphs[:at], spare, *paragraphs[at:]]


EDITS: dict[str, Edit] = {
    "word": word_changed,
    "sentence": sentence_added,
    "rewritten": rewritten,
    "halved": halved,
    "doubled": doubled,
    "deleted": deleted,
    "inserted": inserted,
}
