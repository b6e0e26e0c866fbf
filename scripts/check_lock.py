"""Check that uv.lock resolves no GPU stack (torch, nvidia-*, triton) into any environment.

    python scripts/check_lock.py              # every dependency group of the workspace root,
                                              # and minirag-mcp with all its extras

A package that pulls in torch costs several gigabytes (torch, the CUDA libraries, triton) on
every developer machine and CI runner, and nothing here runs on a GPU. The walk follows each
locked dependency, with the extras it asks for, from the roots above; it ignores platform
markers, so a GPU package locked for any platform counts. Standard library only.
Exit status 0 when nothing was found, 1 otherwise.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKSPACE_ROOT = "minirag-workspace"
SERVER = "minirag-mcp"


def is_gpu_stack(name: str) -> bool:
    """torch, triton (and pytorch-triton) and NVIDIA's CUDA wheels (nvidia-*)."""
    name = re.sub(r"[-_.]+", "-", name).lower()
    return name in {"torch", "triton", "pytorch-triton"} or name.startswith("nvidia-")


def _packages(lock: dict) -> dict[str, list[dict]]:
    by_name: dict[str, list[dict]] = {}
    for package in lock.get("package", []):
        by_name.setdefault(package["name"], []).append(package)
    return by_name


def closure(lock: dict, roots: Iterable[tuple[str, tuple[str, ...]]]) -> dict[str, str]:
    """Every locked package reachable from ``roots`` ((name, extras) pairs), each mapped to
    the package that first required it."""
    by_name = _packages(lock)
    required_by: dict[str, str] = {}
    todo = [(name, extras, "(root)") for name, extras in roots]
    seen: set[tuple[str, str]] = set()
    while todo:
        name, extras, parent = todo.pop()
        required_by.setdefault(name, parent)
        for package in by_name.get(name, []):
            deps = list(package.get("dependencies", []))
            for extra in extras:
                deps += package.get("optional-dependencies", {}).get(extra, [])
            for dep in deps:
                for extra in ("", *dep.get("extra", [])):
                    if (dep["name"], extra) not in seen:
                        seen.add((dep["name"], extra))
                        todo.append((dep["name"], (extra,) if extra else (), name))
    return required_by


def group_roots(lock: dict, group: str) -> list[tuple[str, tuple[str, ...]]]:
    """The direct dependencies of one dependency group of the workspace root."""
    [root] = _packages(lock)[WORKSPACE_ROOT]
    return [(d["name"], tuple(d.get("extra", []))) for d in root["dev-dependencies"][group]]


def gpu_packages(lock: dict, roots: Iterable[tuple[str, tuple[str, ...]]]) -> list[str]:
    """'name (required by parent)' for every GPU-stack package reachable from ``roots``."""
    return sorted(
        f"{name} (required by {parent})"
        for name, parent in closure(lock, roots).items()
        if is_gpu_stack(name)
    )


def check(lock: dict) -> dict[str, list[str]]:
    """GPU-stack packages per environment: each root dependency group, and the server with
    every extra."""
    [root] = _packages(lock)[WORKSPACE_ROOT]
    found = {
        f"group {group}": gpu_packages(lock, group_roots(lock, group))
        for group in root.get("dev-dependencies", {})
    }
    [server] = _packages(lock)[SERVER]
    extras = tuple(sorted(server.get("optional-dependencies", {})))
    found[f"{SERVER}[{','.join(extras)}]"] = gpu_packages(lock, [(SERVER, extras)])
    return found


def main() -> int:
    lock = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
    failed = False
    for environment, packages in check(lock).items():
        print(f"{environment}: {', '.join(packages) if packages else 'no torch, nvidia-*, triton'}")
        failed = failed or bool(packages)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
