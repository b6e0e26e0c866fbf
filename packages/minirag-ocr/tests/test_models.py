"""Model downloads against a loopback HTTP server: cached once, checked, loud when wrong."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from minirag_index.settings import ConfigError
from minirag_ingest.conversion.convert import ConversionError, convert_file
from minirag_ingest.extras.ocr import OcrError, load_ocr_engine
from minirag_ocr import engine as engine_module
from minirag_ocr import models
from minirag_ocr.engine import RapidOcrEngine
from minirag_ocr.models import DOWNLOADABLE, LANGUAGE_IDS, ModelFile, ModelStore
from testsupport.loopback import FileServer, file_server

ESLAV_SHA256 = "08705d6721849b1347d26187f15a5e362c431963a2a62bfff4feac578c489aab"


@pytest.fixture
def server() -> Iterator[FileServer]:
    with file_server("/models/") as served:
        yield served


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> tuple[str, bytes]:
    """A language whose pinned checksum is that of bytes the test server can hand out."""
    body = b"not really an onnx model, but the bytes the checksum was pinned for" * 100
    model = ModelFile("fake_PP-OCRv5_rec_mobile.onnx", hashlib.sha256(body).hexdigest())
    monkeypatch.setitem(DOWNLOADABLE, "fakelang", model)
    return "fakelang", body


def test_pinned_catalogue() -> None:
    assert DOWNLOADABLE["eslav"].sha256 == ESLAV_SHA256
    assert DOWNLOADABLE["eslav"].file_name == "eslav_PP-OCRv5_rec_mobile.onnx"
    assert models.MODEL_BASE_URL.startswith("https://")
    for model in DOWNLOADABLE.values():
        assert re.fullmatch(r"[0-9a-f]{64}", model.sha256)
    assert "eslav" in LANGUAGE_IDS and "ch" in LANGUAGE_IDS


def test_download_once_then_offline(server: FileServer, fake_model, tmp_path: Path) -> None:
    lang, body = fake_model
    server.files[f"models/{DOWNLOADABLE[lang].file_name}"] = body
    store = ModelStore(tmp_path, base_url=server.url)
    path = store.path_for(lang)
    assert path == tmp_path / "ocr" / DOWNLOADABLE[lang].file_name
    assert path.read_bytes() == body
    assert store.path_for(lang) == path
    # A new process finds it in the cache and never asks the network again.
    server.files.clear()
    assert ModelStore(tmp_path, base_url=server.url).path_for(lang) == path
    assert len(server.requests) == 1
    assert sorted(p.name for p in (tmp_path / "ocr").iterdir()) == [path.name]


def test_corrupt_cached_file_is_fetched_again(
    server: FileServer, fake_model, tmp_path: Path
) -> None:
    lang, body = fake_model
    server.files[f"models/{DOWNLOADABLE[lang].file_name}"] = body
    target = tmp_path / "ocr" / DOWNLOADABLE[lang].file_name
    target.parent.mkdir(parents=True)
    target.write_bytes(b"truncated")
    assert ModelStore(tmp_path, base_url=server.url).path_for(lang) == target
    assert target.read_bytes() == body


def test_checksum_mismatch_is_loud_and_leaves_nothing(server: FileServer, tmp_path: Path) -> None:
    server.files["models/eslav_PP-OCRv5_rec_mobile.onnx"] = b"something else entirely"
    store = ModelStore(tmp_path, base_url=server.url)
    with pytest.raises(OcrError) as caught:
        store.path_for("eslav")
    message = str(caught.value)
    assert "does not match its pinned checksum" in message
    assert ESLAV_SHA256 in message
    assert hashlib.sha256(b"something else entirely").hexdigest() in message
    assert f"into {tmp_path / 'ocr'} (CACHE_DIR/ocr)" in message
    assert list((tmp_path / "ocr").iterdir()) == []


def test_missing_file_is_loud(server: FileServer, tmp_path: Path) -> None:
    store = ModelStore(tmp_path, base_url=server.url)
    with pytest.raises(OcrError) as caught:
        store.path_for("eslav")
    assert "HTTP 404" in str(caught.value)
    assert f"{server.url}eslav_PP-OCRv5_rec_mobile.onnx" in str(caught.value)
    # The failure is remembered for a while: the next file fails at once, without a request.
    with pytest.raises(OcrError, match="HTTP 404"):
        store.path_for("eslav")
    assert len(server.requests) == 1


def test_failure_is_retried_after_a_while(
    server: FileServer, fake_model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lang, body = fake_model
    store = ModelStore(tmp_path, base_url=server.url)
    with pytest.raises(OcrError):
        store.path_for(lang)
    server.files[f"models/{DOWNLOADABLE[lang].file_name}"] = body
    monkeypatch.setattr(models, "RETRY_AFTER_SECONDS", 0.0)
    assert store.path_for(lang).read_bytes() == body


def test_unreachable_server_is_loud(tmp_path: Path) -> None:
    store = ModelStore(tmp_path, base_url="http://127.0.0.1:9/nowhere/")
    with pytest.raises(OcrError, match="could not download the OCR model"):
        store.path_for("eslav")


def test_bundled_language_needs_no_download(tmp_path: Path) -> None:
    assert ModelStore(tmp_path, base_url="http://127.0.0.1:9/").path_for("ch") is None
    assert not (tmp_path / "ocr").exists()


def test_failed_download_fails_the_file_not_the_document(
    server: FileServer, tmp_path: Path
) -> None:
    engine = RapidOcrEngine("eslav", tmp_path / "cache", model_base_url=server.url)
    image = tmp_path / "scan.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ConversionError) as caught:
        convert_file(image, max_file_size=10_000, ocr=engine)
    message = str(caught.value)
    assert message.startswith("scan.png: OCR failed: could not download")
    assert "HTTP 404" in message
    # It says how to do without the download: the bundled language, or the file copied in.
    assert "RAG_OCR_LANG=ch (the Chinese/English model bundled with rapidocr)" in message
    assert f"copy eslav_PP-OCRv5_rec_mobile.onnx from a machine that has it into {tmp_path}" in (
        message
    )


def test_the_model_state_says_bundled_cached_or_downloads(
    server: FileServer, fake_model, tmp_path: Path
) -> None:
    lang, body = fake_model
    store = ModelStore(tmp_path, base_url=server.url)
    assert store.state("ch") == "bundled"
    assert store.state(lang) == "downloads on first use"
    # A file copied into CACHE_DIR/ocr by hand is used as it is, without a request.
    (tmp_path / "ocr").mkdir()
    (tmp_path / "ocr" / DOWNLOADABLE[lang].file_name).write_bytes(body)
    assert store.state(lang) == "cached"
    assert store.path_for(lang) == tmp_path / "ocr" / DOWNLOADABLE[lang].file_name
    assert server.requests == []
    (tmp_path / "ocr" / DOWNLOADABLE[lang].file_name).write_bytes(b"truncated")
    assert store.state(lang) == "downloads on first use"


def test_model_that_is_not_onnx_is_loud(
    server: FileServer, fake_model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lang, body = fake_model
    server.files[f"models/{DOWNLOADABLE[lang].file_name}"] = body
    monkeypatch.setattr(engine_module, "LANGUAGE_IDS", (*LANGUAGE_IDS, lang))
    engine = RapidOcrEngine(lang, tmp_path, model_base_url=server.url)
    image = tmp_path / "scan.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(OcrError, match="cannot load the OCR model for RAG_OCR_LANG=fakelang"):
        engine.recognise_image(image)


def test_entry_point_is_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_OCR_LANG", "eslav")
    engine = load_ocr_engine(tmp_path)
    assert isinstance(engine, RapidOcrEngine)
    assert engine.lang == "eslav"
    # Creating the engine loads and downloads nothing.
    assert engine._ocr is None
    assert not (tmp_path / "ocr").exists()


def test_unknown_language_names_the_variable_and_the_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAG_OCR_LANG", "klingon")
    with pytest.raises(ConfigError) as caught:
        load_ocr_engine(tmp_path)
    assert caught.value.variable == "RAG_OCR_LANG"
    message = str(caught.value)
    assert "RAG_OCR_LANG='klingon'" in message
    for lang in ("eslav", "en", "ch", "latin"):
        assert lang in message
