"""OCR as conversion sees it: the engine this install offers, and the error recognition raises.

minirag-ingest never imports an OCR package: the engine comes from the ``minirag.ocr`` plug-in
(:data:`minirag_ingest.extras.plugins.OCR`, the ``[ocr]`` extra). :func:`load_ocr_engine` returns
``None`` when there is none, so a base install behaves exactly as if OCR did not exist; the
engine's own settings (``RAG_OCR_LANG``) belong to the plug-in.
"""

from __future__ import annotations

import logging
from pathlib import Path

from minirag_ingest.errors import IngestError
from minirag_ingest.extras.plugins import OCR, OcrEngine, OcrPlugin, find
from minirag_ingest.files.formats import IMAGE_EXTENSIONS

__all__ = [
    "IMAGE_EXTENSIONS",
    "OcrEngine",
    "OcrError",
    "load_ocr_engine",
    "ocr_engine_name",
    "ocr_missing",
]

_log = logging.getLogger(__name__)


class OcrError(IngestError):
    """Recognition of one file failed (model download, unreadable image, renderer error).

    Engines raise it with a one-line reason; conversion turns it into a per-file
    :class:`~minirag_ingest.errors.ConversionError`, never into an empty document.
    """


def ocr_engine_name() -> str | None:
    """The name of the OCR plug-in this install offers (no engine is built), or None."""
    return find(OCR).name


def ocr_missing() -> str | None:
    """Why this install has no OCR plug-in (the [ocr] extra's install hint), or None."""
    return find(OCR).missing


def load_ocr_engine(cache_dir: Path) -> OcrEngine | None:
    """The OCR engine of this install, its models kept under ``cache_dir``, or ``None``.

    A plug-in whose engine needs a library that is not installed counts as absent and is
    logged. A bad setting, such as an unknown ``RAG_OCR_LANG``, raises
    :class:`~minirag_index.settings.ConfigError` naming the variable.
    """
    plugin: OcrPlugin | None = find(OCR).plugin
    if plugin is None:
        return None
    try:
        engine = plugin.create_engine(Path(cache_dir))
    except ImportError as exc:
        _log.warning("OCR engine %r is missing a library: %s", plugin.name, exc)
        return None
    if not isinstance(engine, OcrEngine):
        _log.warning("OCR plug-in %r did not return an OCR engine", plugin.name)
        return None
    return engine
