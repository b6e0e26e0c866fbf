"""Install hints: the command that adds an extra to *this* install, read from its PEP 610
direct_url.json - never a bare PyPI name that may belong to another project."""

from __future__ import annotations

import json
import tomllib
from importlib.metadata import distribution
from pathlib import Path

from minirag_ingest.install import (
    extra_command,
    install_hint,
    origin_from_direct_url,
    workspace_root,
)

GIT = {
    "url": "https://example.org/team/minirag-mcp.git",
    "vcs_info": {"vcs": "git", "commit_id": "0" * 40, "requested_revision": "v0.2.0"},
    "subdirectory": "packages/minirag-server",
}


def test_a_git_install_gets_the_same_url_revision_and_subdirectory_with_the_extra() -> None:
    command = extra_command("ocr", origin_from_direct_url(GIT))
    spec = (
        '"minirag-mcp[ocr] @ git+https://example.org/team/minirag-mcp.git@v0.2.0'
        '#subdirectory=packages/minirag-server"'
    )
    assert command.startswith(f"uvx --from {spec} minirag-mcp")
    assert f"uv tool install --force {spec}" in command


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
    assert extra_command("classify", origin, workspace) == (
        f"cd {tmp_path} && uv sync --inexact --package minirag-mcp --extra classify"
    )


def test_only_an_index_install_gets_the_package_index_form() -> None:
    assert "uv tool install 'minirag-mcp[ocr]'" in extra_command(
        "ocr", origin_from_direct_url(None)
    )
    for record in (GIT, {"url": "file:///src/minirag", "dir_info": {}}):
        assert "uv tool install 'minirag-mcp" not in extra_command(
            "ocr", origin_from_direct_url(record)
        )


def test_a_wheel_file_install_looks_for_the_extra_beside_that_wheel() -> None:
    wheel = {"url": "file:///tmp/dist/minirag_mcp-0.1.0-py3-none-any.whl", "archive_info": {}}
    command = extra_command("ocr", origin_from_direct_url(wheel))
    assert command.startswith(
        'uvx --find-links /tmp/dist --from "minirag-mcp[ocr] @ '
        'file:///tmp/dist/minirag_mcp-0.1.0-py3-none-any.whl" minirag-mcp'
    )


def test_this_checkout_gets_the_hint_for_its_own_workspace() -> None:
    record = json.loads(distribution("minirag-mcp").read_text("direct_url.json") or "null")
    origin = origin_from_direct_url(record)
    if origin.kind != "editable":  # an install other than a clone (a nox venv, a wheel)
        assert "minirag-mcp[ocr]" in install_hint("ocr")
        return
    root = Path(__file__).resolve().parents[3]
    for extra in ("ocr", "classify"):
        assert install_hint(extra) == (
            f"cd {root} && uv sync --inexact --package minirag-mcp --extra {extra}"
        )
