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

__getattr__ = lazy_exports(__name__, __file__)
