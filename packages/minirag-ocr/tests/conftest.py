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
    from minirag_ingest.extras.plugins import OCR, find
    from minirag_ocr import OcrSettings, RapidOcrPlugin

    found = find(OCR)
    assert isinstance(found.plugin, RapidOcrPlugin), "minirag-ocr's entry point is not installed"
    plugin = RapidOcrPlugin(OcrSettings(RAG_OCR_LANG="ch"))
    return plugin.create_engine(tmp_path_factory.mktemp("cache"))
