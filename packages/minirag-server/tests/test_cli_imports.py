"""A CLI command imports only what it uses: status, list and find answer without fastembed (so
without the embedding model), and nothing brings in pandas that the libraries do not force."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from testsupport.mcp import cli

WATCHED = (
    "fastembed",
    "onnxruntime",
    "tokenizers",
    "pandas",
    "lancedb",
    "fastmcp",
    "markitdown",
    "rich",
)
# Runs one CLI command in a fresh interpreter and reports which watched modules it imported.
PROBE = f"""
import json, sys
from minirag_mcp.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code or 0
print(json.dumps({{"code": code, "loaded": [m for m in {WATCHED!r} if m in sys.modules]}}),
      file=sys.stderr)
"""
COMMANDS = {
    "status": ["status"],
    "list": ["list"],
    "find": ["find", "tomatoes"],
    "query": ["query", "tomatoes sun"],
}


def loaded_by(args: list[str]) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True, check=True
    )
    return {**json.loads(done.stderr.strip().splitlines()[-1]), "stdout": done.stdout}


@pytest.fixture
def synced(env: dict, capsys: pytest.CaptureFixture[str]) -> dict:
    code, _, err = cli(capsys, "sync")
    assert code == 0, err
    return env


@pytest.mark.parametrize("name", ["status", "list"])
def test_status_and_list_after_a_sync_answer_without_lancedb(synced: dict, name: str) -> None:
    """The sync left a summary of what it wrote (minirag_index.storage.summary): they read that."""
    result = loaded_by(COMMANDS[name])
    assert result["code"] == 0
    for module in ("lancedb", "pandas", "fastembed", "onnxruntime", "tokenizers", "fastmcp"):
        assert module not in result["loaded"], f"{name} imported {module}"
    assert "markitdown" not in result["loaded"]


def test_find_reads_the_index_without_the_embedding_model(synced: dict) -> None:
    result = loaded_by(COMMANDS["find"])
    assert result["code"] == 0
    assert "lancedb" in result["loaded"]  # it did read the index
    for module in ("fastembed", "onnxruntime", "tokenizers", "fastmcp", "markitdown"):
        assert module not in result["loaded"], f"find imported {module}"


@pytest.mark.parametrize("name", ["status", "list"])
def test_without_a_current_summary_they_read_lancedb_and_say_the_same(
    synced: dict, name: str
) -> None:
    from minirag_index.storage import summary

    with_summary = loaded_by([*COMMANDS[name], "--json"])
    db = Path(synced["BASE_DIR"]) / ".minirag" / "lancedb"  # the default DB_PATH
    (db / summary.FILE_NAME).rename(db / "kept.json")
    without = loaded_by([*COMMANDS[name], "--json"])
    assert "lancedb" in without["loaded"]
    assert without["stdout"] == with_summary["stdout"]


def test_a_sync_with_nothing_to_do_leaves_a_summary_for_an_index_without_one(
    synced: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    from minirag_index.storage import summary

    db = Path(synced["BASE_DIR"]) / ".minirag" / "lancedb"
    (db / summary.FILE_NAME).unlink()  # as an index written before the summaries
    code, _, err = cli(capsys, "sync")
    assert code == 0, err
    assert (db / summary.FILE_NAME).is_file()
    assert "lancedb" not in loaded_by(COMMANDS["status"])["loaded"]


def test_query_loads_the_model(synced: dict) -> None:
    result = loaded_by(COMMANDS["query"])
    assert result["code"] == 0
    assert "onnxruntime" in result["loaded"]
    assert "fastembed" not in result["loaded"]  # the test model is a folder: no download code
    for module in ("fastmcp", "markitdown", "rich"):
        assert module not in result["loaded"], f"query imported {module}"


@pytest.mark.parametrize("name", ["status", "list"])
def test_nothing_heavy_before_anything_is_indexed(env: dict, name: str, tmp_path: Path) -> None:
    result = loaded_by([*COMMANDS[name], "--db-path", str(tmp_path / "no-index-yet")])
    assert result["code"] == 0
    assert result["loaded"] == []
