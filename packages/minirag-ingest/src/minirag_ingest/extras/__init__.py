"""The seams of the optional extras: the plug-in contracts, OCR, and the install hint.

Each name is imported from its module on first use, so importing this package loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.extras.install import install_hint
    from minirag_ingest.extras.ocr import IMAGE_EXTENSIONS, OcrError, load_ocr_engine, ocr_missing
    from minirag_ingest.extras.plugins import (
        CLASSIFY,
        OCR,
        ChoiceModel,
        ClassifyPlugin,
        OcrEngine,
        OcrPlugin,
        find,
    )

_HOMES = {
    "install_hint": "minirag_ingest.extras.install",
    "IMAGE_EXTENSIONS": "minirag_ingest.extras.ocr",
    "OcrError": "minirag_ingest.extras.ocr",
    "load_ocr_engine": "minirag_ingest.extras.ocr",
    "ocr_missing": "minirag_ingest.extras.ocr",
    "CLASSIFY": "minirag_ingest.extras.plugins",
    "OCR": "minirag_ingest.extras.plugins",
    "ChoiceModel": "minirag_ingest.extras.plugins",
    "ClassifyPlugin": "minirag_ingest.extras.plugins",
    "OcrEngine": "minirag_ingest.extras.plugins",
    "OcrPlugin": "minirag_ingest.extras.plugins",
    "find": "minirag_ingest.extras.plugins",
}

__all__ = [
    "CLASSIFY",
    "IMAGE_EXTENSIONS",
    "OCR",
    "ChoiceModel",
    "ClassifyPlugin",
    "OcrEngine",
    "OcrError",
    "OcrPlugin",
    "find",
    "install_hint",
    "load_ocr_engine",
    "ocr_missing",
]

__getattr__ = lazy_exports(__name__, _HOMES)
