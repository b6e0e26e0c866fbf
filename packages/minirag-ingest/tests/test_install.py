"""Install hints: the command that adds an extra to *this* install, read from its PEP 610
direct_url.json, keeping the extras it already has - never a bare PyPI name that belongs to
another project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from importlib.metadata import distribution
from pathlib import Path

import pytest

from minirag_ingest.extras.install import (
    extra_command,
    install_hint,
    installed_extras,
    origin_from_direct_url,
    workspace_root,
)

pytestmark = [pytest.mark.ocr, pytest.mark.classify, pytest.mark.s3, pytest.mark.offline_model]

GIT = {
    "url": "https://example.org/team/minirag-mcp.git",
    "vcs_info": {"vcs": "git", "commit_id": "0" * 40, "requested_revision": "v0.2.0"},
    "subdirectory": "packages/minirag-server",
}
GIT_FILE = {
    "url": "file:///home/ann/minirag-mcp",
    "vcs_info": {"vcs": "git", "commit_id": "0" * 40},
    "subdirectory": "packages/minirag-server",
}


def test_a_git_install_gets_the_same_url_revision_and_subdirectory_with_the_extra() -> None:
    command = extra_command("ocr", origin_from_direct_url(GIT))
    spec = (
        '"minirag-mcp[ocr] @ git+https://example.org/team/minirag-mcp.git@v0.2.0'
        '#subdirectory=packages/minirag-server"'
    )
    assert command.startswith(f"uv tool install --force {spec}")
    assert f"uvx --from {spec} minirag-mcp" in command


def test_a_tool_installed_from_git_keeps_the_extras_it_has() -> None:
    # `uv tool install --force` with [ocr] alone would drop [offline-model].
    command = extra_command(
        "ocr", origin_from_direct_url(GIT_FILE), kept=("offline-model",), as_tool=True
    )
    assert command == (
        'uv tool install --force "minirag-mcp[offline-model,ocr] @ '
        'git+file:///home/ann/minirag-mcp#subdirectory=packages/minirag-server"'
    )


def test_a_clone_gets_uv_sync_adding_the_extra_and_keeping_the_rest(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "ws"\nversion = "0"\n'
        '[project.optional-dependencies]\nocr = ["minirag-ocr"]\n'
        '[tool.uv.workspace]\nmembers = ["packages/*"]\n',
        encoding="utf-8",
    )
    server = tmp_path / "packages" / "minirag-server"
    server.mkdir(parents=True)
    origin = origin_from_direct_url({"url": server.as_uri(), "dir_info": {"editable": True}})
    root = workspace_root(server)
    assert root == tmp_path
    workspace = (root, tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")))
    # The workspace's own extra when it has one, else the server package's.
    assert extra_command("ocr", origin, workspace) == f"cd {tmp_path} && uv sync --extra ocr"
    assert extra_command("classify", origin, workspace, kept=("offline-model",)) == (
        f"cd {tmp_path} && uv sync --inexact --package minirag-mcp "
        "--extra offline-model --extra classify"
    )


def test_no_origin_is_given_the_unrelated_pypi_name() -> None:
    for record in (None, {"url": "https://example.org/x"}):
        command = extra_command("ocr", origin_from_direct_url(record), kept=("offline-model",))
        assert command == (
            "reinstall this copy of minirag-mcp the way it was installed, with [offline-model,ocr]"
        )
        assert "uv tool install" not in command and "uvx" not in command


def test_a_wheel_file_install_looks_for_the_extra_beside_that_wheel() -> None:
    wheel = {"url": "file:///tmp/dist/minirag_mcp-0.1.0-py3-none-any.whl", "archive_info": {}}
    command = extra_command("ocr", origin_from_direct_url(wheel))
    assert command.startswith(
        'uv tool install --force --find-links /tmp/dist "minirag-mcp[ocr] @ '
        'file:///tmp/dist/minirag_mcp-0.1.0-py3-none-any.whl"'
    )


def _fake_install(folder: Path, direct_url: dict[str, object] | None) -> Path:
    """A minirag-mcp distribution record in ``folder`` (first on PYTHONPATH, it hides the real
    one): the extras offline-model (installed here) and ocr (a package that is not)."""
    info = folder / "minirag_mcp-9.9.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: minirag-mcp\nVersion: 9.9.9\n"
        "Provides-Extra: offline-model\nProvides-Extra: ocr\n"
        "Requires-Dist: minirag-index[offline-model]; extra == 'offline-model'\n"
        "Requires-Dist: minirag-no-such-ocr; extra == 'ocr'\n",
        encoding="utf-8",
    )
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url), encoding="utf-8")
    return folder


def _hint_in_a_process(folder: Path, extra: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    code = f"from minirag_ingest.extras.install import install_hint; print(install_hint({extra!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_git_file_install_with_the_packaged_model_keeps_it_in_the_ocr_hint(
    tmp_path: Path,
) -> None:
    if installed_extras("minirag-index") != ("offline-model",):
        pytest.skip("needs the [offline-model] extra installed")
    folder = _fake_install(tmp_path, GIT_FILE)
    hint = _hint_in_a_process(folder, "ocr")
    assert hint.startswith(
        'uv tool install --force "minirag-mcp[offline-model,ocr] @ git+file:///home/ann/'
    )
    assert "minirag-mcp[ocr]" not in hint


def test_an_index_install_is_not_sent_to_pypi(tmp_path: Path) -> None:
    hint = _hint_in_a_process(_fake_install(tmp_path, None), "ocr")
    assert hint.startswith("reinstall this copy of minirag-mcp")
    assert "'minirag-mcp[" not in hint and "pip install" not in hint


def test_this_checkout_gets_the_hint_for_its_own_workspace() -> None:
    record = json.loads(distribution("minirag-mcp").read_text("direct_url.json") or "null")
    origin = origin_from_direct_url(record)
    kept = tuple(name for name in installed_extras() if name != "classify")
    if origin.kind != "editable":  # an install other than a clone (a nox venv, a wheel)
        assert "pip install 'minirag-mcp" not in install_hint("classify")
        return
    root = Path(__file__).resolve().parents[3]
    flags = " ".join(f"--extra {name}" for name in (*kept, "classify"))
    assert install_hint("classify") == (
        f"cd {root} && uv sync --inexact --package minirag-mcp {flags}"
    )
