"""Label and date filters over indexed sources, and the stored form of a source's labels.

Pure code: no store access, no knowledge of the taxonomy file. The caller hands in the facets
and their value ids as plain data (``{"type": ["minutes", "mail"], ...}``) and the sources to
filter (``{source: SourceInfo}``, already limited to the caller's scope).

The labels of one source are stored as JSON text in ``SourceDoc.labels``::

    {"taxonomy": "<fingerprint>", "at": "<path rules were matched against>",
     "facets": {
        "type": {"value": "minutes", "confidence": 0.93, "source": "model",
                 "runnerUp": "report", "uncertain": false},
        "area": {"absent": "outside within"},
        "kind": {"unset": "<why the model could not answer>"}},
     "pending": ["kind"]}

``absent`` marks a facet that does not apply to the document (outside the facet's ``within``,
or a text document a path or default cannot place); ``unset`` a facet that should have a value
and has none yet. ``pending`` names facets the model was asked and could not answer, so a later
sync asks again once the model works.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from minirag_index.search.scope import sql_string

LabelSource = Literal["path", "default", "model"]
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


# -- the stored form ----------------------------------------------------------------------


@dataclass(frozen=True)
class Label:
    value: str
    confidence: float
    source: LabelSource
    runner_up: str | None = None
    uncertain: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "value": self.value,
            "confidence": round(float(self.confidence), 4),
            "source": self.source,
        }
        if self.runner_up is not None:
            data["runnerUp"] = self.runner_up
        data["uncertain"] = self.uncertain
        return data

    def matches(self, wanted: Collection[str]) -> bool:
        """Soft matching: an uncertain label also matches its runner-up."""
        if self.value in wanted:
            return True
        return self.uncertain and self.runner_up is not None and self.runner_up in wanted


@dataclass(frozen=True)
class StoredLabels:
    """Everything stored about one source's labels (see the module docstring)."""

    labels: dict[str, Label] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)
    unset: dict[str, str] = field(default_factory=dict)
    pending: tuple[str, ...] = ()
    taxonomy: str | None = None
    at: str | None = None

    def to_json(self) -> str:
        facets: dict[str, Any] = {}
        for name, label in self.labels.items():
            facets[name] = label.to_json()
        for name, why in self.absent.items():
            facets[name] = {"absent": why}
        for name, why in self.unset.items():
            facets[name] = {"unset": why}
        data: dict[str, Any] = {"taxonomy": self.taxonomy, "at": self.at, "facets": facets}
        if self.pending:
            data["pending"] = list(self.pending)
        return json.dumps(data, ensure_ascii=False, sort_keys=True)

    def public(self) -> dict[str, dict[str, Any]]:
        """The labels as a tool or CLI row shows them: facet → value, confidence, source…"""
        return {name: label.to_json() for name, label in sorted(self.labels.items())}


def encode_labels(stored: StoredLabels) -> str:
    return stored.to_json()


def decode_labels(text: str | None) -> StoredLabels | None:
    """The stored labels, or None when there are none (or the text is not ours)."""
    if not text:
        return None
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("facets"), dict):
        return None
    labels: dict[str, Label] = {}
    absent: dict[str, str] = {}
    unset: dict[str, str] = {}
    for name, entry in data["facets"].items():
        if not isinstance(entry, dict):
            continue
        if "absent" in entry:
            absent[name] = str(entry["absent"])
        elif "unset" in entry:
            unset[name] = str(entry["unset"])
        elif isinstance(entry.get("value"), str):
            source = entry.get("source")
            labels[name] = Label(
                value=entry["value"],
                confidence=float(entry.get("confidence", 0.0)),
                source=source if source in ("path", "default", "model") else "model",
                runner_up=entry.get("runnerUp"),
                uncertain=bool(entry.get("uncertain", False)),
            )
    pending = data.get("pending") or []
    return StoredLabels(
        labels=labels,
        absent=absent,
        unset=unset,
        pending=tuple(str(name) for name in pending if isinstance(name, str)),
        taxonomy=data.get("taxonomy"),
        at=data.get("at"),
    )


def public_labels(text: str | None) -> dict[str, dict[str, Any]]:
    """Labels for a sources row or a files row; ``{}`` when the source has none."""
    stored = decode_labels(text)
    return stored.public() if stored else {}


# -- parsing a filter ---------------------------------------------------------------------


@dataclass(frozen=True)
class DocFilter:
    """A parsed filter: facet → accepted values (alternatives), and an inclusive date range."""

    labels: dict[str, frozenset[str]] = field(default_factory=dict)
    date_from: dt.date | None = None
    date_to: dt.date | None = None

    @property
    def dated(self) -> bool:
        return self.date_from is not None or self.date_to is not None

    @property
    def active(self) -> bool:
        return bool(self.labels) or self.dated


def _valid_list(vocabulary: Mapping[str, Sequence[str]]) -> str:
    return "; ".join(f"{facet}: {', '.join(values)}" for facet, values in vocabulary.items())


def parse_date(raw: Any, name: str) -> dt.date | None:
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or not _DATE.match(raw.strip()):
        raise ValueError(f"{name} must be a date written YYYY-MM-DD (got {raw!r})")
    try:
        return dt.date.fromisoformat(raw.strip())
    except ValueError:
        raise ValueError(f"{name} is not a real date: {raw!r} (expected YYYY-MM-DD)") from None


def parse_filter(
    labels: Mapping[str, Any] | None,
    date_from: Any = None,
    date_to: Any = None,
    *,
    vocabulary: Mapping[str, Sequence[str]] | None,
    date_names: tuple[str, str] = ("dateFrom", "dateTo"),
) -> DocFilter:
    """Check a filter against the taxonomy's facets and values.

    ``labels`` is ``{facet: value}`` or ``{facet: [values]}``. Raises ValueError naming what is
    valid for an unknown facet or value, an empty value list, or a malformed date.
    ``vocabulary`` is None when the corpus has no taxonomy: any label filter is then refused.
    """
    parsed: dict[str, frozenset[str]] = {}
    if labels:
        if not isinstance(labels, Mapping):
            raise ValueError('labels must be an object: {"facet": "value"} or {"facet": [...]}')
        if vocabulary is None:
            raise ValueError(
                "labels cannot be filtered: this corpus has no taxonomy file "
                "(.minirag/classify.toml in the first document root)"
            )
        for facet, wanted in labels.items():
            if facet not in vocabulary:
                known = ", ".join(vocabulary) or "(none)"
                raise ValueError(
                    f"unknown facet {facet!r}; valid facets: {known}. "
                    f"Valid values: {_valid_list(vocabulary)}"
                )
            values = [wanted] if isinstance(wanted, str) else wanted
            if not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
                raise ValueError(
                    f"labels.{facet} must be a value id or a list of value ids; "
                    f"valid values: {', '.join(vocabulary[facet])}"
                )
            if not values:
                raise ValueError(
                    f"labels.{facet} is an empty list; valid values: {', '.join(vocabulary[facet])}"
                )
            unknown = [v for v in values if v not in vocabulary[facet]]
            if unknown:
                raise ValueError(
                    f"unknown value {unknown[0]!r} for facet {facet!r}; valid values: "
                    f"{', '.join(vocabulary[facet])}"
                )
            parsed[facet] = frozenset(values)
    start = parse_date(date_from, date_names[0])
    end = parse_date(date_to, date_names[1])
    if start is not None and end is not None and start > end:
        raise ValueError(
            f"{date_names[0]} {start.isoformat()} is after {date_names[1]} {end.isoformat()}"
        )
    return DocFilter(labels=parsed, date_from=start, date_to=end)


# -- applying it --------------------------------------------------------------------------

Verdict = Literal["match", "excluded", "unlabelled", "undated", "unlabelled+undated"]


def judge(labels_text: str | None, doc_date: str | None, flt: DocFilter) -> Verdict:
    """Whether one document passes, and if not, whether only missing data kept it out.

    A confident, different label or a date outside the range excludes it legitimately; so does
    a facet marked absent (outside its ``within``). A document whose only failures are a missing
    label and/or a missing date is ``unlabelled`` / ``undated`` / both.
    """
    missing_label = False
    missing_date = False
    if flt.labels:
        stored = decode_labels(labels_text)
        for facet, wanted in flt.labels.items():
            label = stored.labels.get(facet) if stored else None
            if label is not None:
                if not label.matches(wanted):
                    return "excluded"
            elif stored is not None and facet in stored.absent:
                return "excluded"
            else:
                missing_label = True
    if flt.dated:
        day = _as_date(doc_date)
        if day is None:
            missing_date = True
        elif (flt.date_from and day < flt.date_from) or (flt.date_to and day > flt.date_to):
            return "excluded"
    if missing_label and missing_date:
        return "unlabelled+undated"
    if missing_label:
        return "unlabelled"
    if missing_date:
        return "undated"
    return "match"


def _as_date(text: str | None) -> dt.date | None:
    if not text:
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


@dataclass
class FilterResult:
    kept: dict[str, Any]
    unlabelled: int = 0
    undated: int = 0

    @property
    def counts(self) -> dict[str, int]:
        """The payload's ``filterCounts``."""
        return {"unlabelled": self.unlabelled, "undated": self.undated}


def apply_filter(sources: Mapping[str, Any], flt: DocFilter) -> FilterResult:
    """Filter ``{source: SourceInfo}`` (anything with ``labels`` and ``doc_date``).

    A document missing both a filtered label and a date counts under both counts.
    """
    result = FilterResult(kept={})
    for name, info in sources.items():
        verdict = judge(info.labels, info.doc_date, flt)
        if verdict == "match":
            result.kept[name] = info
        if verdict in ("unlabelled", "unlabelled+undated"):
            result.unlabelled += 1
        if verdict in ("undated", "unlabelled+undated"):
            result.undated += 1
    return result


def sort_by_date(sources: Iterable[Any]) -> list[Any]:
    """Newest first, undated last; ties keep their order (``list_files sort: "date"``)."""
    items = list(sources)
    keyed = [(s, _as_date(s.doc_date)) for s in items]
    dated = [(s, day) for s, day in keyed if day is not None]
    dated.sort(key=lambda pair: pair[1], reverse=True)
    return [s for s, _ in dated] + [s for s, day in keyed if day is None]


def sources_filter_sql(sources: Collection[str]) -> str:
    """A LanceDB ``where`` limiting a search to ``sources`` (combine with the scope's by AND).

    An empty collection gives a filter that matches nothing.
    """
    if not sources:
        return "false"
    return "source IN (" + ", ".join(sql_string(s) for s in sorted(sources)) + ")"


@dataclass
class FacetStats:
    values: dict[str, int]
    unlabelled: int = 0
    uncertain: int = 0


def label_stats(
    sources: Iterable[Any], vocabulary: Mapping[str, Sequence[str]]
) -> tuple[dict[str, FacetStats], int]:
    """Per facet: documents per value, unlabelled and uncertain counts; and the undated total.

    For status's labels block. A document whose facet is absent (outside ``within``) is in
    none of a facet's counts; a label whose value the taxonomy no longer has counts as
    unlabelled, since the next sync re-labels it.
    """
    stats = {
        facet: FacetStats(values=dict.fromkeys(values, 0)) for facet, values in vocabulary.items()
    }
    undated = 0
    for info in sources:
        if _as_date(info.doc_date) is None:
            undated += 1
        stored = decode_labels(info.labels)
        for facet, entry in stats.items():
            label = stored.labels.get(facet) if stored else None
            if label is not None and label.value in entry.values:
                entry.values[label.value] += 1
                entry.uncertain += label.uncertain
            elif stored is None or facet not in stored.absent:
                entry.unlabelled += 1
    return stats, undated
