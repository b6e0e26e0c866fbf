"""Rank fusion and the result-shaping rules of hybrid search (pure functions).

Weighted reciprocal rank fusion: a candidate's score is
``(1 - w) / (k + vector_rank + 1) + w / (k + keyword_rank + 1)`` with ranks counted from 0 and
a side's term left out when that side did not return the candidate. Fusing ranks rather than
raw scores sidesteps the incomparable scales of L2 distance and BM25.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Generic, Literal, TypeVar

RRF_K = 60
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Fused(Generic[K]):
    key: K
    score: float
    vector_rank: int | None
    keyword_rank: int | None


def rrf_fuse(
    vector_keys: Sequence[K],
    keyword_keys: Sequence[K],
    weight: float,
    k: int = RRF_K,
) -> list[Fused[K]]:
    """Fuse two ranked lists; ties keep the vector side's order, then the keyword side's."""
    vector_rank = {key: rank for rank, key in enumerate(vector_keys)}
    keyword_rank = {key: rank for rank, key in enumerate(keyword_keys)}
    fused: list[Fused[K]] = []
    for key in dict.fromkeys([*vector_keys, *keyword_keys]):
        v, kw = vector_rank.get(key), keyword_rank.get(key)
        score = 0.0
        if v is not None:
            score += (1.0 - weight) / (k + v + 1)
        if kw is not None:
            score += weight / (k + kw + 1)
        fused.append(Fused(key, score, v, kw))
    order = {f.key: i for i, f in enumerate(fused)}
    fused.sort(key=lambda f: (-f.score, order[f.key]))
    return fused


def group_cut(
    distances: Sequence[float | None], grouping: Literal["similar", "related"]
) -> list[bool]:
    """Which results survive the relevance-gap rule, in their given (fused) order.

    Over the results that have a distance, sorted ascending, a boundary is a gap between
    consecutive distances larger than twice the mean gap. "similar" keeps what precedes the
    first boundary, "related" what precedes the second. At least three distances are needed for
    a boundary; results without a distance are always kept.
    """
    measured = sorted(d for d in distances if d is not None)
    if len(measured) < 3:
        return [True] * len(distances)
    gaps = [b - a for a, b in pairwise(measured)]
    mean_gap = sum(gaps) / len(gaps)
    boundaries = [i for i, gap in enumerate(gaps) if mean_gap > 0 and gap > 2 * mean_gap]
    groups = 1 if grouping == "similar" else 2
    if len(boundaries) < groups:
        return [True] * len(distances)
    limit = measured[boundaries[groups - 1]]
    return [d is None or d <= limit for d in distances]


def within_distance(distances: Sequence[float | None], max_distance: float) -> list[bool]:
    """RAG_MAX_DISTANCE: keep hits within the bound; a hit with no distance cannot show it is."""
    return [d is not None and d <= max_distance for d in distances]


def first_sources(sources: Sequence[str], max_files: int) -> list[bool]:
    """RAG_MAX_FILES: keep hits from the first ``max_files`` distinct sources in rank order."""
    seen: list[str] = []
    keep = []
    for source in sources:
        if source not in seen and len(seen) < max_files:
            seen.append(source)
        keep.append(source in seen)
    return keep
