"""Embedding models: loading, describing and optimising them, offline rules.

What other packages use is exported here.
"""

from minirag_index.embedding.embedder import Embedder, runtime_modules
from minirag_index.embedding.load_errors import ModelLoadError
from minirag_index.embedding.model_spec import ModelSpec
from minirag_index.embedding.telemetry import keep_onnxruntime_offline

__all__ = ["Embedder", "ModelLoadError", "ModelSpec", "keep_onnxruntime_offline", "runtime_modules"]
