"""Build the Claude Desktop extension ``dist/minirag-mcp.mcpb`` from this checkout.

    uv run python mcpb/build.py                  # writes dist/minirag-mcp.mcpb
    uv run python mcpb/build.py -o other.mcpb    # somewhere else
    uv run python mcpb/build.py --keep-staging   # leave dist/mcpb-staging/ for inspection

The bundle is a "uv" type extension: Claude Desktop unpacks it, runs ``uv sync`` in the
unpacked folder and starts the server with ``uv run``. Its contents:

- ``manifest.json``: copied from ``mcpb/manifest.json``, whose version must match the packages;
- ``icon.png``: drawn by ``mcpb/make_icon.py``;
- ``main.py``: the entry point, which runs ``minirag_mcp.cli:main`` (the stdio server);
- ``wheels/``: the minirag-index, minirag-ingest and minirag-mcp wheels built from this checkout,
  so the bundle installs exactly this revision whether or not it was ever released;
- ``pyproject.toml``: a non-package project depending on those wheels by path, with every
  third-party version constrained to the one pinned in this checkout's uv.lock;
- ``uv.lock``: locked from that pyproject, so every install resolves the same versions.

Packing and validation use the official MCPB CLI through npx (Node.js must be installed).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "mcpb"
SERVER_PYPROJECT = ROOT / "packages" / "minirag-server" / "pyproject.toml"
# The distributions the base install needs; the [ocr] and [classify] extras are not bundled.
BUNDLED = ("minirag-index", "minirag-ingest", "minirag-mcp")
MCPB_CLI = "@anthropic-ai/mcpb@2.1.2"
# Where the bundle installs: LanceDB publishes wheels for macOS on Apple Silicon only (no Intel
# Macs), for x64 Windows (not ARM) and for glibc Linux on x86-64 and ARM64; ONNX Runtime's macOS
# wheel needs macOS 14. The bundle's lock is resolved for exactly these environments and must
# have wheels for each (uv refuses the lock otherwise); manifest.json's platforms are their OSes.
ENVIRONMENTS = {
    "darwin": ["sys_platform == 'darwin' and platform_machine == 'arm64'"],
    "win32": ["sys_platform == 'win32' and platform_machine == 'AMD64'"],
    "linux": [
        "sys_platform == 'linux' and platform_machine == 'x86_64'",
        "sys_platform == 'linux' and platform_machine == 'aarch64'",
    ],
}
CPYTHON = "platform_python_implementation == 'CPython'"
# ONNX Runtime has no wheels for Python 3.15 yet; without the bound, uv on a machine with no
# Python would fetch the newest one and fail to install it. Raise it once they exist (the
# required environments above make `uv lock` say so).
REQUIRES_PYTHON = ">=3.11,<3.15"

MAIN_PY = '''"""Entry point of the minirag Claude Desktop extension: the stdio MCP server."""

from minirag_mcp.cli import main

if __name__ == "__main__":
    main([])
'''


def run(*cmd: str | Path, cwd: Path | None = None, capture: bool = False) -> str:
    print("$ " + " ".join(str(c) for c in cmd), flush=True)
    result = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, text=True, capture_output=capture, check=False
    )
    if result.returncode != 0:
        if capture:
            sys.stderr.write(result.stdout + result.stderr)
        sys.exit(f"failed ({result.returncode}): {cmd[0]} {cmd[1] if len(cmd) > 1 else ''}")
    return result.stdout if capture else ""


def npx() -> str:
    found = shutil.which("npx")
    if not found:
        sys.exit("npx not found: install Node.js to run the official MCPB packer")
    return found


def version() -> str:
    return tomllib.loads(SERVER_PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]


def build_wheels(target: Path) -> dict[str, Path]:
    """Build the bundled packages' wheels and return them by distribution name."""
    with tempfile.TemporaryDirectory() as tmp:
        run("uv", "build", "--all-packages", "--wheel", "--quiet", "-o", tmp, cwd=ROOT)
        wheels = {}
        for name in BUNDLED:
            matches = sorted(Path(tmp).glob(f"{name.replace('-', '_')}-*.whl"))
            if len(matches) != 1:
                sys.exit(f"expected one wheel for {name}, found {[m.name for m in matches]}")
            target.mkdir(parents=True, exist_ok=True)
            wheels[name] = Path(shutil.copy(matches[0], target))
    return wheels


def pinned_constraints() -> list[str]:
    """Third-party pins for the base install of minirag-mcp, exported from uv.lock."""
    text = run(
        "uv",
        "export",
        "--frozen",
        "--quiet",
        "--no-hashes",
        "--no-header",
        "--no-annotate",
        "--no-dev",
        "--no-emit-workspace",
        "--package",
        "minirag-mcp",
        cwd=ROOT,
        capture=True,
    )
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "-"))
    ]


def toml_list(items: list[str]) -> str:
    return "[\n" + "".join(f"    {json.dumps(item)},\n" for item in items) + "]"


def bundle_pyproject(ver: str, wheels: dict[str, Path], constraints: list[str]) -> str:
    deps = [f"{name}=={ver}" for name in BUNDLED]
    markers = [f"{m} and {CPYTHON}" for group in ENVIRONMENTS.values() for m in group]
    sources = "\n".join(
        f'{name} = {{ path = "wheels/{wheel.name}" }}' for name, wheel in wheels.items()
    )
    return f"""# Generated by mcpb/build.py: the environment of the minirag Desktop extension.
[project]
name = "minirag-mcp-extension"
version = "{ver}"
requires-python = "{REQUIRES_PYTHON}"
dependencies = {toml_list(deps)}

[tool.uv]
package = false
# Resolved for the platforms the bundle supports only, each of which must have wheels.
environments = {toml_list(markers)}
required-environments = {toml_list(markers)}
# Third-party versions as pinned by the uv.lock of the revision this bundle was built from.
constraint-dependencies = {toml_list(constraints)}

[tool.uv.sources]
{sources}
"""


def stage(staging: Path) -> None:
    ver = version()
    manifest = json.loads((HERE / "manifest.json").read_text(encoding="utf-8"))
    if manifest["version"] != ver:
        sys.exit(f"mcpb/manifest.json version {manifest['version']} != package version {ver}")
    if sorted(manifest["compatibility"]["platforms"]) != sorted(ENVIRONMENTS):
        sys.exit(f"mcpb/manifest.json platforms are not {sorted(ENVIRONMENTS)}")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    shutil.copy(HERE / "manifest.json", staging / "manifest.json")
    shutil.copy(HERE / manifest["icon"], staging / manifest["icon"])
    (staging / "main.py").write_text(MAIN_PY, encoding="utf-8")
    wheels = build_wheels(staging / "wheels")
    pyproject = bundle_pyproject(ver, wheels, pinned_constraints())
    (staging / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    run("uv", "lock", "--quiet", cwd=staging)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "dist" / "minirag-mcp.mcpb")
    parser.add_argument("--keep-staging", action="store_true")
    args = parser.parse_args()

    staging = ROOT / "dist" / "mcpb-staging"
    stage(staging)
    output = args.output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    output.unlink(missing_ok=True)
    run(npx(), "-y", MCPB_CLI, "validate", staging / "manifest.json")
    run(npx(), "-y", MCPB_CLI, "pack", staging, output)
    if not args.keep_staging:
        shutil.rmtree(staging)
    print(f"wrote {output} ({output.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
