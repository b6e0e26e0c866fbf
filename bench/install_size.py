"""Install size: how much disk each environment this repository creates takes.

    uv run python bench/install_size.py                       # everything below
    uv run python bench/install_size.py --only clone tool     # some of them
    uv run python bench/install_size.py --sessions index base # these nox sessions only

Each environment is built from scratch in a temporary folder, from the committed HEAD of this
checkout (``git clone`` of it; uncommitted changes are not measured):

- ``clone``: a clone's ``uv sync --frozen`` (the dev group: every package but classify, the
  test tools and the test model), and ``uv sync --frozen --no-dev --package minirag-mcp``, what
  a user who runs the server from a clone with ``uv run --no-dev --package minirag-mcp`` gets;
- ``nox``: each nox session's virtualenv (``nox -s NAME --install-only`` in the clone). The
  all session compiles llama.cpp the first time (several minutes);
- ``tool``: ``uv tool install`` of the server from a ``git+file://`` URL of the clone, the
  README's install for client configurations, without and with the ``[ocr]`` extra;
- ``bundle``: the Claude Desktop bundle's environment: ``mcpb/build.py``'s staging folder (the
  wheels, pyproject and lock it packs) and ``uv sync`` in it, as Desktop runs it.

The size is the apparent size of every file in the environment, each hard-linked file once
(uv links files from its cache, so this is also what the environment adds to an empty cache).
Each environment is also searched for torch, triton and nvidia-* distributions; the script
exits 1 if any is installed. Downloads come from the uv cache when it has them, so the time
printed beside each figure is not a download time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

NOX_SESSIONS = ("lint", "index", "base", "offline_model", "all")
TARGETS = {"end user": 1.0, "dev": 1.5}  # GB
GPU_DIST = re.compile(r"^(torch|triton|pytorch_triton|nvidia_[a-z0-9_]+)-[^-]+\.dist-info$", re.I)


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Run a command quietly; exit with its output when it fails. Returns seconds taken."""
    started = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)} (in {cwd})\n{result.stdout}\n{result.stderr}")
    return time.perf_counter() - started


def tree_bytes(path: Path) -> int:
    """Apparent size of the regular files under ``path``, each inode counted once."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen or not os.path.isfile(os.path.join(folder, name)):
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_size
    return total


def site_packages(env: Path) -> list[Path]:
    """The site-packages folders of a virtualenv, or of each tool of a uv tool folder."""
    patterns = ("lib/python3*/site-packages", "Lib/site-packages")
    return sorted(sp for root in (env, *env.glob("*")) for p in patterns for sp in root.glob(p))


def biggest(env: Path, top: int = 6) -> str:
    """The largest top-level entries of the environment's site-packages (foo.libs into foo)."""
    sizes: dict[str, int] = {}
    for sp in site_packages(env):
        for entry in sp.iterdir():
            if entry.name.endswith((".dist-info", ".pth")) or entry.name == "__pycache__":
                continue
            name = entry.name.removesuffix(".libs")
            size = tree_bytes(entry) if entry.is_dir() else entry.stat().st_size
            sizes[name] = sizes.get(name, 0) + size
    ranked = sorted(sizes.items(), key=lambda kv: -kv[1])[:top]
    return ", ".join(f"{name} {size / 2**20:.0f}" for name, size in ranked)


def gpu_dists(env: Path) -> list[str]:
    return sorted(
        d.name for sp in site_packages(env) for d in sp.iterdir() if GPU_DIST.match(d.name)
    )


class Report:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, float, float, list[str], str]] = []

    def add(self, name: str, kind: str, env: Path, seconds: float) -> None:
        size = tree_bytes(env) / 1e9
        gpu = gpu_dists(env)
        self.rows.append((name, kind, size, seconds, gpu, biggest(env)))
        target = TARGETS.get(kind)
        verdict = "" if target is None else f"  (target <= {target} GB: {size <= target})"
        print(f"  {name:<44} {size:6.2f} GB  in {seconds:5.0f} s{verdict}", flush=True)
        print(f"      largest (MiB): {biggest(env)}")
        print(f"      torch / triton / nvidia-*: {', '.join(gpu) if gpu else 'none'}", flush=True)

    @property
    def gpu_found(self) -> bool:
        return any(row[4] for row in self.rows)


def clone_envs(clone: Path, report: Report) -> None:
    env = {
        k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT"}
    }
    took = run(["uv", "sync", "--frozen", "--quiet"], clone, env)
    report.add("clone: uv sync --frozen (dev group)", "dev", clone / ".venv", took)
    target = clone.parent / "venv-no-dev"
    env_no_dev = {**env, "UV_PROJECT_ENVIRONMENT": str(target)}
    took = run(
        ["uv", "sync", "--frozen", "--quiet", "--no-dev", "--package", "minirag-mcp"],
        clone,
        env_no_dev,
    )
    report.add("clone: uv sync --no-dev --package minirag-mcp", "end user", target, took)


def nox_envs(clone: Path, sessions: list[str], report: Report) -> None:
    nox = clone / ".venv" / "bin" / "nox"
    if not nox.exists():
        run(["uv", "sync", "--frozen", "--quiet"], clone)
    for session in sessions:
        took = run([str(nox), "-s", session, "--install-only"], clone)
        report.add(
            f"nox -s {session}", "dev" if session != "lint" else "", clone / ".nox" / session, took
        )


def tool_envs(clone: Path, work: Path, report: Report) -> None:
    url = f"git+file://{clone}#subdirectory=packages/minirag-server"
    for label, spec in (("", url), ("[ocr]", f"minirag-mcp[ocr] @ {url}")):
        tools, bins = work / f"tools{label}", work / f"bin{label}"
        env = {**os.environ, "UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bins)}
        took = run(["uv", "tool", "install", "--quiet", spec], work, env)
        report.add(f"uv tool install minirag-mcp{label} (git+file)", "end user", tools, took)


def bundle_env(clone: Path, report: Report) -> None:
    """Stage the bundle with the clone's own mcpb/build.py, then ``uv sync`` it like Desktop."""
    staging = clone / "dist" / "mcpb-staging"
    stage = "import sys; sys.path.insert(0, 'mcpb'); import build; build.stage(build.ROOT / {!r})"
    took = run([str(clone / ".venv" / "bin" / "python"), "-c", stage.format(str(staging))], clone)
    took += run(["uv", "sync", "--quiet"], staging)
    report.add(
        "Desktop bundle: uv sync in the unpacked bundle", "end user", staging / ".venv", took
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=("clone", "nox", "tool", "bundle"))
    parser.add_argument("--sessions", nargs="+", choices=NOX_SESSIONS, default=list(NOX_SESSIONS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    parts = args.only or ["clone", "nox", "tool", "bundle"]

    c.header("install size: every environment this repository creates")
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=c.REPO, capture_output=True, text=True
    ).stdout.strip()
    print(f"revision {head} (committed HEAD), uv {uv_version()}\n", flush=True)
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-size-"))
    report = Report()
    try:
        clone = work / "minirag-mcp"
        run(["git", "clone", "--quiet", str(c.REPO), str(clone)], work)
        if "clone" in parts or "nox" in parts or "bundle" in parts:
            clone_envs(clone, report)
        if "nox" in parts:
            nox_envs(clone, args.sessions, report)
        if "tool" in parts:
            tool_envs(clone, work, report)
        if "bundle" in parts:
            bundle_env(clone, report)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    c.footer()
    if report.gpu_found:
        print("torch, triton or nvidia-* distributions were installed (see above)")
        return 1
    return 0


def uv_version() -> str:
    return subprocess.run(["uv", "--version"], capture_output=True, text=True).stdout.split()[1]


if __name__ == "__main__":
    sys.exit(main())
