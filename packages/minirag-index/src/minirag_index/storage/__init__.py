"""The LanceDB table: its columns, indexes, writes and where it lives.

What other packages use is exported here; :class:`Store` is reached through
:class:`minirag_index.MiniragIndex`, whose methods say what a caller may ask of it.
"""

from minirag_index.storage.location import RETRY_OPTIONS, IndexLocation, StoreAccess
from minirag_index.storage.schema import ChunkInput, SourceDoc, SourceInfo, StoredChunk
from minirag_index.storage.store import (
    IndexMismatchError,
    IndexTooOldError,
    ReadOnlyIndexError,
    Store,
)
from minirag_index.storage.summary import IndexSummary

__all__ = [
    "RETRY_OPTIONS",
    "ChunkInput",
    "IndexLocation",
    "IndexMismatchError",
    "IndexSummary",
    "IndexTooOldError",
    "ReadOnlyIndexError",
    "SourceDoc",
    "SourceInfo",
    "Store",
    "StoreAccess",
    "StoredChunk",
]
