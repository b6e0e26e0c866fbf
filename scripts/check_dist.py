"""Build every workspace package and check the distributions the way a user receives them.

    uv run python scripts/check_dist.py              # build into a temp folder, check, clean up
    uv run python scripts/check_dist.py --dist dist  # check wheels already built there
    uv run python scripts/check_dist.py --installer uv   # uv pip instead of pip (faster)

Checks, in order:

1. ``uv build --all-packages`` gives one sdist and one wheel per workspace package, all at one
   version, each wheel's metadata naming the other workspace packages with an ``==<version>``
   pin, and (unless ``--no-twine``) ``twine check --strict`` passes on all of them.
2. A fresh virtualenv with ``<server wheel>[ocr]`` and ``--find-links <dist>``: the workspace
   packages come from the built wheels (none of minirag-index/-ingest/-ocr is on PyPI, so
   nothing else could supply them), and ``minirag-mcp status --json`` answers with the version.
3. A fresh virtualenv with the minirag-index wheel alone: none of the server-only
   distributions is installed.

Needs network access to PyPI for the third-party dependencies. Exit status 0 when every check
passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ROOT / "packages"
SERVER_DIST = "minirag-mcp"
# Distributions that a library-only install of minirag-index must not bring in.
SERVER_ONLY = [
    "minirag-ingest",
    "minirag-mcp",
    "markitdown",
    "fastmcp",
    "cyclopts",
    "pathspec",
    "rapidocr-onnxruntime",
    "llama-cpp-python",
]

failures: list[str] = []


def check(ok: bool, message: str) -> bool:
    print(("ok    " if ok else "FAIL  ") + message, flush=True)
    if not ok:
        failures.append(message)
    return ok


def run(*cmd: str | Path, **kwargs) -> subprocess.CompletedProcess[str]:
    shown = [str(c) if "\n" not in str(c) else "<script>" for c in cmd]
    print("$ " + shlex.join(shown), flush=True)
    return subprocess.run([str(c) for c in cmd], text=True, **kwargs)


def workspace_packages() -> dict[str, str]:
    """Map each workspace distribution name to its version in pyproject.toml."""
    found = {}
    for pyproject in sorted(PACKAGES.glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        found[canonicalize_name(project["name"])] = project["version"]
    return found


def wheel_metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(zf.read(name).decode("utf-8"))


def check_build(dist: Path, packages: dict[str, str], twine: bool) -> dict[str, Path]:
    versions = set(packages.values())
    check(len(versions) == 1, f"one version across the workspace packages: {sorted(versions)}")
    version = next(iter(versions))
    wheels: dict[str, Path] = {}
    for name in packages:
        stem = f"{name.replace('-', '_')}-{version}"
        wheel = dist / f"{stem}-py3-none-any.whl"
        sdist = dist / f"{stem}.tar.gz"
        check(wheel.is_file(), f"wheel {wheel.name}")
        check(sdist.is_file(), f"sdist {sdist.name}")
        if not wheel.is_file():
            continue
        wheels[name] = wheel
        meta = wheel_metadata(wheel)
        check(meta["Version"] == version, f"{name}: wheel metadata version {meta['Version']}")
        for line in meta.get_all("Requires-Dist") or []:
            req = Requirement(line)
            if canonicalize_name(req.name) in packages:
                check(
                    str(req.specifier) == f"=={version}",
                    f"{name} requires {req.name}{req.specifier} (want =={version})",
                )
    if twine:
        files = sorted(str(p) for p in dist.iterdir() if p.suffix in {".whl", ".gz"})
        result = run("uvx", "twine", "check", "--strict", *files)
        check(result.returncode == 0, "twine check --strict")
    return wheels


def make_venv(path: Path, installer: str) -> Path:
    if installer == "pip":
        run(sys.executable, "-m", "venv", path, check=True)
    else:
        run("uv", "venv", "--quiet", "--python", sys.executable, path, check=True)
    return path / ("Scripts" if os.name == "nt" else "bin")


def install(bindir: Path, installer: str, *args: str | Path) -> bool:
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    if installer == "pip":
        cmd = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *args]
    else:
        cmd = ["uv", "pip", "install", "--quiet", "--python", python, *args]
    return run(*cmd).returncode == 0


def installed(bindir: Path) -> dict[str, tuple[str, str, str]]:
    """Map canonical distribution name to (version, where it was installed from, RECORD)."""
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    probe = (
        "import json, importlib.metadata as m\n"
        "out = {}\n"
        "for d in m.distributions():\n"
        "    url = d.read_text('direct_url.json')\n"
        "    record = d.read_text('RECORD') or ''\n"
        "    out[d.metadata['Name']] = [d.version, json.loads(url)['url'] if url else 'index',\n"
        "                               record]\n"
        "print(json.dumps(out))\n"
    )
    result = run(python, "-c", probe, capture_output=True, check=True)
    return {canonicalize_name(k): tuple(v) for k, v in json.loads(result.stdout).items()}


def package_files(record: str) -> set[str]:
    """The ``path,hash`` lines of a RECORD for the package's own modules (not dist-info)."""
    return {
        line.rsplit(",", 1)[0]
        for line in record.splitlines()
        if line.endswith(tuple("0123456789")) and ".dist-info/" not in line and ".py," in line
    }


def wheel_record(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        return zf.read(name).decode("utf-8")


def check_server_install(work: Path, dist: Path, wheels: dict[str, Path], installer: str) -> None:
    bindir = make_venv(work / "server-venv", installer)
    server = wheels[SERVER_DIST]
    ok = install(bindir, installer, "--find-links", dist, f"{server}[ocr]")
    if not check(ok, f"install {server.name}[ocr] with --find-links {dist.name}"):
        return
    have = installed(bindir)
    for name in ("minirag-index", "minirag-ingest", "minirag-ocr", "minirag-mcp"):
        version, _source, record = have.get(name, ("missing", "", ""))
        # Same module files with the same hashes as in the built wheel's RECORD.
        same = package_files(record) == package_files(wheel_record(wheels[name]))
        check(
            version == wheels[name].name.split("-")[1] and same and bool(record),
            f"{name} {version} installed from the built wheel "
            f"({'files identical to ' + wheels[name].name if same else 'files differ'})",
        )
    check("minirag-classify" not in have, "[ocr] alone does not install minirag-classify")
    docs = work / "docs folder"
    docs.mkdir()
    exe = bindir / ("minirag-mcp.exe" if os.name == "nt" else "minirag-mcp")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "FASTMCP_CHECK_FOR_UPDATES": "off"}
    for key in ("BASE_DIR", "BASE_DIRS", "DB_PATH", "MODEL_NAME"):
        env.pop(key, None)
    result = run(
        exe, "status", "--json", "--base-dir", docs, capture_output=True, env=env, cwd=work
    )
    try:
        payload = json.loads(result.stdout)
    except json.JSONDecodeError:
        payload = {}
    check(
        result.returncode == 0 and payload.get("version") == wheels[SERVER_DIST].name.split("-")[1],
        f"minirag-mcp status --json answers (exit {result.returncode}, "
        f"version {payload.get('version')!r}){'' if payload else ': ' + result.stderr[-800:]}",
    )


def check_index_alone(work: Path, wheels: dict[str, Path], installer: str) -> None:
    bindir = make_venv(work / "index-venv", installer)
    wheel = wheels["minirag-index"]
    if not check(install(bindir, installer, wheel), f"install {wheel.name} alone"):
        return
    have = installed(bindir)
    extra = sorted(name for name in SERVER_ONLY if name in have)
    check(not extra, f"minirag-index alone installs none of the server's dependencies {extra}")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    result = run(python, "-c", "import minirag_index")
    check(result.returncode == 0, "import minirag_index in the library-only venv")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, help="check wheels already built here")
    parser.add_argument("--installer", choices=["pip", "uv"], default="pip")
    parser.add_argument("--no-twine", action="store_true", help="skip twine check --strict")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="minirag check-dist "))
    try:
        dist = args.dist.resolve() if args.dist else work / "dist"
        if not args.dist:
            run("uv", "build", "--all-packages", "--quiet", "-o", dist, cwd=ROOT, check=True)
        packages = workspace_packages()
        wheels = check_build(dist, packages, twine=not args.no_twine)
        if len(wheels) == len(packages):
            check_server_install(work, dist, wheels, args.installer)
            check_index_alone(work, wheels, args.installer)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{len(failures)} check(s) failed" if failures else "\nall checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
