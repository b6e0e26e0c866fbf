"""A document's labels as every result shows them, and the CLI's ``classify try``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_mcp.results.base import Result, omitted

if TYPE_CHECKING:
    from minirag_index.search import Label
    from minirag_ingest.labels.try_file import TriedFacet as TriedFacetFound
    from minirag_ingest.labels.try_file import TriedFile


class LabelOut(Result):
    """One facet's label on a document."""

    value: str
    confidence: float
    source: str
    runner_up: str | None = omitted()
    uncertain: bool

    @classmethod
    def of(cls, label: Label) -> LabelOut:
        return cls(
            value=label.value,
            confidence=round(float(label.confidence), 4),
            source=label.source,
            runner_up=label.runner_up,
            uncertain=label.uncertain,
        )


class FilterCounts(Result):
    """Documents in scope left out only for lacking a filtered label, or a date."""

    unlabelled: int
    undated: int


class TriedFacet(Result):
    """One facet of ``classify try``: its label, or why it is not set."""

    value: str | None
    confidence: float | None = omitted()
    source: str | None = omitted()
    runner_up: str | None = omitted()
    uncertain: bool | None = omitted()
    not_set: str | None = omitted()
    distribution: dict[str, float] | None = omitted()
    problem: str | None = omitted()

    @classmethod
    def of(cls, tried: TriedFacetFound) -> TriedFacet:
        label = tried.label
        if label is None:
            return cls(
                value=None,
                not_set=tried.not_set,
                distribution=tried.distribution,
                problem=tried.problem,
            )
        public = LabelOut.of(label)
        return cls(
            value=public.value,
            confidence=public.confidence,
            source=public.source,
            runner_up=public.runner_up,
            uncertain=public.uncertain,
            distribution=tried.distribution,
            problem=tried.problem,
        )


class ClassifyTry(Result):
    """The CLI's ``classify try``: a file's labels and date as an ingest would store them."""

    file: str
    path: str | None
    facets: dict[str, TriedFacet]
    date: str | None
    date_source: str | None
    problems: list[str]

    @classmethod
    def of(cls, tried: TriedFile) -> ClassifyTry:
        return cls(
            file=tried.file,
            path=tried.path,
            facets={facet.facet: TriedFacet.of(facet) for facet in tried.facets},
            date=tried.date,
            date_source=tried.date_source,
            problems=list(tried.problems),
        )
