"""Recognition models per language: the bundled one, and the ones fetched once into CACHE_DIR.

rapidocr-onnxruntime ships one recognition model, PP-OCRv4 for Chinese, which also reads
English (language id ``ch``). Every other language is a PP-OCRv5 mobile recognition model
published by RapidOCR. Each is downloaded on first use from ``MODEL_BASE_URL`` and checked
against the SHA-256 pinned below before it is ever loaded; after that it is read from the cache
and nothing touches the network. The ONNX files carry their character dictionary in their
metadata, so the model file is the only download.

The URLs and checksums are those RapidOCR itself pins in ``python/rapidocr/default_models.yaml``
(``onnxruntime`` / ``PP-OCRv5`` / ``rec``) for its release v3.9.2.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from minirag_ingest.extras.ocr import OcrError

MODEL_BASE_URL = (
    "https://www.modelscope.cn/models/RapidAI/RapidOCR/resolve/v3.9.2/onnx/PP-OCRv5/rec/"
)
CACHE_SUBDIR = "ocr"
DOWNLOAD_TIMEOUT_SECONDS = 60
# After a failed download, files that need the same model fail at once for this long instead
# of each waiting out its own network timeout.
RETRY_AFTER_SECONDS = 60.0
BUNDLED_LANG = "ch"


@dataclass(frozen=True)
class ModelFile:
    file_name: str
    sha256: str


# rapidocr language id -> recognition model. ``ch`` is the model inside the wheel.
DOWNLOADABLE: dict[str, ModelFile] = {
    "eslav": ModelFile(
        "eslav_PP-OCRv5_rec_mobile.onnx",
        "08705d6721849b1347d26187f15a5e362c431963a2a62bfff4feac578c489aab",
    ),
    "en": ModelFile(
        "en_PP-OCRv5_rec_mobile.onnx",
        "c3461add59bb4323ecba96a492ab75e06dda42467c9e3d0c18db5d1d21924be8",
    ),
    "latin": ModelFile(
        "latin_PP-OCRv5_rec_mobile.onnx",
        "b20bd37c168a570f583afbc8cd7925603890efbcdc000a59e22c269d160b5f5a",
    ),
    "cyrillic": ModelFile(
        "cyrillic_PP-OCRv5_rec_mobile.onnx",
        "90f761b4bfcce0c8c561c0cb5c887b0971d3ec01c32164bdf7374a35b0982711",
    ),
    "korean": ModelFile(
        "korean_PP-OCRv5_rec_mobile.onnx",
        "cd6e2ea50f6943ca7271eb8c56a877a5a90720b7047fe9c41a2e541a25773c9b",
    ),
    "th": ModelFile(
        "th_PP-OCRv5_rec_mobile.onnx",
        "de541dd83161c241ff426f7ecfd602a0ba77d686cf3ab9a6c255ea82fd08006e",
    ),
    "el": ModelFile(
        "el_PP-OCRv5_rec_mobile.onnx",
        "b4368bccd557123c702b7549fee6cd1e94b581337d1c9b65310f109131542b7f",
    ),
    "arabic": ModelFile(
        "arabic_PP-OCRv5_rec_mobile.onnx",
        "c1192e632d0baa9146ae5b756a0e635e3dc63c1733737ebfd1629e87144e9295",
    ),
    "devanagari": ModelFile(
        "devanagari_PP-OCRv5_rec_mobile.onnx",
        "d6f0a906580e3fa6b324a318718f1f31f268b6ea8ef985f91c2012a37f52c91e",
    ),
    "ta": ModelFile(
        "ta_PP-OCRv5_rec_mobile.onnx",
        "a42448808b7dea87597336f12438935f40353f1949e8360acd9e06b4da21bfe1",
    ),
    "te": ModelFile(
        "te_PP-OCRv5_rec_mobile.onnx",
        "a3690451b50028a09a3316a1274f7c05728151ea3f8fd392696397a7fefcbd92",
    ),
}

LANGUAGE_IDS: tuple[str, ...] = (BUNDLED_LANG, *sorted(DOWNLOADABLE))
# What status says of the recognition model of RAG_OCR_LANG (``ocrModel``).
MODEL_BUNDLED = "bundled"
MODEL_CACHED = "cached"
MODEL_DOWNLOADS = "downloads on first use"


def _lang_of(model: ModelFile) -> str:
    return next(lang for lang, known in DOWNLOADABLE.items() if known == model)


class ModelStore:
    """Finds or fetches the recognition model of one language under ``cache_dir/ocr``."""

    def __init__(self, cache_dir: Path, *, base_url: str = MODEL_BASE_URL) -> None:
        self.folder = Path(cache_dir) / CACHE_SUBDIR
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        self._lock = threading.Lock()
        self._verified: dict[str, Path] = {}
        self._failed: dict[str, tuple[float, str]] = {}

    def __getstate__(self) -> dict[str, object]:
        """Sent to a conversion worker as its settings: no lock, nothing verified yet."""
        return {"folder": self.folder, "base_url": self.base_url}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.folder = Path(str(state["folder"]))
        self.base_url = str(state["base_url"])
        self._lock = threading.Lock()
        self._verified = {}
        self._failed = {}

    def path_for(self, lang: str) -> Path | None:
        """The checked model file for ``lang``; ``None`` means the bundled model.

        Raises :class:`OcrError` when the file is not cached and cannot be fetched intact.
        """
        model = DOWNLOADABLE.get(lang)
        if model is None:
            return None
        with self._lock:
            if lang in self._verified:
                return self._verified[lang]
            failed = self._failed.get(lang)
            if failed and time.monotonic() - failed[0] < RETRY_AFTER_SECONDS:
                raise OcrError(failed[1])
            target = self.folder / model.file_name
            try:
                if not (target.is_file() and _sha256(target) == model.sha256):
                    self._download(model, target)
            except OcrError as exc:
                self._failed[lang] = (time.monotonic(), str(exc))
                raise
            self._failed.pop(lang, None)
            self._verified[lang] = target
            return target

    def url_for(self, model: ModelFile) -> str:
        return self.base_url + model.file_name

    def state(self, lang: str) -> str:
        """Where ``lang``'s model comes from, without fetching it: ``"bundled"`` (inside
        rapidocr), ``"cached"`` (checked, in the cache) or ``"downloads on first use"``."""
        model = DOWNLOADABLE.get(lang)
        if model is None:
            return MODEL_BUNDLED
        target = self.folder / model.file_name
        try:
            cached = target.is_file() and _sha256(target) == model.sha256
        except OSError:
            cached = False
        return MODEL_CACHED if cached else MODEL_DOWNLOADS

    def offline_hint(self, model: ModelFile) -> str:
        """How to get the model without this machine downloading it."""
        return (
            f"the OCR model for RAG_OCR_LANG={_lang_of(model)} is downloaded once, from "
            f"{self.url_for(model)}; check the network and retry, or, offline, set "
            f"RAG_OCR_LANG={BUNDLED_LANG} (the Chinese/English model bundled with rapidocr), or "
            f"copy {model.file_name} from a machine that has it into {self.folder} "
            f"(CACHE_DIR/{CACHE_SUBDIR})"
        )

    def _download(self, model: ModelFile, target: Path) -> None:
        url = self.url_for(model)
        hint = self.offline_hint(model)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OcrError(f"cannot create {self.folder}: {exc.strerror or exc}") from exc
        handle, temp_name = tempfile.mkstemp(prefix=f".{model.file_name}.", dir=self.folder)
        temp = Path(temp_name)
        digest = hashlib.sha256()
        try:
            with os.fdopen(handle, "wb") as out:
                request = urllib.request.Request(url, headers={"User-Agent": "minirag-ocr"})
                with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_SECONDS) as reply:
                    while block := reply.read(1 << 20):
                        digest.update(block)
                        out.write(block)
            got = digest.hexdigest()
            if got != model.sha256:
                raise OcrError(
                    f"the OCR model downloaded from {url} does not match its pinned checksum "
                    f"(expected sha256 {model.sha256}, got {got}); it was discarded; {hint}"
                )
            os.replace(temp, target)
        except urllib.error.HTTPError as exc:
            raise OcrError(
                f"could not download the OCR model from {url}: HTTP {exc.code}; {hint}"
            ) from exc
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc
            raise OcrError(
                f"could not download the OCR model from {url}: {reason}; {hint}"
            ) from exc
        finally:
            temp.unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()
