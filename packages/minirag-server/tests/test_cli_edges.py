"""The command line's small edges: ``watch`` stopped by Ctrl-C or SIGTERM exits 130 (the
README's exit-status table), and a count of one reads "1 chunk"."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from testsupport.mcp import cli_process

DEADLINE = 120.0  # seconds: an upper bound against a hang, not a speed claim


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_watch_stopped_by_a_signal_exits_130(
    env: dict, tmp_path: Path, sig: signal.Signals
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "minirag_mcp", "watch", "--json"],
        env={**os.environ, "DB_PATH": str(tmp_path / "db"), "HF_HUB_OFFLINE": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        first = child.stdout.readline()  # the first sync's line: it is watching now
        assert json.loads(first)["state"] == "succeeded", first
        child.send_signal(sig)
        _, err = child.communicate(timeout=DEADLINE)
        assert child.returncode == 130, err
        assert "stopped watching" in err
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_a_count_of_one_is_one_chunk(
    env: dict, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DB_PATH", str(tmp_path / "db"))
    notes = docs / "notes.txt"  # one short paragraph: one chunk
    ingested = cli_process("ingest", str(notes))
    assert ingested.returncode == 0, ingested.stderr
    assert f"ingested {notes}: 1 chunk ('" in ingested.stdout, ingested.stdout

    found = cli_process("find", "budget")
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert lines[0] == "1 of 1 documents match (1 chunk)", found.stdout
    assert "notes.txt: 1 chunk" in found.stdout and "chunks" not in found.stdout

    deleted = cli_process("delete", str(notes))
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout.strip() == f"deleted {notes} (1 chunk); the file is untouched"


def test_an_empty_word_file_is_reported_as_empty(
    env: dict, docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from testsupport.documents import docx_bytes

    monkeypatch.setenv("DB_PATH", str(tmp_path / "db"))
    blank = Path(__file__).parents[2] / "minirag-ingest/tests/files/python-docx/doc-default.docx"
    (docs / "saved-blank.docx").write_bytes(blank.read_bytes())  # Word's "new, save"
    (docs / "empty-body.docx").write_bytes(docx_bytes([]))
    (docs / "zero.docx").write_bytes(b"")  # touch zero.docx
    for name in ("saved-blank.docx", "empty-body.docx", "zero.docx"):
        run = cli_process("ingest", str(docs / name))
        assert run.returncode == 1, run.stdout
        assert run.stderr.splitlines() == [
            f"error: {name}: converted to no text: the document is empty or holds only markup "
            "or pictures, so there is nothing to index"
        ], run.stderr
