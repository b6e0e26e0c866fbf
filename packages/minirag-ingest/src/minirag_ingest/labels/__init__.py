"""Document labels: the taxonomy file, per-facet resolution and the choice model of a job.

The feature is off unless ``<first root>/.minirag/classify.toml`` exists. Facets answered by
folders or defaults need nothing more; facets answered by the model need the ``minirag.classify``
plug-in (the ``[classify]`` extra, see :mod:`minirag_ingest.extras.plugins`).
"""

from minirag_ingest.labels.resolve import (
    LabelOutcome,
    ModelSession,
    ModelUnavailable,
    model_state,
    needs_relabel,
    relative_path,
    resolve_labels,
)
from minirag_ingest.labels.taxonomy import (
    DEFAULT_QUESTION,
    TAXONOMY_FILE,
    Facet,
    ModelSpec,
    Taxonomy,
    TaxonomyError,
    TaxonomyLoader,
    Value,
    load_taxonomy,
    parse_taxonomy,
    taxonomy_path,
)

__all__ = [
    "DEFAULT_QUESTION",
    "TAXONOMY_FILE",
    "Facet",
    "LabelOutcome",
    "ModelSession",
    "ModelSpec",
    "ModelUnavailable",
    "Taxonomy",
    "TaxonomyError",
    "TaxonomyLoader",
    "Value",
    "load_taxonomy",
    "model_state",
    "needs_relabel",
    "parse_taxonomy",
    "relative_path",
    "resolve_labels",
    "taxonomy_path",
]
