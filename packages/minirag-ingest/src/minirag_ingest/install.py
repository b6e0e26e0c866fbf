"""The command that adds an optional extra (``ocr``, ``classify``) to *this* install.

A hint that says ``uvx --from 'minirag-mcp[ocr]' minirag-mcp`` sends a user to whatever PyPI
serves under that name, which need not be this project. So the hint is built from how this copy
was installed, which pip and uv record per PEP 610 in the distribution's ``direct_url.json``:

- no such file: installed from a package index, so the index form is right;
- ``vcs_info``: from a git URL, so the same URL (revision and subdirectory kept) with the extra;
- ``dir_info`` with ``editable``: a clone's workspace, so ``uv sync`` with the server's extra,
  keeping whatever else the clone's environment holds;
- ``dir_info``, not editable, or ``archive_info``: that folder, wheel or archive with the extra.

:func:`install_hint` is the only place a hint is worded; :func:`extra_command` is the pure rule.
"""

from __future__ import annotations

import json
import shlex
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "minirag-mcp"


@dataclass(frozen=True)
class Origin:
    """How this copy of minirag-mcp was installed."""

    kind: str  # "index", "vcs", "editable", "directory", "archive" or "unknown"
    url: str = ""
    revision: str | None = None
    subdirectory: str | None = None


def origin_from_direct_url(data: dict[str, Any] | None) -> Origin:
    """The install's origin from its PEP 610 record (None: there is none, an index install)."""
    if data is None:
        return Origin("index")
    url = str(data.get("url", ""))
    subdirectory = data.get("subdirectory")
    if isinstance(data.get("vcs_info"), dict):
        vcs = data["vcs_info"]
        return Origin(
            "vcs",
            f"{vcs.get('vcs', 'git')}+{url}",
            vcs.get("requested_revision"),
            subdirectory,
        )
    if isinstance(data.get("dir_info"), dict):
        kind = "editable" if data["dir_info"].get("editable") else "directory"
        return Origin(kind, url, None, subdirectory)
    if isinstance(data.get("archive_info"), dict):
        return Origin("archive", url, None, subdirectory)
    return Origin("unknown", url)


def local_path(url: str) -> Path | None:
    """The folder or file a ``file://`` URL names."""
    parts = urlsplit(url)
    return Path(unquote(parts.path)) if parts.scheme == "file" else None


def workspace_root(start: Path) -> Path | None:
    """The uv workspace holding ``start``: the nearest folder above it whose pyproject.toml has
    a ``[tool.uv.workspace]`` table."""
    for folder in (start, *start.parents):
        data = _read_pyproject(folder / "pyproject.toml")
        if data is not None and "workspace" in data.get("tool", {}).get("uv", {}):
            return folder
    return None


def _read_pyproject(path: Path) -> dict[str, Any] | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def workspace_flag(pyproject: dict[str, Any], extra: str) -> str:
    """The ``uv sync`` flags that add ``extra`` to a clone's environment, whichever way it was
    synced (the server alone or the development environment): the workspace root's own extra
    when it defines one, else the server package's extra, keeping everything else installed."""
    if extra in ((pyproject.get("project") or {}).get("optional-dependencies") or {}):
        return f"--extra {extra}"
    return f"--inexact --package {DISTRIBUTION} --extra {extra}"


def extra_command(
    extra: str, origin: Origin, workspace: tuple[Path, dict[str, Any]] | None = None
) -> str:
    """The command that gives ``origin``'s install the extra; ``workspace`` is the clone's root
    and parsed pyproject.toml for an editable install."""
    if origin.kind == "editable" and workspace is not None:
        root, pyproject = workspace
        return f"cd {shlex.quote(str(root))} && uv sync {workspace_flag(pyproject, extra)}"
    if origin.kind == "editable":
        folder = local_path(origin.url)
        target = str(folder) if folder is not None else origin.url
        return f'uv pip install -e "{target}[{extra}]"'
    if origin.kind in ("vcs", "directory", "archive"):
        url = origin.url
        if origin.kind == "vcs" and origin.revision:
            url += f"@{origin.revision}"
        if origin.subdirectory:
            url += f"#subdirectory={origin.subdirectory}"
        spec = f'"{DISTRIBUTION}[{extra}] @ {url}"'
        wheel = local_path(origin.url) if origin.kind == "archive" else None
        links = f" --find-links {shlex.quote(str(wheel.parent))}" if wheel is not None else ""
        tool = f"uv tool install --force{links} {spec}"
        return f"uvx{links} --from {spec} {DISTRIBUTION} (or, to keep it installed: {tool})"
    if origin.kind == "index":
        return (
            f"uv tool install '{DISTRIBUTION}[{extra}]' "
            f"(or run uvx --from '{DISTRIBUTION}[{extra}]' {DISTRIBUTION})"
        )
    return f"install {DISTRIBUTION} with its [{extra}] extra, the way this copy was installed"


def read_origin() -> Origin:
    """This install's origin, read from the installed distribution's metadata."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution(DISTRIBUTION)
    except PackageNotFoundError:
        return Origin("unknown")
    text = dist.read_text("direct_url.json")
    if text is None:
        return origin_from_direct_url(None)
    try:
        return origin_from_direct_url(json.loads(text))
    except ValueError:
        return Origin("unknown")


@lru_cache(maxsize=8)
def install_hint(extra: str) -> str:
    """The command that adds ``extra`` to this install (how it was installed does not change
    while the process runs, so it is worked out once)."""
    origin = read_origin()
    workspace = None
    folder = local_path(origin.url) if origin.kind == "editable" else None
    root = workspace_root(folder) if folder is not None else None
    if root is not None:
        pyproject = _read_pyproject(root / "pyproject.toml")
        workspace = (root, pyproject) if pyproject is not None else None
    return extra_command(extra, origin, workspace)
