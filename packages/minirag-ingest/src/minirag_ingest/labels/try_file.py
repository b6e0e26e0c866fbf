"""``classify try``: label one file the way an ingest would, store nothing, show everything.

:func:`classify_try` returns a :class:`TriedFile`; the server shapes it into the CLI's
``--json`` and its human lines. The CLI prints ``problems`` to stderr and exits 1 when there are
any: those are facets the model was asked and could not answer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from minirag_index.search import Label
from minirag_ingest.conversion.convert import Converted, convert_file
from minirag_ingest.document.dates import document_date
from minirag_ingest.labels.resolve import ModelSession, relative_path, resolve_labels
from minirag_ingest.labels.taxonomy import Taxonomy
from minirag_ingest.settings import DEFAULT_MAX_FILE_SIZE

DISTRIBUTION_DIGITS = 4


@dataclass(frozen=True)
class TriedFacet:
    """One facet of a tried file: its label, or why it has none."""

    facet: str
    label: Label | None
    not_set: str | None = None  # why there is no label (outside within, the model's problem…)
    distribution: dict[str, float] | None = None  # the model's answer, in the values' order
    problem: str | None = None  # the model was asked and could not answer


@dataclass(frozen=True)
class TriedFile:
    file: str  # the absolute path that was read
    path: str | None  # relative to its root, as path rules see it (None: under no root)
    facets: list[TriedFacet]
    date: str | None
    date_source: str | None
    problems: list[str]


def classify_try(
    path: str | os.PathLike[str],
    taxonomy: Taxonomy,
    model: ModelSession | None,
    *,
    roots: Iterable[Path] = (),
    convert: Callable[[Path], Converted] | None = None,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
) -> TriedFile:
    """Labels and date of one file, as an ingest would store them (nothing is stored).

    ``roots`` places the file for path rules and ``within`` (a file under no root is labelled
    like a text document: only model facets apply). ``convert`` lets the caller convert with
    its own settings (OCR…); by default the file is converted without OCR.
    """
    file = Path(os.path.abspath(Path(path).expanduser()))
    converted = convert(file) if convert else convert_file(file, max_file_size=max_file_size)
    rel = relative_path(file, roots)
    outcome = resolve_labels(
        taxonomy, rel_path=rel, markdown=converted.markdown, file_name=file.name, session=model
    )
    facets = []
    for facet in outcome.facets:
        distribution = None
        if facet.distribution is not None:
            spec = taxonomy.facet(facet.facet)
            ids = spec.value_ids if spec else tuple(facet.distribution)
            distribution = {vid: round(facet.distribution[vid], DISTRIBUTION_DIGITS) for vid in ids}
        not_set = None
        if facet.label is None:
            not_set = facet.absent or facet.problem or "not labelled"
        facets.append(TriedFacet(facet.facet, facet.label, not_set, distribution, facet.problem))
    date = document_date(converted.markdown, file.name, file.stat().st_mtime)
    return TriedFile(
        file=str(file),
        path=rel,
        facets=facets,
        date=date.date.isoformat() if date else None,
        date_source=date.source if date else None,
        problems=outcome.problems,
    )
