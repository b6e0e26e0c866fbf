"""RAG_OCR_LANG, the engine's own setting."""

from __future__ import annotations

import pytest

from minirag_index.settings import ConfigError
from minirag_ocr import load_ocr_settings


def test_default_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAG_OCR_LANG", raising=False)
    assert load_ocr_settings().RAG_OCR_LANG == "eslav"
    monkeypatch.setenv("RAG_OCR_LANG", " EN ")
    assert load_ocr_settings().RAG_OCR_LANG == "en"
    monkeypatch.setenv("RAG_OCR_LANG", "")  # a launcher's blank field: unset
    assert load_ocr_settings().RAG_OCR_LANG == "eslav"


def test_a_blank_language_names_the_variable() -> None:
    with pytest.raises(ConfigError) as caught:
        load_ocr_settings(RAG_OCR_LANG="  ")
    assert caught.value.variable == "RAG_OCR_LANG"
    assert "RAG_OCR_LANG must be a rapidocr language id" in str(caught.value)


def test_a_model_mirror_is_an_http_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAG_OCR_MODEL_URL", raising=False)
    assert load_ocr_settings().RAG_OCR_MODEL_URL is None
    settings = load_ocr_settings(RAG_OCR_MODEL_URL="https://models.example.org/rapidocr/")
    assert settings.RAG_OCR_MODEL_URL == "https://models.example.org/rapidocr/"
    with pytest.raises(ConfigError) as caught:
        load_ocr_settings(RAG_OCR_MODEL_URL="/srv/models")
    assert caught.value.variable == "RAG_OCR_MODEL_URL"
