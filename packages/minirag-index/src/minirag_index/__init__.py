"""minirag-index: embedding, LanceDB storage and hybrid search over document chunks.

A standalone library: it knows nothing of files, converters or MCP. Hand it a source's chunks
and it embeds and stores them; ask it a question and it fuses vector and keyword rankings.
"""

from minirag_index.embedder import Embedder, ModelLoadError
from minirag_index.errors import StoreUnavailableError
from minirag_index.heap import arrow_on_system_allocator, fix_mmap_threshold, limit_heap_arenas
from minirag_index.index import (
    DEFAULT_NEIGHBORS,
    DEFAULT_TOP_K,
    MAX_TOP_K,
    Hit,
    LookAlike,
    MiniragIndex,
    NeighborChunk,
    SearchResult,
    SourceHits,
    clamp_top_k,
)
from minirag_index.lighter_imports import lighten_imports
from minirag_index.reconstruct import rebuild_document, rebuild_section
from minirag_index.scope import in_scope
from minirag_index.settings import ConfigError, IndexSettings, load_index_settings
from minirag_index.store import (
    ChunkInput,
    IndexMismatchError,
    IndexTooOldError,
    ReadOnlyIndexError,
    SourceDoc,
    SourceInfo,
    StoredChunk,
)
from minirag_index.telemetry import keep_onnxruntime_offline

keep_onnxruntime_offline()
# Before onnxruntime or LanceDB start their threads, each of which would keep a heap, and before
# their first large blocks (heap.py).
limit_heap_arenas()
fix_mmap_threshold()
arrow_on_system_allocator()
# Before anything imports LanceDB or fastembed (our modules import them inside functions): what
# their imports cost and this project never uses is skipped or deferred (lighter_imports.py).
lighten_imports()

__all__ = [
    "DEFAULT_NEIGHBORS",
    "DEFAULT_TOP_K",
    "MAX_TOP_K",
    "ChunkInput",
    "ConfigError",
    "Embedder",
    "Hit",
    "IndexMismatchError",
    "IndexSettings",
    "IndexTooOldError",
    "LookAlike",
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
    "clamp_top_k",
    "in_scope",
    "load_index_settings",
    "rebuild_document",
    "rebuild_section",
]
