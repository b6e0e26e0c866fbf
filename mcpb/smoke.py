"""Install and start a built ``minirag-mcp.mcpb`` outside Claude Desktop, the way Desktop does.

    uv run python mcpb/smoke.py dist/minirag-mcp.mcpb
    uv run python mcpb/smoke.py dist/minirag-mcp.mcpb --search --model-dir /path/to/model

Steps:

1. unzip the bundle into a fresh temporary folder whose path contains a space;
2. run ``uv sync --quiet`` in it (with this shell's environment, as the app's own process);
3. start the server with the manifest's ``mcp_config`` command and arguments, substituting
   ``${__dirname}`` and the ``user_config`` values (the documents folder is a temporary folder
   with a space in its name), and with an environment made of the manifest's ``env`` plus only
   the basic variables an MCP host passes on (HOME, USER, ... and a PATH of the system
   folders plus the folder of uv): nothing else from this shell reaches the server;
4. over stdio, with the ``mcp`` client library: initialize, compare the tool list with the
   manifest's ``tools``, and call ``status``, which must report the manifest's version, the
   documents folder as the only root and no configuration error.

With ``--search`` it also writes two small documents into the documents folder, runs
``sync_start`` / ``sync_status`` until the sync succeeds and checks that ``query_documents``
finds the right one. That downloads the embedding model unless ``--model-dir`` (or the
SMOKE_MODEL_DIR environment variable) names a local model folder; it is then passed to the
server as MODEL_NAME (and CACHE_DIR points into the temporary folder), the one departure from
what Desktop passes.

``--uv`` picks the uv executable (default: the one on PATH). ``--pass-env NAME`` forwards one
more variable of this shell to the server (e.g. SSL_CERT_FILE behind a TLS-inspecting proxy).
Exit status 0 when every check passed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import anyio
import mcp.client.stdio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# Variables an MCP host passes on to a stdio server besides the configured ones (the MCP SDKs'
# default inherited set). PATH is rebuilt rather than inherited.
POSIX_BASICS = ("HOME", "LOGNAME", "SHELL", "TERM", "USER")
WINDOWS_BASICS = (
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
)
DOCUMENTS = {
    "lighthouse.md": "# Lighthouse maintenance\n\nThe Fresnel lens of the north lighthouse is "
    "polished every spring, and the lamp is replaced after 4000 hours of operation.\n",
    "recipes.md": "# Bread recipes\n\nMix flour, water, salt and yeast; let the dough rise for "
    "two hours before baking it at 230 degrees.\n",
}
QUERY = "how often is the lighthouse lamp replaced"
EXPECTED_HIT = "lighthouse.md"

failures: list[str] = []


def check(ok: bool, message: str) -> bool:
    print(("ok    " if ok else "FAIL  ") + message, flush=True)
    if not ok:
        failures.append(message)
    return ok


def substitute(value: str, variables: dict[str, str]) -> str:
    for name, replacement in variables.items():
        value = value.replace("${" + name + "}", replacement)
    return value


def host_env(uv: Path, manifest_env: dict[str, str], extra: list[str]) -> dict[str, str]:
    """The manifest's env plus the few basic variables a host passes on, and nothing else."""
    if os.name == "nt":
        names = WINDOWS_BASICS
        root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        system = [rf"{root}\System32", root, rf"{root}\System32\Wbem"]
    else:
        names = POSIX_BASICS
        system = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
    env = {name: os.environ[name] for name in names if name in os.environ}
    env["PATH"] = os.pathsep.join([str(uv.parent), *system])
    for name in extra:
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(manifest_env)
    return env


def payload(result: Any) -> dict[str, Any]:
    """The JSON object a tool returned (structured content, else the first text block)."""
    if getattr(result, "structured_content", None) or getattr(result, "structuredContent", None):
        data = getattr(result, "structured_content", None) or result.structuredContent
        return data.get("result", data) if isinstance(data, dict) and len(data) == 1 else data
    for block in result.content:
        text = getattr(block, "text", None)
        if text:
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return {"_text": text}
    return {}


async def exercise(
    params: StdioServerParameters, manifest: dict[str, Any], docs: Path, search: bool
) -> None:
    # Only the environment built above may reach the server: the mcp client would otherwise
    # merge this process's default variables (HOME, PATH, ...) over it.
    mcp.client.stdio.get_default_environment = dict
    started = time.monotonic()
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=300.0) as session,
    ):
        init = await session.initialize()
        info = getattr(init, "server_info", None) or init.serverInfo
        check(True, f"initialize: server {info.name!r} in {time.monotonic() - started:.1f}s")

        tools = await session.list_tools()
        live = sorted(tool.name for tool in tools.tools)
        declared = sorted(tool["name"] for tool in manifest.get("tools", []))
        check(live == declared, f"tool list matches manifest.json: {live}")

        status = payload(await session.call_tool("status", {}))
        roots = [str(Path(r)) for r in status.get("roots", [])] if "roots" in status else None
        check(
            status.get("version") == manifest["version"]
            and "configError" not in status
            and (roots is None or roots == [str(docs)]),
            "status: version {!r}, roots {!r}, configError {!r}".format(
                status.get("version"), status.get("roots"), status.get("configError")
            ),
        )
        if not search:
            return

        job = payload(await session.call_tool("sync_start", {}))
        state: dict[str, Any] = {}
        deadline = time.monotonic() + 600
        while "jobId" in job and time.monotonic() < deadline:
            state = payload(await session.call_tool("sync_status", {"jobId": job["jobId"]}))
            if state.get("state") != "running":
                break
            await anyio.sleep(1)
        check(
            state.get("state") == "succeeded",
            f"sync: {state.get('state')!r} {state.get('counts', state.get('errors', ''))}",
        )
        found = payload(await session.call_tool("query_documents", {"query": QUERY, "topK": 3}))
        paths = [s.get("displayPath", s.get("source", "")) for s in found.get("sources", [])]
        check(
            bool(paths) and paths[0].endswith(EXPECTED_HIT),
            f"query_documents finds {EXPECTED_HIT} first: {paths}",
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--search", action="store_true", help="also sync and search")
    parser.add_argument("--model-dir", type=Path, default=os.environ.get("SMOKE_MODEL_DIR"))
    parser.add_argument("--uv", type=Path, default=shutil.which("uv"))
    parser.add_argument("--pass-env", action="append", default=[], metavar="NAME")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    if args.uv is None:
        sys.exit("uv not found: pass --uv")
    uv = args.uv.resolve()

    work = Path(tempfile.mkdtemp(prefix="minirag smoke "))
    try:
        ext = work / "Claude Extensions" / "minirag-mcp"
        docs = work / "My Documents"
        docs.mkdir(parents=True)
        with zipfile.ZipFile(args.bundle) as zf:
            zf.extractall(ext)
        manifest = json.loads((ext / "manifest.json").read_text(encoding="utf-8"))
        print(f"unpacked {args.bundle} into {ext}")
        if args.search:
            for name, text in DOCUMENTS.items():
                (docs / name).write_text(text, encoding="utf-8")

        started = time.monotonic()
        result = subprocess.run([str(uv), "sync", "--quiet"], cwd=ext, check=False)
        if not check(result.returncode == 0, f"uv sync in {time.monotonic() - started:.0f}s"):
            return 1

        config = manifest["server"]["mcp_config"]
        values = {"__dirname": str(ext)}
        for key in manifest.get("user_config", {}):
            values[f"user_config.{key}"] = str(docs)  # the one user_config: the folder
        command = substitute(config["command"], values)
        if command == "uv":
            command = str(uv)
        argv = [substitute(a, values) for a in config.get("args", [])]
        env = host_env(
            uv, {k: substitute(v, values) for k, v in config.get("env", {}).items()}, args.pass_env
        )
        if args.search and args.model_dir:
            env["MODEL_NAME"] = str(Path(args.model_dir).resolve())
            env["CACHE_DIR"] = str(work / "cache")
            env["HF_HUB_OFFLINE"] = "1"
        print(f"server: {command} {argv}\nenv: {sorted(env)}", flush=True)
        params = StdioServerParameters(command=command, args=argv, env=env, cwd=str(work))
        anyio.run(exercise, params, manifest, docs, args.search)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{len(failures)} check(s) failed" if failures else "\nall checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
