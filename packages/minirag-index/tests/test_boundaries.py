"""minirag-index is a library: it must not depend on converters, MCP, OCR or llama.cpp."""

import ast
from importlib.metadata import requires
from pathlib import Path

FORBIDDEN = {"markitdown", "fastmcp", "mcp", "cyclopts", "pathspec", "rapidocr_onnxruntime"}
FORBIDDEN |= {"llama_cpp", "minirag_ingest", "minirag_mcp", "minirag_ocr", "minirag_classify"}
SRC = Path(__file__).parents[1] / "src" / "minirag_index"


def test_source_imports_nothing_from_other_layers():
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_declared_dependencies_exclude_server_packages():
    declared = {
        r.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip()
        for r in requires("minirag-index") or []
    }
    assert not declared & {"markitdown", "fastmcp", "cyclopts", "pathspec", "mcp"}
