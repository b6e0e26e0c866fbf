"""One job's labelling (an ingest, a sync): the taxonomy read once at its start, and the
model session that loads the choice model for the first document needing it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from minirag_index import SourceDoc
from minirag_ingest.labels.resolve import ModelSession, resolve_labels
from minirag_ingest.labels.taxonomy import Taxonomy, TaxonomyError, TaxonomyLoader


class LabelJob:
    """One job's labelling: the taxonomy read once at its start and the model session that
    loads the choice model for the first document needing it and releases it at :meth:`close`.

    ``taxonomy`` None means the feature is off (no taxonomy file), or the file cannot be parsed
    (``error`` says why): documents are then stored without labels.
    """

    def __init__(self, loader: TaxonomyLoader | None, cache_dir: Path):
        self.taxonomy: Taxonomy | None = None
        self.error: str | None = None
        self.session: ModelSession | None = None
        if loader is None:
            return
        try:
            self.taxonomy = loader.get()
        except TaxonomyError as exc:
            self.error = str(exc)
        if self.taxonomy is not None:
            self.session = ModelSession(self.taxonomy.model, cache_dir)

    @property
    def active(self) -> bool:
        return self.taxonomy is not None or self.error is not None

    def label(
        self, doc: SourceDoc, markdown: str, rel_path: str | None, file_name: str | None
    ) -> tuple[SourceDoc, str | None, tuple[str, ...]]:
        """``doc`` with its labels, the ingest's ``labelProblem`` and the per-facet problems."""
        if self.error is not None:
            return doc, f"stored without labels: {self.error}", ()
        if self.taxonomy is None:
            return doc, None, ()
        outcome = resolve_labels(
            self.taxonomy,
            rel_path=rel_path,
            markdown=markdown,
            file_name=file_name,
            session=self.session,
        )
        return (
            replace(doc, labels=outcome.to_json()),
            outcome.label_problem,
            tuple(outcome.problems),
        )

    def close(self) -> None:
        if self.session is not None:
            self.session.close()

    def __enter__(self) -> LabelJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
