"""Answering questions of the stored chunks: hybrid fusion, filters, scope, mentions, look-alikes,
rebuilt sections.

What other packages use is exported here. find_mentions (:mod:`.mentions`) and the look-alike
signatures (:mod:`.lookalike`) are numpy-backed: import them from their modules where they are
used, so that importing this package stays light.
"""

from minirag_index.search.filters import (
    DocFilter,
    Label,
    StoredLabels,
    apply_filter,
    decode_labels,
    encode_labels,
    label_stats,
    parse_filter,
    public_labels,
    sort_by_date,
    sources_filter_sql,
)
from minirag_index.search.hybrid import DEFAULT_TOP_K, MAX_TOP_K, candidate_count, clamp_top_k
from minirag_index.search.reconstruct import (
    chunk_body,
    make_seam,
    read_seam,
    rebuild_document,
    rebuild_section,
)
from minirag_index.search.scope import in_any_scope, in_scope, scope_filter_sql, sql_string

__all__ = [
    "DEFAULT_TOP_K",
    "MAX_TOP_K",
    "DocFilter",
    "Label",
    "StoredLabels",
    "apply_filter",
    "candidate_count",
    "chunk_body",
    "clamp_top_k",
    "decode_labels",
    "encode_labels",
    "in_any_scope",
    "in_scope",
    "label_stats",
    "make_seam",
    "parse_filter",
    "public_labels",
    "read_seam",
    "rebuild_document",
    "rebuild_section",
    "scope_filter_sql",
    "sort_by_date",
    "sources_filter_sql",
    "sql_string",
]
