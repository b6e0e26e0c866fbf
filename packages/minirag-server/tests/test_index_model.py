"""Opening an index with another MODEL_NAME, through the CLI and the MCP tools."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.mcp import cli, error_of


def other_model(model_dir: Path, tmp_path: Path) -> Path:
    """The test model's files under another declared id: same width, another model."""
    folder = shutil.copytree(model_dir, tmp_path / "other-model")
    (folder / "minirag-model.json").write_text(json.dumps({"id": "other-minilm"}), "utf-8")
    return folder


def test_another_model_is_refused_and_status_shows_both(
    env: dict, model_dir: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    assert cli(capsys, "sync")[0] == 0
    first = json.loads(cli(capsys, "status", "--json")[1])
    assert first["indexModel"]["id"] == str(model_dir.resolve())
    assert first["indexModel"]["dim"] == 384
    assert "modelMismatch" not in first

    other = str(other_model(model_dir, tmp_path))
    code, out, err = cli(capsys, "sync", "--model-name", other)
    assert code == 1
    assert "'other-minilm'" in err and repr(str(model_dir.resolve())) in err
    assert f"set MODEL_NAME back to {model_dir}" in err and "DB_PATH" in err
    code, out, err = cli(capsys, "query", "alpha protocol", "--model-name", other)
    assert code == 1 and "'other-minilm'" in err
    code, out, err = cli(capsys, "ingest", env["BASE_DIR"] + "/notes.txt", "--model-name", other)
    assert code == 1 and "'other-minilm'" in err

    status = json.loads(cli(capsys, "status", "--json", "--model-name", other)[1])
    assert status["modelName"] == other
    assert status["indexModel"]["id"] == str(model_dir.resolve())
    assert "'other-minilm'" in status["modelMismatch"]
    code, out, err = cli(capsys, "status", "--model-name", other)
    # What is wrong comes first, on stdout.
    assert code == 0 and "indexModel: {" in out and "'other-minilm'" in out.splitlines()[0]

    monkeypatch.setenv("MODEL_NAME", other)

    async def through_mcp() -> str:
        async with Client(create_app(load_config()), timeout=120) as client:
            return await error_of(client, "query_documents", {"query": "alpha protocol"})

    assert "'other-minilm'" in asyncio.run(through_mcp())


def test_an_unrecorded_index_says_so_and_records_on_the_next_write(
    env: dict, docs: Path, capsys
) -> None:
    import numpy as np

    from minirag_index import ChunkInput, SourceDoc
    from minirag_index.storage.store import Store

    db = docs / ".minirag" / "lancedb"
    vector = np.random.default_rng(0).random(384, dtype=np.float32)
    Store(db).replace_source(SourceDoc(str(docs / "old.md")), [ChunkInput("old")], [vector])
    status = json.loads(cli(capsys, "status", "--json")[1])
    assert status["indexModel"] is None
    assert "next sync or ingest records the configured MODEL_NAME" in status["indexModelNote"]

    assert cli(capsys, "sync")[0] == 0
    status = json.loads(cli(capsys, "status", "--json")[1])
    assert status["indexModel"]["modelName"] == env["MODEL_NAME"]
    assert "indexModelNote" not in status
