"""What importing costs: the server answers initialize and tools/list without the index's
libraries, and the package imports at all."""

import importlib
import json
import subprocess
import sys

# Heavy libraries that answering initialize and tools/list does not need.
NOT_AT_START = (
    "lancedb",
    "pyarrow",
    "fastembed",
    "onnxruntime",
    "numpy",
    "tokenizers",
    "markitdown",
    "pandas",
    "griffe",  # fastmcp's docstring parser, used only when a tool has a docstring
)


def test_package_imports():
    assert importlib.import_module("minirag_mcp").__doc__


def test_tools_are_listed_without_importing_the_index_libraries(tmp_path) -> None:
    script = f"""
import asyncio, json, sys
from minirag_mcp.server import create_app
tools = asyncio.run(create_app().list_tools())
loaded = [m for m in {NOT_AT_START!r} if m in sys.modules]
print(json.dumps({{"tools": len(tools), "loaded": loaded}}))
"""
    env = {"BASE_DIR": str(tmp_path), "FASTMCP_CHECK_FOR_UPDATES": "off", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"tools": 12, "loaded": []}
