"""README.md's quick start and "Try it" commands, run as written in a fresh clone.

The blocks marked ``<!-- readme-test: ... -->`` in README.md are taken out of it literally and
run, in the README's order, by one bash in a ``git clone`` of this repository, with
HF_HUB_OFFLINE=1 and a CACHE_DIR of the test's own. ``uv`` in them is a stand-in for the
environment this test runs in (the clone's ``uv sync`` would build the same one from PyPI, which
a test does not reach): ``uv sync`` does nothing and ``uv run CMD`` runs CMD from it. Any other
``uv`` command fails the test, so a README command the stand-in does not know is noticed.
Only the ``offline_model`` nox session runs it: it needs the packaged model.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from testsupport.models import offline_model_missing

pytestmark = pytest.mark.offline_model

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
MARKED = re.compile(r"<!-- readme-test: ([\w-]+) -->\s*```bash\n(.*?)```", re.S)
CLEARED = ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME", "CACHE_DIR", "RAG_OCR_LANG")
UV_STAND_IN = """#!/bin/sh
case "$1" in
  sync) exit 0 ;;
  run) shift; exec "$@" ;;
  *) echo "the README test's uv does not know: uv $*" >&2; exit 97 ;;
esac
"""


def marked_blocks() -> dict[str, str]:
    """README.md's marked command blocks, by marker name, in the README's order."""
    return dict(MARKED.findall(README.read_text(encoding="utf-8")))


def test_the_readme_marks_its_quick_start_and_try_it_commands() -> None:
    blocks = marked_blocks()
    assert list(blocks) == ["quick-start", "try-it"]
    assert blocks["quick-start"].splitlines()[0] == "uv sync"
    assert "minirag-mcp query" in blocks["quick-start"]


@pytest.mark.slow
def test_the_readme_commands_answer_in_a_fresh_clone(tmp_path: Path) -> None:
    if offline_model_missing() is not None:
        pytest.skip(offline_model_missing() or "")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout to clone")
    clone = tmp_path / "minirag-mcp"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "uv").write_text(UV_STAND_IN, encoding="utf-8")
    (stand_in / "uv").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    path = os.pathsep.join((str(stand_in), str(Path(sys.executable).parent), env["PATH"]))
    env.update(PATH=path, HF_HUB_OFFLINE="1", CACHE_DIR=str(tmp_path / "cache"))
    script = "set -e\n" + "\n".join(marked_blocks().values())
    bash = ["bash", "-c", script]
    done = subprocess.run(bash, cwd=clone, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "sync succeeded: scanned 4, ingested 4" in out
    assert "[1] handbook/error-codes.md" in out  # why did the nightly export stop?
    assert "[1] ru/Положение об отпусках.md" in out  # сколько дней длится отпуск?
    assert "2 of 4 documents match" in out and "meetings/2026-08-05-weekly-sync.md" in out
    assert "documents: 4" in out.splitlines()  # status, after the sync
    assert (clone / "examples" / "sample-docs" / ".minirag").is_dir()  # indexed in the clone
