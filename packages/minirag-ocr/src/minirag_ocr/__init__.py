"""minirag-ocr: local OCR (RapidOCR on onnxruntime) for scanned PDF pages and image files.

A plug-in of minirag-ingest: the ``minirag.ocr`` entry point ``rapidocr`` names
:class:`RapidOcrPlugin` (the contract is :class:`minirag_ingest.extras.plugins.OcrPlugin`).
Importing
this package is cheap: RapidOCR, onnxruntime and pdfium are imported by the first recognition.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from minirag_index.settings import ConfigError
from minirag_ocr.settings import OcrSettings, load_ocr_settings

if TYPE_CHECKING:
    from minirag_ocr.engine import RapidOcrEngine

ENGINE_NAME = "rapidocr"
_REQUIRED_MODULES = ("rapidocr_onnxruntime", "pypdfium2", "PIL")

__all__ = ["ENGINE_NAME", "OcrSettings", "RapidOcrPlugin", "load_ocr_settings"]


class RapidOcrPlugin:
    """Builds :class:`~minirag_ocr.engine.RapidOcrEngine` for ``RAG_OCR_LANG``.

    ``settings`` fixes the language (for tests and embedding); without it each engine reads
    the environment when it is created. Raises ImportError when a library the engine needs is
    not installed, so discovery reports the extra as broken rather than offering it."""

    name = ENGINE_NAME

    def __init__(self, settings: OcrSettings | None = None) -> None:
        for module in _REQUIRED_MODULES:
            if importlib.util.find_spec(module) is None:
                raise ImportError(f"minirag-ocr needs {module}, which is not installed")
        self.settings = settings

    def model_state(self, cache_dir: Path) -> str:
        """Whether the recognition model of RAG_OCR_LANG is ``"bundled"``, ``"cached"`` or
        ``"downloads on first use"`` (status's ``ocrModel``); nothing is fetched."""
        from minirag_ocr.models import ModelStore

        settings = self.settings if self.settings is not None else load_ocr_settings()
        store = ModelStore(cache_dir, base_url=_model_url(settings))
        return store.state(settings.RAG_OCR_LANG)

    def create_engine(self, cache_dir: Path) -> RapidOcrEngine:
        """The engine; cheap (no model is loaded or downloaded here).

        Raises :class:`ConfigError` naming ``RAG_OCR_LANG`` and the valid ids for an unknown
        language."""
        from minirag_ocr.engine import RapidOcrEngine

        settings = self.settings if self.settings is not None else load_ocr_settings()
        try:
            url = _model_url(settings)
            return RapidOcrEngine(settings.RAG_OCR_LANG, cache_dir, model_base_url=url)
        except ValueError as exc:
            raise ConfigError(str(exc), variable="RAG_OCR_LANG") from None


def _model_url(settings: OcrSettings) -> str:
    """Where models are downloaded from: the mirror RAG_OCR_MODEL_URL names, else RapidOCR's."""
    from minirag_ocr.models import MODEL_BASE_URL

    return settings.RAG_OCR_MODEL_URL or MODEL_BASE_URL
