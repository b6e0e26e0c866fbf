"""Document labels in the tools: a request's label and date arguments, the keys rows carry, and
``classify_try``. The rules are in :mod:`minirag_ingest.labels`.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_ingest.labels import filtering
from minirag_ingest.labels.filtering import LabelView
from minirag_mcp.context import AppContext
from minirag_mcp.operations import OperationError, require_absolute
from minirag_mcp.results import (
    ClassifyTry,
    FacetStatus,
    FilterCounts,
    LabelOut,
    LabelsStatus,
    ValueCount,
)

if TYPE_CHECKING:
    pass


# -- document labels -------------------------------------------------------------------------
#
# The feature is on only while <first root>/.minirag/classify.toml exists. Without it no key
# is added anywhere, and the label and date arguments (labels, dateFrom, dateTo, sort "date")
# are refused with a message saying how to turn it on: a date filter alone would drop undated
# documents silently, since filterCounts is a key of the feature too.


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str | dict | list) and not value)


def label_view(
    ctx: AppContext,
    labels: dict[str, Any] | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    sort: str | None = None,
) -> LabelView:
    """Check a request's label and date arguments against the corpus's taxonomy."""
    words = ctx.wording
    if not _blank(sort) and sort != "date":
        raise OperationError(
            f'{words.arg("sort")} must be "date" (newest first, undated last), got {sort!r}'
        )
    wants_filter = not (_blank(labels) and _blank(date_from) and _blank(date_to))
    loader = ctx.taxonomy
    if not loader.present:
        if wants_filter or not _blank(sort):
            raise OperationError(
                f"{words.arg('labels')}, dateFrom, dateTo and {words.arg('sort')} date are part "
                f"of document labels, which are off for this corpus: there is no {loader.path}. "
                "Create it to turn them on."
            )
        return LabelView()
    try:
        return filtering.view_for(loader, labels, date_from, date_to, wants_filter=wants_filter)
    except ValueError as exc:
        raise OperationError(str(exc)) from None


def apply_label_filter(ctx: AppContext, view: LabelView, indexed: dict[str, Any]) -> None:
    """Filter ``indexed`` (the sources in scope): fills matched, counts and notice."""
    if view.filtering:
        filtering.apply(view, indexed, ctx.require_config().index.CACHE_DIR)


def label_fields(info: Any) -> dict[str, Any]:
    """A row's labels, date and dateSource (only added while the feature is on)."""
    from minirag_index.search import decode_labels

    stored = decode_labels(info.labels)
    labels = sorted(stored.labels.items()) if stored is not None else []
    return {
        "labels": {name: LabelOut.of(label) for name, label in labels},
        "date": info.doc_date,
        "date_source": info.date_source,
    }


def filter_fields(view: LabelView) -> dict[str, Any]:
    """filterCounts and filterNotice of a filtered request (nothing without a filter)."""
    counts = None if view.counts is None else FilterCounts.model_validate(view.counts)
    return {"filter_counts": counts, "filter_notice": view.notice or None}


def labels_status(ctx: AppContext, infos: dict[str, Any]) -> LabelsStatus | None:
    """status's labels block, or None when the corpus has no taxonomy file."""
    loader = ctx.taxonomy
    if not loader.present:
        return None
    if loader.error:
        return LabelsStatus(error=loader.error)
    counted = filtering.label_counts(
        loader.require(), infos.values(), ctx.require_config().index.CACHE_DIR
    )
    facets = {
        facet.name: FacetStatus(
            question=facet.question,
            values=[
                ValueCount(id=v.id, description=v.description, count=v.count) for v in facet.values
            ],
            unlabelled=facet.unlabelled,
            uncertain=facet.uncertain,
            within=list(facet.within) or None,
        )
        for facet in counted.facets
    }
    return LabelsStatus(
        facets=facets,
        undated=counted.undated,
        model=counted.model,
        model_hint=counted.model_hint or None,
    )


def classify_try(ctx: AppContext, file_path: str) -> ClassifyTry:
    """Label one file the way an ingest would and return everything (nothing is stored).

    Loads the choice model when a facet needs it and releases it before returning. Refuses
    when the corpus has no taxonomy file or the file cannot be parsed."""
    config = ctx.require_places()
    path = require_absolute(file_path)
    if not os.path.isfile(path):
        raise OperationError(f"{path} is not a file")
    loader = ctx.taxonomy
    if not loader.present:
        raise OperationError(
            f"there is no {loader.path}: document labels are off for this corpus, so there is "
            "nothing to try"
        )
    if loader.error:
        raise OperationError(loader.error)
    from minirag_ingest.conversion.convert import convert_file
    from minirag_ingest.files.roots import PathOutsideRoots
    from minirag_ingest.labels.resolve import ModelSession
    from minirag_ingest.labels.try_file import classify_try as try_file

    taxonomy = loader.require()
    with contextlib.suppress(PathOutsideRoots):  # outside every root: only model facets apply
        path = str(ctx.roots.contain(path))

    def convert(target: Path) -> Any:
        return convert_file(
            target,
            max_file_size=config.ingest.max_file_size,
            ocr=config.ocr,
            ocr_min_chars_per_page=config.ingest.rag_ocr_min_chars_per_page,
        )

    with ModelSession(taxonomy.model, config.index.CACHE_DIR) as session:
        tried = try_file(path, taxonomy, session, roots=ctx.roots.paths, convert=convert)
    return ClassifyTry.of(tried)
