"""The OCR engine's own setting: which language's recognition model it reads with."""

from __future__ import annotations

from typing import Any

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from minirag_index.settings import load_settings

DEFAULT_OCR_LANG = "eslav"

ACCEPTS = {"RAG_OCR_LANG": "a rapidocr language id such as eslav, en or latin"}


class OcrSettings(BaseSettings):
    """Settings of the OCR extra; field names are the environment variables."""

    model_config = SettingsConfigDict(
        case_sensitive=True, extra="ignore", frozen=True, env_ignore_empty=True
    )

    RAG_OCR_LANG: str = DEFAULT_OCR_LANG

    @field_validator("RAG_OCR_LANG", mode="before")
    @classmethod
    def _lang(cls, value: Any) -> str:
        text = str(value).strip().lower()
        if not text:
            raise ValueError("empty")
        return text


def load_ocr_settings(**overrides: Any) -> OcrSettings:
    """Read :class:`OcrSettings` from the environment; ``None`` overrides are ignored."""
    return load_settings(OcrSettings, ACCEPTS, **overrides)
