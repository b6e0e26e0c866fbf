"""The README's install routes and client configurations are this repository's: no command
installs the other project that holds the `minirag-mcp` name on PyPI or lives at the earlier
implementation's GitHub address, and the client configuration's `uv run --project` form keeps
the user's working directory (so without BASE_DIR the folder the client started in is the
root, not the clone)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = [
    line.strip()
    for block in re.findall(r"```(?:bash|sh|console)?\n(.*?)```", README, flags=re.S)
    for line in block.splitlines()
]


def test_no_route_names_the_other_projects_repository_or_package() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        assert "github.com/sfrangulov" not in path.read_text(encoding="utf-8"), path
    installs = [c for c in COMMANDS if re.search(r"\b(uv tool install|uvx|pip install)\b", c)]
    assert installs, "the README shows how to install"
    for command in installs:
        if "minirag-mcp" in command:  # always from this repository: a git URL or a path
            assert "git+" in command, command


def test_the_client_configuration_keeps_the_working_directory(tmp_path: Path) -> None:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("needs uv on PATH")
    shown = re.search(r'`"args": (\[.*?"--project".*?\])`', README)
    assert shown, "the README shows the client configuration's arguments"
    args = json.loads(shown.group(1))
    assert args[0] == "run" and "--directory" not in args
    args[args.index("--project") + 1] = str(ROOT)
    # The environment as it is (a test must not re-sync the clone's environment).
    args = [args[0], "--no-sync", *args[1:], "status", "--json"]
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_DIR", "BASE_DIRS", "DB_PATH")}
    done = subprocess.run(
        [uv, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    roots = status.get("baseDirs") or status.get("roots") or [status.get("baseDir")]
    assert str(tmp_path) in json.dumps(roots), status
