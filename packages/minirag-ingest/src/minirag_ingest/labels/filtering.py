"""What a request does with document labels: its filter, the documents it keeps, the counts.

Labels are on only while the corpus has a taxonomy file. A request's filter (labels, dateFrom,
dateTo) is checked against the taxonomy's vocabulary, applied to the index's rows in scope, and
yields ``filterCounts`` and ``filterNotice``. :func:`label_counts` is status's labels block.
The server checks the arguments' shape and words its refusals; the rules are here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from minirag_index import SourceInfo
    from minirag_index.search import DocFilter
    from minirag_ingest.labels.taxonomy import Taxonomy, TaxonomyLoader

T = TypeVar("T")


@dataclass
class LabelView:
    """What one request does with labels: whether rows carry them, and its filter."""

    on: bool = False  # the taxonomy file exists: rows carry labels, date and dateSource
    taxonomy: Taxonomy | None = None  # the parsed taxonomy (None while it cannot be parsed)
    filter: DocFilter | None = None  # the request's filter, when it set one
    counts: dict[str, int] | None = None  # filterCounts, once the filter was applied
    notice: str | None = None  # filterNotice
    matched: set[str] = field(default_factory=set)

    @property
    def filtering(self) -> bool:
        return self.filter is not None


def view_for(
    loader: TaxonomyLoader,
    labels: Mapping[str, Any] | None,
    date_from: str | None,
    date_to: str | None,
    *,
    wants_filter: bool,
) -> LabelView:
    """The view of a request on a corpus whose taxonomy file exists. Raises ValueError for a
    filter the taxonomy refuses, or a label filter while the taxonomy cannot be parsed."""
    error = loader.error
    view = LabelView(on=True, taxonomy=None if error else loader.get())
    if not wants_filter:
        return view
    if error and labels:
        raise ValueError(error)
    from minirag_index.search import parse_filter

    vocabulary = view.taxonomy.filter_vocabulary() if view.taxonomy is not None else None
    view.filter = parse_filter(labels, date_from, date_to, vocabulary=vocabulary)
    return view


def apply(view: LabelView, indexed: Mapping[str, SourceInfo], cache_dir: Path) -> None:
    """Filter ``indexed`` (the sources in scope): fills matched, counts and notice. The notice
    says when a facet the choice model answers is filtered while the model is unavailable."""
    if view.filter is None:
        return
    from minirag_index.search import apply_filter

    result = apply_filter(indexed, view.filter)
    view.matched = set(result.kept)
    view.counts = result.counts
    taxonomy = view.taxonomy
    if view.filter.labels and taxonomy is not None:
        from minirag_ingest.labels.resolve import filter_notice, model_state

        if any(
            (facet := taxonomy.facet(name)) is not None and facet.needs_model
            for name in view.filter.labels
        ):
            state, hint = model_state(taxonomy, cache_dir)
            view.notice = filter_notice(taxonomy, list(view.filter.labels), state, hint)


def select(
    view: LabelView,
    items: Iterable[T],
    info_of: Callable[[T], SourceInfo | None],
    *,
    by_date: bool = False,
) -> list[T]:
    """The items a filtered request keeps (all of them without a filter), newest first when
    ``by_date`` (undated last, ties in their order)."""
    kept = [
        item
        for item in items
        if not view.filtering
        or ((info := info_of(item)) is not None and info.source in view.matched)
    ]
    if not by_date:
        return kept
    from minirag_index.search import sort_by_date

    dated = [_Dated(item, _date_of(info_of(item))) for item in kept]
    return [entry.item for entry in sort_by_date(dated)]


def _matched(view: LabelView, info: SourceInfo | None) -> bool:
    return info is not None and info.source in view.matched


@dataclass(frozen=True)
class _Dated:
    item: Any
    doc_date: str | None


def _date_of(info: SourceInfo | None) -> str | None:
    return None if info is None else info.doc_date


@dataclass(frozen=True)
class ValueCount:
    id: str
    description: str
    count: int


@dataclass(frozen=True)
class FacetCount:
    """One facet's documents per value, and those without a label or with an uncertain one."""

    name: str
    question: str
    values: list[ValueCount]
    unlabelled: int
    uncertain: int
    within: Sequence[str]


@dataclass(frozen=True)
class LabelCounts:
    """status's labels block: the counts, and whether the choice model can answer."""

    facets: list[FacetCount]
    undated: int
    model: str  # "loaded", "on demand" or "unavailable"
    model_hint: str | None


def label_counts(taxonomy: Taxonomy, infos: Iterable[SourceInfo], cache_dir: Path) -> LabelCounts:
    """Count the labels of ``infos`` (the whole index) against ``taxonomy``."""
    from minirag_index.search import label_stats
    from minirag_ingest.labels.resolve import model_state

    stats, undated = label_stats(infos, taxonomy.filter_vocabulary())
    facets = [
        FacetCount(
            name=facet.name,
            question=facet.question,
            values=[
                ValueCount(v.id, v.description, stats[facet.name].values[v.id])
                for v in facet.values
            ],
            unlabelled=stats[facet.name].unlabelled,
            uncertain=stats[facet.name].uncertain,
            within=facet.within,
        )
        for facet in taxonomy.facets
    ]
    state, hint = model_state(taxonomy, cache_dir)
    return LabelCounts(facets=facets, undated=undated, model=state, model_hint=hint)
