"""Generated scans for real recognition: pages drawn with a system font, PDFs and TIFFs.

Nothing here needs a download: the recognition model is the Chinese/English one bundled in
the rapidocr-onnxruntime wheel (language id ``ch``), which reads English.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def ocr_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The real engine on the bundled model, shared so the model loads once."""
    from minirag_ingest.ocr import load_ocr_engine, load_ocr_settings

    settings = load_ocr_settings(RAG_OCR_LANG="ch", CACHE_DIR=tmp_path_factory.mktemp("cache"))
    engine = load_ocr_engine(settings)
    assert engine is not None, "the minirag.ocr entry point of minirag-ocr is not installed"
    return engine
