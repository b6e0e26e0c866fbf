"""The snippet find_mentions shows of a document's first matching chunk."""

from __future__ import annotations

import re

from minirag_index.text.folding import fold, folds_one_to_one

__all__ = ["SNIPPET_CHARS", "snippet"]

#: Approximate length of a snippet, in characters of the original text.
SNIPPET_CHARS = 200


def snippet(
    text: str, search_from: int, patterns: list[re.Pattern[str]], width: int = SNIPPET_CHARS
) -> str:
    """About ``width`` characters of ``text`` around its first hit, whitespace collapsed.

    Only ``text[search_from:]`` is searched (the part of the chunk that was counted). The hit
    found in folded text is mapped back to the original by bisecting on the folded length of
    prefixes: folding is local, so that length never decreases as the prefix grows.
    """
    body = text[search_from:]
    folded = fold(body)
    best: tuple[int, int] | None = None
    for p in patterns:
        m = p.search(folded)
        if m is not None and m.end() > m.start() and (best is None or m.start() < best[0]):
            best = (m.start(), m.end())
    if best is None:
        hit_start = hit_end = search_from
    elif len(folded) == len(body) and folds_one_to_one(body):
        hit_start, hit_end = search_from + best[0], search_from + best[1]
    else:
        hit_start = search_from + _prefix_for(body, best[0], end=False)
        hit_end = max(hit_start, search_from + _prefix_for(body, best[1], end=True))
    n = len(text)
    if hit_end - hit_start >= width:
        start, end = hit_start, hit_start + width
    else:
        pad = (width - (hit_end - hit_start)) // 2
        start = max(0, hit_start - pad)
        end = min(n, start + width)
        start = max(0, min(start, end - width))
        # Prefer cutting at whitespace, without losing the hit.
        if start > 0:
            space = text.find(" ", start, hit_start)
            if space != -1 and space - start < 30:
                start = space + 1
        if end < n:
            space = text.rfind(" ", hit_end, end)
            if space != -1 and end - space < 30:
                end = space
    body = " ".join(text[start:end].split())
    return ("…" if start > 0 else "") + body + ("…" if end < n else "")


def _prefix_for(text: str, folded_offset: int, *, end: bool) -> int:
    """Original offset matching ``folded_offset`` in ``fold(text)``.

    For a start (``end=False``): the largest prefix folding to at most ``folded_offset``
    characters; for an end: the smallest prefix folding to at least that many.
    """
    lo, hi = 0, len(text)
    if end:
        while lo < hi:
            mid = (lo + hi) // 2
            if len(fold(text[:mid])) >= folded_offset:
                hi = mid
            else:
                lo = mid + 1
        return lo
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(fold(text[:mid])) <= folded_offset:
            lo = mid
        else:
            hi = mid - 1
    return lo
