"""Check that every copy of the release version agrees, and optionally matches a tag or a build.

    python scripts/check_versions.py                      # the copies in the tree agree
    python scripts/check_versions.py --tag v0.1.0         # ... and equal the tag
    python scripts/check_versions.py --tag v0.1.0 --dist dist   # ... and the built files

The copies: each package's pyproject.toml (its version and its == pins on the other workspace
packages), .bumpversion.toml, uv.lock (the workspace packages' entries), both "version" fields
of server.json and mcpb/manifest.json. Standard library only, so it runs before any install.
Exit status 0 when everything agrees, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST_FILE = re.compile(r"^(minirag_[a-z]+)-([^-]+?)(?:-py3-none-any\.whl|\.tar\.gz)$")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def collect(root: Path = ROOT) -> tuple[dict[str, str], list[str]]:
    """Every copy of the version, by where it was found, and the problems seen on the way."""
    found: dict[str, str] = {}
    problems: list[str] = []
    projects = {}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        projects[normalize(project["name"])] = (pyproject.relative_to(root).as_posix(), project)
    for rel, project in projects.values():
        found[f"{rel} version"] = project["version"]
        requirements = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            requirements.extend(extra)
        for requirement in requirements:
            match = re.match(r"^\s*([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*(.*)$", requirement)
            if match and normalize(match.group(1)) in projects:
                spec = match.group(2).split(";")[0].strip()
                if not spec.startswith("=="):
                    problems.append(f"{rel}: {requirement!r} is not an == pin")
                found[f"{rel} pin {normalize(match.group(1))}"] = spec.removeprefix("==")

    bump = tomllib.loads((root / ".bumpversion.toml").read_text(encoding="utf-8"))
    found[".bumpversion.toml current_version"] = bump["tool"]["bumpversion"]["current_version"]

    lock = tomllib.loads((root / "uv.lock").read_text(encoding="utf-8"))
    locked = {normalize(p["name"]): p.get("version") for p in lock.get("package", [])}
    for name in projects:
        if name not in locked:
            problems.append(f"uv.lock has no entry for {name}")
        else:
            found[f"uv.lock {name}"] = locked[name]

    server = json.loads((root / "server.json").read_text(encoding="utf-8"))
    found["server.json version"] = server["version"]
    for package in server.get("packages", []):
        found[f"server.json package {package['identifier']}"] = package["version"]

    manifest = json.loads((root / "mcpb" / "manifest.json").read_text(encoding="utf-8"))
    found["mcpb/manifest.json version"] = manifest["version"]
    return found, problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tag", help="the release tag, vX.Y.Z")
    parser.add_argument("--dist", type=Path, help="a folder of built sdists and wheels")
    args = parser.parse_args()

    found, problems = collect()
    versions = sorted(set(found.values()))
    if len(versions) != 1:
        problems.append("versions disagree: " + ", ".join(f"{k}={v}" for k, v in found.items()))
    version = versions[0] if versions else "?"
    if args.tag is not None and args.tag != f"v{version}":
        problems.append(f"tag {args.tag!r} does not match version {version} (want v{version})")
    if args.dist is not None:
        built = sorted(p.name for p in args.dist.iterdir() if DIST_FILE.match(p.name))
        for name in built:
            match = DIST_FILE.match(name)
            assert match is not None
            if match.group(2) != version:
                problems.append(f"{name} is version {match.group(2)}, not {version}")
        expected = 2 * sum(1 for key in found if key.endswith(" version") and "pyproject" in key)
        if len(built) != expected:
            problems.append(f"{args.dist} holds {len(built)} sdists/wheels, expected {expected}")
    for problem in problems:
        print(f"error: {problem}")
    if not problems:
        print(
            f"ok: version {version} in all {len(found)} places"
            + (f", tag {args.tag}" * bool(args.tag))
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
