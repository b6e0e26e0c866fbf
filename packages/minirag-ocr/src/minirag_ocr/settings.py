"""The OCR engine's own setting: which language's recognition model it reads with."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from minirag_index.settings import load_settings

DEFAULT_OCR_LANG = "eslav"

ACCEPTS = {
    "RAG_OCR_LANG": "a rapidocr language id such as eslav, en or latin",
    "RAG_OCR_MODEL_URL": "an http(s) URL of a folder holding RapidOCR's model files",
}


class OcrSettings(BaseSettings):
    """Settings of the OCR extra; field names are the environment variables."""

    model_config = SettingsConfigDict(
        case_sensitive=True, extra="ignore", frozen=True, env_ignore_empty=True
    )

    RAG_OCR_LANG: str = DEFAULT_OCR_LANG
    # Where a recognition model not bundled is downloaded from: RapidOCR's own address unless a
    # mirror is named (an organisation's, or a folder served on this machine).
    RAG_OCR_MODEL_URL: str | None = None

    @field_validator("RAG_OCR_LANG", mode="before")
    @classmethod
    def _lang(cls, value: Any) -> str:
        text = str(value).strip().lower()
        if not text:
            raise ValueError("empty")
        return text

    @field_validator("RAG_OCR_MODEL_URL", mode="before")
    @classmethod
    def _url(cls, value: Any) -> str | None:
        text = str(value).strip() if value is not None else ""
        if text and not text.lower().startswith(("http://", "https://")):
            raise ValueError("not an http(s) URL")
        return text or None


def load_ocr_settings(**overrides: Any) -> OcrSettings:
    """Read :class:`OcrSettings` from the environment; ``None`` overrides are ignored."""
    return load_settings(OcrSettings, ACCEPTS, **overrides)
