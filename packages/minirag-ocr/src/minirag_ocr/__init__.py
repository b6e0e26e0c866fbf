"""minirag-ocr: local OCR (RapidOCR on onnxruntime) for scanned PDF pages and image files.

A plug-in of minirag-ingest, found through the ``minirag.ocr`` entry point ``rapidocr``, which
names :func:`create_engine`. Importing this package is cheap: RapidOCR, onnxruntime and pdfium
are imported by the first recognition.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from minirag_ingest.ocr import OcrSettings
from minirag_ingest.settings import ConfigError

if TYPE_CHECKING:
    from minirag_ocr.engine import RapidOcrEngine

ENGINE_NAME = "rapidocr"
_REQUIRED_MODULES = ("rapidocr_onnxruntime", "pypdfium2", "PIL")

__all__ = ["ENGINE_NAME", "create_engine"]


def create_engine(settings: OcrSettings) -> RapidOcrEngine:
    """The engine for ``settings``; cheap (no model is loaded or downloaded here).

    Raises :class:`ConfigError` naming ``RAG_OCR_LANG`` and the valid ids for an unknown
    language, and :class:`ImportError` when a library the engine needs is not installed.
    """
    for module in _REQUIRED_MODULES:
        if importlib.util.find_spec(module) is None:
            raise ImportError(f"minirag-ocr needs {module}, which is not installed")
    from minirag_ocr.engine import RapidOcrEngine

    try:
        return RapidOcrEngine(settings.RAG_OCR_LANG, settings.CACHE_DIR)
    except ValueError as exc:
        raise ConfigError(str(exc), variable="RAG_OCR_LANG") from None
