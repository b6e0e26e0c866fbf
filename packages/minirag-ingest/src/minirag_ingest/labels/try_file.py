"""``classify try``: label one file the way an ingest would, store nothing, show everything.

:func:`classify_try` returns a JSON-ready dict (the ``--json`` output); :func:`try_lines` turns
it into the human lines. The CLI prints ``problems`` to stderr and exits 1 when there are any:
those are facets the model was asked and could not answer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from minirag_ingest.convert import Converted, convert_file
from minirag_ingest.dates import document_date
from minirag_ingest.labels.resolve import ModelSession, relative_path, resolve_labels
from minirag_ingest.labels.taxonomy import Taxonomy
from minirag_ingest.settings import DEFAULT_MAX_FILE_SIZE


def classify_try(
    path: str | os.PathLike[str],
    taxonomy: Taxonomy,
    model: ModelSession | None,
    *,
    roots: Iterable[Path] = (),
    convert: Callable[[Path], Converted] | None = None,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
) -> dict[str, Any]:
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
    facets: dict[str, Any] = {}
    for facet in outcome.facets:
        entry: dict[str, Any]
        if facet.label is not None:
            entry = facet.label.to_json()
        else:
            entry = {"value": None, "notSet": facet.absent or facet.problem or "not labelled"}
        if facet.distribution is not None:
            order = taxonomy.facet(facet.facet)
            ids = order.value_ids if order else tuple(facet.distribution)
            entry["distribution"] = {vid: round(facet.distribution[vid], 4) for vid in ids}
        if facet.problem:
            entry["problem"] = facet.problem
        facets[facet.facet] = entry
    date = document_date(converted.markdown, file.name, file.stat().st_mtime)
    return {
        "file": str(file),
        "path": rel,
        "facets": facets,
        "date": date.date.isoformat() if date else None,
        "dateSource": date.source if date else None,
        "problems": outcome.problems,
    }


def try_lines(result: dict[str, Any]) -> list[str]:
    """The human output of ``classify try`` (stdout); problems go to stderr separately."""
    lines = [result["file"]]
    for name, entry in result["facets"].items():
        if entry.get("value") is None:
            lines.append(f"  {name}: not set ({entry.get('notSet')})")
            continue
        text = f"  {name}: {entry['value']}  {entry['confidence']:.2f} {entry['source']}" + (
            "  uncertain" if entry.get("uncertain") else ""
        )
        if entry.get("runnerUp") and entry.get("uncertain"):
            text += f" (runner-up {entry['runnerUp']})"
        lines.append(text)
        distribution = entry.get("distribution")
        if distribution:
            ranked = sorted(distribution.items(), key=lambda item: -item[1])
            lines.append("    " + "  ".join(f"{vid} {p:.2f}" for vid, p in ranked))
    if result["date"]:
        lines.append(f"  date: {result['date']} ({result['dateSource']})")
    else:
        lines.append("  date: none")
    return lines
