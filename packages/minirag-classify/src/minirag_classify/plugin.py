"""The entry point minirag-ingest discovers (group ``minirag.classify``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_classify.download import download_model, failed_download, is_cached
from minirag_ingest.labels.taxonomy import ModelSpec

if TYPE_CHECKING:
    from minirag_classify.model import LlamaChoiceModel


def llama_hint() -> str:
    from minirag_ingest.extras.install import install_hint

    return (
        "llama-cpp-python is not importable; reinstall the [classify] extra: "
        f"{install_hint('classify')} (it compiles llama.cpp, which needs a C/C++ toolchain)"
    )


class LlamaPlugin:
    """Loads the taxonomy's GGUF model with llama.cpp, downloading a pinned file first."""

    name = "llama.cpp"

    def __init__(self, *, base_url: str | None = None, n_threads: int | None = None):
        self.base_url = base_url
        self.n_threads = n_threads

    def probe(self, spec: ModelSpec, cache_dir: Path) -> str | None:
        if importlib.util.find_spec("llama_cpp") is None:
            return llama_hint()
        local = spec.local_path
        if local is not None:
            return None if local.is_file() else f"model.path {local} is not a file"
        if is_cached(spec, cache_dir):
            return None
        return failed_download(spec)  # downloaded on first use: available until that fails

    def load(self, spec: ModelSpec, cache_dir: Path) -> LlamaChoiceModel:
        from minirag_classify.model import LlamaChoiceModel

        if importlib.util.find_spec("llama_cpp") is None:
            raise RuntimeError(llama_hint())
        local = spec.local_path
        if local is not None and not local.is_file():
            raise FileNotFoundError(f"model.path {local} is not a file")
        path = local if local is not None else download_model(spec, cache_dir, base=self.base_url)
        return LlamaChoiceModel(
            path,
            temperature=spec.temperature,
            file_name_label=spec.file_name_label,
            n_threads=self.n_threads,
        )
