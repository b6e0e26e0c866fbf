"""Bringing an older table up to this version when a writer opens it, and what a reader says
of a table it may not upgrade.

A writer's open adds what an index written by an older version lacks: the keyword term columns
and their indexes (:mod:`~minirag_index.storage.keyword_index`), the passage keys that let
stored vectors be reused, the find_mentions columns and their index
(:mod:`~minirag_index.storage.mention_columns`), and the vector index once the table is large
enough (:mod:`~minirag_index.storage.vector_index`). Each step is best-effort: a read-only
folder or a racing writer leaves the table as it was, with a warning, and reads still work.
A read-only store never upgrades; :func:`missing_columns` and :func:`reader_notes` say what it
cannot read and what the writer's next sync brings up to date.
"""

from __future__ import annotations

from typing import Any

from minirag_index.storage import keyword_index, mention_columns, vector_index
from minirag_index.storage.commits import best_effort, retry
from minirag_index.storage.location import IndexLocation
from minirag_index.storage.schema import CHUNK_COLUMNS, SOURCE_COLUMNS


def on_open(table: Any, vector_index_rows: int) -> list[str]:
    """A writer's open of an existing table: every upgrade; returns the warnings."""
    return [
        *keyword_index.ensure_current(table, retry),
        *passage_keys(table),
        *mention_columns.ensure_current(table, retry),
        *vector_index.ensure(table, vector_index_rows, retry),
    ]


def on_create(table: Any) -> list[str]:
    """A table just created: its keyword and find_mentions indexes."""
    return [
        *keyword_index.ensure_current(table, retry),
        *mention_columns.ensure_current(table, retry),
    ]


def passage_keys(table: Any) -> list[str]:
    """An index from before the passage keys gains the column, empty: its chunks are reused
    once they are stored again."""
    if "passage_key" in table.schema.names:
        return []
    import pyarrow as pa

    return best_effort(
        lambda: retry(lambda: table.add_columns([pa.field("passage_key", pa.string())])),
        "the passage keys could not be added (nothing is reused)",
    )


def missing_columns(table: Any) -> list[str]:
    """The columns reads need that ``table`` lacks (sorted, each once)."""
    names = table.schema.names
    return sorted({c for c in (*CHUNK_COLUMNS, *SOURCE_COLUMNS) if c not in names})


def reader_notes(table: Any, location: IndexLocation) -> list[str]:
    """What a read-only store says of ``table``: the upgrades the writer's next open makes."""
    indexed, _ = keyword_index.searchable(table)
    if list(indexed) == list(keyword_index.TERM_COLUMNS):
        return []
    return [
        f"the keyword indexes of {location} are from an older version (searched as they "
        "are); the writer's next sync with this version brings them up to date"
    ]
