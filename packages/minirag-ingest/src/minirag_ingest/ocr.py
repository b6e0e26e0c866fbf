"""The OCR plug-in interface: what an engine offers, its settings, and how one is found.

minirag-ingest never imports an OCR package. An engine is a distribution that registers a
factory under the ``minirag.ocr`` entry-point group (minirag-ocr registers ``rapidocr``); the
factory takes :class:`OcrSettings` and returns an object satisfying :class:`OcrEngine`.
:func:`load_ocr_engine` finds it at run time and returns ``None`` when no engine is installed,
so a base install behaves exactly as if OCR did not exist.

A factory must be cheap: it validates the settings and may check that its libraries are
importable, but loads no model and downloads nothing. Models are fetched by the first
recognition, so a failed download is an error for that file rather than for the server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from minirag_ingest.settings import ConfigError

ENTRY_POINT_GROUP = "minirag.ocr"
PREFERRED_ENGINE = "rapidocr"
DEFAULT_OCR_LANG = "eslav"
DEFAULT_MIN_CHARS_PER_PAGE = 25

# The image types the [ocr] extra adds to the scan whitelist. Without an engine they are not
# scanned at all; sync uses this list to keep (and count as unreadable) images indexed earlier.
IMAGE_EXTENSIONS: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".tiff", ".tif", ".bmp", ".webp"}
)

_log = logging.getLogger(__name__)


class OcrError(Exception):
    """Recognition of one file failed (model download, unreadable image, renderer error).

    Engines raise it with a one-line reason; conversion turns it into a per-file
    :class:`~minirag_ingest.convert.ConversionError`, never into an empty document.
    """


@runtime_checkable
class OcrEngine(Protocol):
    """What conversion needs from an OCR engine."""

    @property
    def name(self) -> str:
        """Short engine id recorded per source as ``ocr_engine``, e.g. ``"rapidocr"``."""
        ...

    @property
    def image_extensions(self) -> frozenset[str]:
        """Lower-case suffixes with the dot (``".png"``) of image files it turns into text."""
        ...

    def recognise_image(self, path: Path) -> list[str]:
        """The text of each page or frame of an image file, in order (a multi-page TIFF gives
        one entry per page). An entry is ``""`` for a page with no text on it."""
        ...

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        """Rasterise and recognise the given 1-based pages of a PDF: page number -> text."""
        ...


class OcrSettings(BaseSettings):
    """Settings of the OCR extra; field names are the environment variables.

    ``CACHE_DIR`` is the same variable the embedding model uses: recognition models are kept
    next to it. Pass the index's resolved value (which honours ``--cache-dir``) as an override.
    """

    model_config = SettingsConfigDict(
        case_sensitive=True, extra="ignore", frozen=True, env_ignore_empty=True
    )

    RAG_OCR_LANG: str = DEFAULT_OCR_LANG
    RAG_OCR_MIN_CHARS_PER_PAGE: int = Field(default=DEFAULT_MIN_CHARS_PER_PAGE, ge=0)
    CACHE_DIR: Path = Field(default_factory=lambda: _default_cache_dir())

    @field_validator("RAG_OCR_LANG", mode="before")
    @classmethod
    def _lang(cls, value: Any) -> str:
        text = str(value).strip().lower()
        if not text:
            raise ValueError("empty")
        return text

    @field_validator("CACHE_DIR")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()


_ACCEPTS = {
    "RAG_OCR_LANG": "a rapidocr language id such as eslav, en or latin",
    "RAG_OCR_MIN_CHARS_PER_PAGE": "a whole number of characters, 0 or more (0 turns OCR of "
    "PDF pages off)",
    "CACHE_DIR": "a folder path for downloaded models",
}


def _default_cache_dir() -> Path:
    from minirag_index.settings import default_cache_dir

    return default_cache_dir()


def load_ocr_settings(**overrides: Any) -> OcrSettings:
    """Read :class:`OcrSettings` from the environment; ``None`` overrides are ignored.

    A bad value raises :class:`ConfigError` naming the variable and what it accepts.
    """
    try:
        return OcrSettings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        lines, variable = [], None
        for error in exc.errors():
            variable = str(error["loc"][0]) if error["loc"] else None
            what = _ACCEPTS.get(variable or "", error["msg"])
            lines.append(f"{variable}={error.get('input')!r} is not valid: expected {what}.")
        raise ConfigError(" ".join(lines), variable=variable) from None


def _ocr_entry_points() -> list[EntryPoint]:
    found = list(entry_points(group=ENTRY_POINT_GROUP))
    # The preferred engine first, then by name, so the choice never depends on install order.
    return sorted(found, key=lambda ep: (ep.name != PREFERRED_ENGINE, ep.name))


def ocr_engine_name() -> str | None:
    """The name of the installed OCR engine, without loading it (for status); else None."""
    found = _ocr_entry_points()
    return found[0].name if found else None


def load_ocr_engine(settings: OcrSettings | None = None) -> OcrEngine | None:
    """The installed OCR engine built from ``settings``, or ``None`` when there is none.

    An engine whose package cannot be imported (a broken or partial install) counts as absent
    and is logged. A bad setting, such as an unknown ``RAG_OCR_LANG``, raises
    :class:`ConfigError` naming the variable.
    """
    settings = settings if settings is not None else load_ocr_settings()
    for entry in _ocr_entry_points():
        try:
            factory: Callable[[OcrSettings], OcrEngine] = entry.load()
        except ImportError as exc:
            _log.warning("OCR engine %r is installed but cannot be imported: %s", entry.name, exc)
            continue
        try:
            engine = factory(settings)
        except ImportError as exc:
            _log.warning("OCR engine %r is missing a library: %s", entry.name, exc)
            continue
        if not isinstance(engine, OcrEngine):
            _log.warning("OCR entry point %r did not return an OCR engine", entry.name)
            continue
        return engine
    return None


def normalise_extensions(extensions: Iterable[str]) -> frozenset[str]:
    """Lower-case suffixes, each with its leading dot."""
    return frozenset(e.lower() if e.startswith(".") else f".{e.lower()}" for e in extensions)
