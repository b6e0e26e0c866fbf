"""minirag-classify: the local choice model that answers minirag's model facets.

A plug-in for minirag-ingest, found through the ``minirag.classify`` entry point group: it runs
a GGUF model in-process with llama.cpp, puts a facet's question to it as a closed choice with
option letters, and reads each letter's probability from the logits of the next token. Nothing
here runs at import: the model is downloaded and loaded only when a job first needs it.
"""

from minirag_classify.download import ModelDownloadError, download_model, model_cache_path
from minirag_classify.plugin import LlamaPlugin

__all__ = ["LlamaPlugin", "ModelDownloadError", "download_model", "model_cache_path"]
