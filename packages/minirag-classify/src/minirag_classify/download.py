"""Fetching a pinned GGUF file once into ``CACHE_DIR/classify``, checked by sha256.

The URL is ``{base}/{repo}/resolve/{revision}/{file}`` with base ``https://huggingface.co``
(``HF_ENDPOINT`` or the ``base_url`` argument override it, which is how tests use a loopback
server). The file is written beside its final name and renamed only after its digest matches;
a mismatch deletes it and fails loudly. A download that fails is remembered for the life of the
process, so status can report the model unavailable without trying again.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import requests

from minirag_index.errors import MiniragError
from minirag_ingest.labels.taxonomy import ModelSpec

DEFAULT_BASE_URL = "https://huggingface.co"
_CHUNK = 1 << 20
_TIMEOUT = (15, 60)

_failures_lock = threading.Lock()
_failures: dict[str, str] = {}


class ModelDownloadError(MiniragError, RuntimeError):
    """The pinned model file could not be fetched, or its sha256 did not match."""


def base_url() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_BASE_URL).rstrip("/")


def model_url(spec: ModelSpec, base: str | None = None) -> str:
    return f"{(base or base_url()).rstrip('/')}/{spec.download_url_path}"


def model_cache_path(spec: ModelSpec, cache_dir: Path) -> Path:
    """Where a pinned file lives once downloaded: one folder per repo and revision."""
    repo = (spec.repo or "").replace("/", "--")
    return Path(cache_dir) / repo / (spec.revision or "") / (spec.file or "")


def failed_download(spec: ModelSpec) -> str | None:
    """The reason an earlier download of this pin failed in this process, if it did."""
    with _failures_lock:
        return _failures.get(_pin_key(spec))


def forget_failures() -> None:
    with _failures_lock:
        _failures.clear()


def _pin_key(spec: ModelSpec) -> str:
    return f"{spec.repo}@{spec.revision}/{spec.file}#{spec.sha256}"


def _verified_marker(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def is_cached(spec: ModelSpec, cache_dir: Path) -> bool:
    """True when the file is there and was verified (its marker names the pinned digest)."""
    path = model_cache_path(spec, cache_dir)
    marker = _verified_marker(path)
    try:
        return path.is_file() and marker.read_text().strip() == spec.sha256
    except OSError:
        return False


def download_model(spec: ModelSpec, cache_dir: Path, *, base: str | None = None) -> Path:
    """The local path of the pinned file, downloading and verifying it the first time."""
    if spec.repo is None or spec.file is None or spec.revision is None or spec.sha256 is None:
        raise ModelDownloadError("the [model] table does not pin a download")
    path = model_cache_path(spec, cache_dir)
    if is_cached(spec, cache_dir):
        return path
    if path.is_file() and file_sha256(path) == spec.sha256:  # verified earlier, marker lost
        _verified_marker(path).write_text(spec.sha256)
        return path
    try:
        _fetch(spec, path, model_url(spec, base))
    except ModelDownloadError as exc:
        with _failures_lock:
            _failures[_pin_key(spec)] = str(exc)
        raise
    with _failures_lock:
        _failures.pop(_pin_key(spec), None)
    return path


def _fetch(spec: ModelSpec, path: Path, url: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with requests.get(url, stream=True, timeout=_TIMEOUT) as response:
            if response.status_code != 200:
                raise ModelDownloadError(
                    f"downloading the classify model failed: HTTP {response.status_code} for {url}"
                )
            with open(partial, "wb") as out:
                for block in response.iter_content(_CHUNK):
                    digest.update(block)
                    out.write(block)
    except requests.RequestException as exc:
        partial.unlink(missing_ok=True)
        raise ModelDownloadError(f"downloading the classify model failed: {url}: {exc}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    actual = digest.hexdigest()
    if actual != spec.sha256:
        partial.unlink(missing_ok=True)
        raise ModelDownloadError(
            f"the downloaded classify model does not match its pinned sha256: {url} has "
            f"sha256 {actual}, classify.toml expects {spec.sha256}. The file was deleted; "
            "check model.sha256 and model.revision."
        )
    os.replace(partial, path)
    _verified_marker(path).write_text(spec.sha256)
