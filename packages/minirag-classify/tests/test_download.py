"""Downloading a pinned model file, against a loopback HTTP server (no llama.cpp needed)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from minirag_classify.download import (
    ModelDownloadError,
    download_model,
    failed_download,
    forget_failures,
    model_cache_path,
)
from minirag_classify.plugin import LlamaPlugin
from minirag_ingest.labels.taxonomy import ModelSpec
from testsupport.loopback import FileServer, file_server

PAYLOAD = b"GGUF" + bytes(range(256)) * 64
REVISION = "71c1c57e523219124f7be9c486d475d19891185f"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FileServer]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    forget_failures()
    with file_server() as running:
        yield running
    forget_failures()


def spec(sha256: str | None = None, file: str = "choice-Q8_0.gguf") -> ModelSpec:
    return ModelSpec(
        repo="someone/choice-GGUF",
        file=file,
        revision=REVISION,
        sha256=sha256 or hashlib.sha256(PAYLOAD).hexdigest(),
        temperature=2.0,
    )


def test_download_once_into_the_cache(server: FileServer, tmp_path: Path):
    pin = spec()
    server.files[f"someone/choice-GGUF/resolve/{REVISION}/choice-Q8_0.gguf"] = PAYLOAD
    path = download_model(pin, tmp_path, base=server.url)
    assert path == model_cache_path(pin, tmp_path) and path.read_bytes() == PAYLOAD
    assert path.is_relative_to(tmp_path)
    assert len(server.requests) == 1
    assert download_model(pin, tmp_path, base=server.url) == path
    assert len(server.requests) == 1  # cached: no second request
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".part")]


def test_sha256_mismatch_is_loud_and_leaves_nothing(server: FileServer, tmp_path: Path):
    pin = spec(sha256="0" * 64)
    server.files[f"someone/choice-GGUF/resolve/{REVISION}/choice-Q8_0.gguf"] = PAYLOAD
    with pytest.raises(ModelDownloadError) as caught:
        download_model(pin, tmp_path, base=server.url)
    message = str(caught.value)
    assert "sha256" in message and "0" * 64 in message
    assert hashlib.sha256(PAYLOAD).hexdigest() in message
    target = model_cache_path(pin, tmp_path)
    assert not target.exists()
    assert not any(target.parent.glob("*.part"))
    assert failed_download(pin) == message


def test_not_found(server: FileServer, tmp_path: Path):
    pin = spec(file="missing.gguf")
    with pytest.raises(ModelDownloadError, match="HTTP 404"):
        download_model(pin, tmp_path, base=server.url)
    assert "HTTP 404" in (failed_download(pin) or "")


def test_failed_download_makes_the_model_unavailable(
    server: FileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "llama_cpp" else real_find_spec(name, *a),
    )
    pin = spec(file="missing.gguf")
    plugin = LlamaPlugin(base_url=server.url)
    assert plugin.probe(pin, tmp_path) is None  # downloaded on first use: available until then
    with pytest.raises(ModelDownloadError):
        plugin.load(pin, tmp_path)
    assert "HTTP 404" in (plugin.probe(pin, tmp_path) or "")


def test_hf_endpoint_overrides_the_base(server: FileServer, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    pin = spec()
    server.files[f"someone/choice-GGUF/resolve/{REVISION}/choice-Q8_0.gguf"] = PAYLOAD
    assert download_model(pin, tmp_path).read_bytes() == PAYLOAD


def test_probe_without_llama_cpp_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real_find_spec(name, *a),
    )
    reason = LlamaPlugin().probe(spec(), tmp_path)
    assert reason is not None and "[classify]" in reason


def test_probe_local_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "llama_cpp" else real_find_spec(name, *a),
    )
    missing = ModelSpec(path=str(tmp_path / "nope.gguf"), temperature=1.0)
    assert "not a file" in (LlamaPlugin().probe(missing, tmp_path) or "")
    present = tmp_path / "m.gguf"
    present.write_bytes(b"GGUF")
    assert LlamaPlugin().probe(ModelSpec(path=str(present), temperature=1.0), tmp_path) is None
