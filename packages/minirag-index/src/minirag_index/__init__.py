"""minirag-index: embedding, LanceDB storage and hybrid search over document chunks.

A standalone library: it knows nothing of files, converters or MCP. Hand it a source's chunks
and it embeds and stores them; ask it a question and it fuses vector and keyword rankings.
"""

from minirag_index.embedding.embedder import Embedder
from minirag_index.embedding.load_errors import ModelLoadError
from minirag_index.embedding.telemetry import keep_onnxruntime_offline
from minirag_index.errors import MiniragError, StoreUnavailableError
from minirag_index.heap import tune_process_memory
from minirag_index.index import DEFAULT_NEIGHBORS, MiniragIndex
from minirag_index.results import Hit, LookAlike, NeighborChunk, SearchResult, SourceHits
from minirag_index.search.hybrid import DEFAULT_TOP_K, MAX_TOP_K, clamp_top_k
from minirag_index.search.reconstruct import rebuild_document, rebuild_section
from minirag_index.search.scope import in_scope
from minirag_index.settings import ConfigError, IndexSettings, load_index_settings
from minirag_index.storage.store import (
    ChunkInput,
    IndexMismatchError,
    IndexTooOldError,
    ReadOnlyIndexError,
    SourceDoc,
    SourceInfo,
    StoredChunk,
)
from minirag_index.versions import READ, Version

__all__ = [
    "DEFAULT_NEIGHBORS",
    "DEFAULT_TOP_K",
    "MAX_TOP_K",
    "READ",
    "ChunkInput",
    "ConfigError",
    "Embedder",
    "Hit",
    "IndexMismatchError",
    "IndexSettings",
    "IndexTooOldError",
    "LookAlike",
    "MiniragError",
    "MiniragIndex",
    "ModelLoadError",
    "NeighborChunk",
    "ReadOnlyIndexError",
    "SearchResult",
    "SourceDoc",
    "SourceHits",
    "SourceInfo",
    "StoreUnavailableError",
    "StoredChunk",
    "Version",
    "clamp_top_k",
    "in_scope",
    "keep_onnxruntime_offline",
    "load_index_settings",
    "rebuild_document",
    "rebuild_section",
    "tune_process_memory",
]
