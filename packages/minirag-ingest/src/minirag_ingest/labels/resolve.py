"""Resolving each facet of one document, and the job's use of the choice model.

Per facet, in order: ``within`` (outside it the facet is absent) → the longest matching
``paths`` folder (confidence 1; with ``override_at`` the model may still replace it) →
``default`` → the model. The model is reached through a :class:`ModelSession`, which loads the
plug-in's model for the first document of a job that needs it and releases it at the end.

The model itself comes from the ``minirag.classify`` plug-in (:mod:`minirag_ingest.extras.plugins`);
nothing here imports it. Without it, model-answered facets are left unset and the reason is
reported (``labelProblem``), while path and default facets work as usual.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from minirag_index.search import Label, StoredLabels, decode_labels, encode_labels
from minirag_ingest.errors import IngestError
from minirag_ingest.extras.plugins import CLASSIFY, ChoiceModel, ClassifyPlugin, find, missing_extra
from minirag_ingest.labels.taxonomy import Facet, ModelSpec, Taxonomy, nfc

log = logging.getLogger(__name__)

HEAD_CHARS = 2000
"""How much of a document the model reads: its first part, where its form shows."""

ABSENT_WITHIN = "outside within"
ABSENT_NO_PATH = "a text or URL document has no folder for paths or default to place it"

__all__ = [
    "HEAD_CHARS",
    "FacetOutcome",
    "Label",
    "LabelOutcome",
    "ModelSession",
    "ModelUnavailable",
    "decode_labels",
    "encode_labels",
    "filter_notice",
    "label_problem",
    "model_state",
    "needs_relabel",
    "relative_path",
    "resolve_labels",
]


class ModelUnavailable(IngestError, RuntimeError):
    """The model could not answer; the message is the reason shown to the user."""


_live_lock = threading.Lock()
_live_sessions: weakref.WeakSet[ModelSession] = weakref.WeakSet()


def model_state(taxonomy: Taxonomy | None, cache_dir: Path) -> tuple[str, str | None]:
    """status's ``labels.model`` and ``labels.modelHint``: "loaded", "on demand" or
    "unavailable" with the reason. Never loads or downloads anything."""
    if taxonomy is None or taxonomy.model is None or not taxonomy.needs_model:
        return "on demand", None
    with _live_lock:
        if _live_sessions:
            return "loaded", None
    found = find(CLASSIFY)
    plugin: ClassifyPlugin | None = found.plugin
    if plugin is None:
        return "unavailable", found.missing
    try:
        reason = plugin.probe(taxonomy.model, Path(cache_dir) / "classify")
    except Exception as exc:
        reason = f"the classify plug-in could not check the model: {exc}"
    return ("unavailable", reason) if reason else ("on demand", None)


class ModelSession:
    """One job's use of the choice model.

    Nothing is loaded until :meth:`ask` is first called; a load failure is remembered for the
    rest of the job (so a corpus does not retry a broken download per document), and
    :meth:`close` releases the model. Use it as a context manager around a job.
    """

    def __init__(self, spec: ModelSpec | None, cache_dir: Path):
        self.spec = spec
        self.cache_dir = Path(cache_dir)
        self._model: ChoiceModel | None = None
        self._problem: str | None = None
        self._lock = threading.Lock()
        self.loads = 0

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def problem(self) -> str | None:
        return self._problem

    def _ensure(self) -> ChoiceModel:
        if self._model is not None:
            return self._model
        if self._problem is not None:
            raise ModelUnavailable(self._problem)
        if self.spec is None:
            self._problem = "classify.toml has no [model]"
            raise ModelUnavailable(self._problem)
        found = find(CLASSIFY)
        plugin: ClassifyPlugin | None = found.plugin
        if plugin is None:
            self._problem = found.missing or missing_extra(CLASSIFY)
            raise ModelUnavailable(self._problem)
        try:
            self._model = plugin.load(self.spec, self.cache_dir / "classify")
        except Exception as exc:
            self._problem = f"the choice model could not be loaded: {exc}"
            log.warning("%s", self._problem)
            raise ModelUnavailable(self._problem) from None
        self.loads += 1
        with _live_lock:
            _live_sessions.add(self)
        return self._model

    def ask(
        self,
        question: str,
        options: Sequence[tuple[str, str]],
        document_head: str,
        file_name: str | None,
    ) -> dict[str, float]:
        with self._lock:
            model = self._ensure()
            try:
                answer = model.ask(question, options, document_head, file_name)
            except Exception as exc:
                raise ModelUnavailable(f"the choice model failed on this document: {exc}") from None
        ids = [option_id for option_id, _ in options]
        probabilities = {option_id: float(answer.get(option_id, 0.0)) for option_id in ids}
        total = sum(probabilities.values())
        if not total > 0:
            raise ModelUnavailable("the choice model returned no probabilities")
        return {option_id: p / total for option_id, p in probabilities.items()}

    def close(self) -> None:
        with self._lock:
            model, self._model = self._model, None
            with _live_lock:
                _live_sessions.discard(self)
            if model is not None:
                try:
                    model.close()
                finally:
                    del model
                    gc.collect()

    def __enter__(self) -> ModelSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- resolution ---------------------------------------------------------------------------


def relative_path(path: str | os.PathLike[str], roots: Iterable[Path]) -> str | None:
    """``path`` relative to the first root holding it (the first root wins, since the
    taxonomy file lives there), with ``/`` separators and NFC; None when no root holds it."""
    target = PurePath(path)
    for root in roots:
        try:
            rel = target.relative_to(root)
        except ValueError:
            continue
        return nfc(rel.as_posix())
    return None


def _longest_rule(facet: Facet, rel_path: str) -> str | None:
    best: tuple[int, str] | None = None
    for folder, value_id in facet.path_rules:
        if _under(rel_path, folder) and (best is None or len(folder) > best[0]):
            best = (len(folder), value_id)
    return best[1] if best else None


def _under(rel_path: str, folder: str) -> bool:
    return rel_path == folder or rel_path.startswith(folder + "/")


@dataclass
class FacetOutcome:
    facet: str
    label: Label | None = None
    absent: str | None = None
    problem: str | None = None
    asked: bool = False
    distribution: dict[str, float] | None = None


@dataclass
class LabelOutcome:
    taxonomy: Taxonomy
    facets: list[FacetOutcome] = field(default_factory=list)
    at: str | None = None

    @property
    def problems(self) -> list[str]:
        return [f"{f.facet}: {f.problem}" for f in self.facets if f.problem]

    @property
    def label_problem(self) -> str | None:
        """The ``labelProblem`` text of an ingest, or None when every facet got its answer."""
        return label_problem(self.facets)

    def stored(self) -> StoredLabels:
        labels = {f.facet: f.label for f in self.facets if f.label is not None}
        absent = {f.facet: f.absent for f in self.facets if f.absent is not None}
        unset = {
            f.facet: f.problem or "not labelled"
            for f in self.facets
            if f.label is None and f.absent is None
        }
        pending = tuple(f.facet for f in self.facets if f.problem)
        return StoredLabels(
            labels=labels,
            absent=absent,
            unset=unset,
            pending=pending,
            taxonomy=self.taxonomy.fingerprint(),
            at=self.at,
        )

    def to_json(self) -> str:
        """The text for ``SourceDoc.labels``."""
        return encode_labels(self.stored())


def label_problem(facets: Sequence[FacetOutcome]) -> str | None:
    """One line naming what a document was stored without, and why."""
    parts = []
    for f in facets:
        if not f.problem:
            continue
        if f.label is None:
            parts.append(f"stored without a label for {f.facet}: {f.problem}")
        else:
            parts.append(
                f"kept the {f.label.source} label of {f.facet} without the model's check: "
                f"{f.problem}"
            )
    return "; ".join(parts) or None


def _model_label(
    distribution: dict[str, float], order: Sequence[str], uncertain_below: float
) -> Label:
    ranked = sorted(order, key=lambda vid: (-distribution[vid], order.index(vid)))
    top = ranked[0]
    confidence = distribution[top]
    return Label(
        value=top,
        confidence=confidence,
        source="model",
        runner_up=ranked[1] if len(ranked) > 1 else None,
        uncertain=confidence < uncertain_below,
    )


def resolve_labels(
    taxonomy: Taxonomy,
    *,
    rel_path: str | None,
    markdown: str,
    file_name: str | None,
    session: ModelSession | None,
) -> LabelOutcome:
    """Label one document.

    ``rel_path`` is the document's path relative to its root (see :func:`relative_path`), or
    None for a text or URL document, which only the model can label. ``markdown`` is the
    converted document (or its text rebuilt from stored chunks); only its head is read.
    ``session`` None means the model is not reachable at all: model facets get a problem.
    """
    rel = nfc(rel_path) if rel_path is not None else None
    head = markdown.lstrip()[:HEAD_CHARS]
    outcome = LabelOutcome(taxonomy=taxonomy, at=rel)
    uncertain_below = taxonomy.model.uncertain_below if taxonomy.model else 0.7
    for facet in taxonomy.facets:
        result = FacetOutcome(facet.name)
        outcome.facets.append(result)
        if facet.within and (rel is None or not any(_under(rel, w) for w in facet.within)):
            result.absent = ABSENT_WITHIN
            continue
        path_value = _longest_rule(facet, rel) if rel is not None else None
        if path_value is not None:
            result.label = Label(path_value, 1.0, "path")
            if facet.override_at is None:
                continue
        elif rel is not None and facet.default is not None:
            result.label = Label(facet.default, 1.0, "default")
            continue
        elif rel is None and facet.default is not None:
            result.absent = ABSENT_NO_PATH
            continue
        _ask(result, facet, session, head, file_name, uncertain_below)
    return outcome


def _ask(
    result: FacetOutcome,
    facet: Facet,
    session: ModelSession | None,
    head: str,
    file_name: str | None,
    uncertain_below: float,
) -> None:
    result.asked = True
    if session is None:
        result.problem = "the choice model is not available here"
        return
    options = [(value.id, value.description) for value in facet.values]
    try:
        distribution = session.ask(facet.question, options, head, file_name)
    except ModelUnavailable as exc:
        result.problem = str(exc)
        return
    result.distribution = distribution
    answer = _model_label(distribution, facet.value_ids, uncertain_below)
    if result.label is None or (
        facet.override_at is not None
        and answer.confidence >= facet.override_at
        and answer.value != result.label.value
    ):
        result.label = answer


def needs_relabel(labels_text: str | None, taxonomy: Taxonomy, rel_path: str | None) -> bool:
    """Whether a stored document should be labelled again by a sync: it has no labels, they
    were made under another taxonomy or at another path, or the model owes it an answer."""
    stored = decode_labels(labels_text)
    if stored is None:
        return True
    if stored.taxonomy != taxonomy.fingerprint():
        return True
    if stored.at != (nfc(rel_path) if rel_path is not None else None):
        return True
    return bool(stored.pending)


def outcome_summary(outcome: LabelOutcome) -> dict[str, Any]:
    """facet → public label (or None), for logs and tests."""
    return {f.facet: (f.label.to_json() if f.label else None) for f in outcome.facets}


def filter_notice(
    taxonomy: Taxonomy, filtered: Iterable[str], state: str, hint: str | None
) -> str | None:
    """The ``filterNotice`` of a label filter on a facet the model answers while the model is
    unavailable: its documents may be missing from the answer, and this says why."""
    if state != "unavailable":
        return None
    affected = [name for name in filtered if (facet := taxonomy.facet(name)) and facet.needs_model]
    if not affected:
        return None
    return (
        f"the choice model is unavailable, so documents without a {', '.join(affected)} label "
        f"are missing from this answer (see filterCounts.unlabelled): {hint or 'no reason given'}"
    )
