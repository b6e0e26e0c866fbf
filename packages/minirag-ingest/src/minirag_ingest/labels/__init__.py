"""Document labels: the taxonomy file, per-facet resolution and the choice-model plug-in seam.

The feature is off unless ``<first root>/.minirag/classify.toml`` exists. Facets answered by
folders or defaults need nothing more; facets answered by the model need a plug-in registered
under the ``minirag.classify`` entry-point group (the ``[classify]`` extra).
"""

from minirag_ingest.labels.resolve import (
    ENTRY_POINT_GROUP,
    ChoiceModel,
    ClassifyPlugin,
    LabelOutcome,
    ModelSession,
    ModelUnavailable,
    classify_hint,
    discover_plugin,
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
    "ENTRY_POINT_GROUP",
    "TAXONOMY_FILE",
    "ChoiceModel",
    "ClassifyPlugin",
    "Facet",
    "LabelOutcome",
    "ModelSession",
    "ModelSpec",
    "ModelUnavailable",
    "Taxonomy",
    "TaxonomyError",
    "TaxonomyLoader",
    "Value",
    "classify_hint",
    "discover_plugin",
    "load_taxonomy",
    "model_state",
    "needs_relabel",
    "parse_taxonomy",
    "relative_path",
    "resolve_labels",
    "taxonomy_path",
]
