"""Server start-up: spawn ``python -m minirag_mcp`` → MCP initialize answered, and what it imports.

    uv run python bench/startup.py [--model-dir DIR] [--runs 10] [--top 25]

Each run spawns the server over stdio with the mcp client library, exactly as an MCP client
does, and times from the spawn to the moment ``initialize`` returns; the median of ``--runs``
is the figure. Every run then calls the status tool and the script fails unless it reports the
model as "not loaded" (start-up must not load the embedding model). For reference it also
times a bare ``python -c pass`` the same way.

Then one more server is spawned with ``python -X importtime`` and taken through initialize; its
import log (stderr) gives the packages that cost the most, by cumulative time for top-level
imports and by self time for single modules, so start-up cost can be cut where it is.
"""

from __future__ import annotations

import argparse
import asyncio
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

LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


async def one_start(env: dict[str, str], flags: list[str], errlog) -> tuple[float, str]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=[*flags, "-m", "minirag_mcp"], env=env
    )
    started = time.perf_counter()
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        took = time.perf_counter() - started
        status = c.tool_json(await session.call_tool("status", {}))
    return took, status.get("model")


def bare_python() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def import_offenders(log: str, top: int) -> None:
    rows = []
    for line in log.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4)))
    total = sum(r[0] for r in rows)
    print(
        f"\n## python -X importtime, server through initialize: {len(rows)} modules, "
        f"{total / 1e6:.2f} s of imports in all"
    )
    tops = sorted((r for r in rows if r[2] <= 1), key=lambda r: -r[1])[:top]
    print(f"  top-level imports by cumulative time (top {top}):")
    for _, cumulative, _, name in tops:
        print(f"    {cumulative / 1000:8.1f} ms  {name}")
    print("  single modules by self time (top 15):")
    for own, _, _, name in sorted(rows, key=lambda r: -r[0])[:15]:
        print(f"    {own / 1000:8.1f} ms  {name}")
    # importtime prints a module after everything it imported, one indent level deeper: the
    # importer of a row is the next row with a smaller indent.
    print("  who first pulls in the heavy packages (importer chain, outermost last):")
    for heavy in (
        "numpy",
        "pyarrow",
        "lancedb",
        "fastembed",
        "onnxruntime",
        "markitdown",
        "tokenizers",
        "magika",
        "pandas",
        "urllib.request",
    ):
        first = next(
            (i for i, r in enumerate(rows) if r[3] == heavy or r[3].startswith(heavy + ".")), None
        )
        if first is None:
            print(f"    {heavy:<14} not imported")
            continue
        chain, indent = [rows[first][3]], rows[first][2]
        for r in rows[first + 1 :]:
            if r[2] < indent:
                chain.append(r[3])
                indent = r[2]
        print(f"    {heavy:<14} {' <- '.join(chain)}")
    roots: dict[str, int] = {}
    for own, _, _, name in rows:
        roots[name.split(".")[0]] = roots.get(name.split(".")[0], 0) + own
    print("  self time summed per top-level package (top 15):")
    for name, own in sorted(roots.items(), key=lambda kv: -kv[1])[:15]:
        print(f"    {own / 1000:8.1f} ms  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()

    devnull = open(os.devnull, "w")  # noqa: SIM115
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-startup-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("server start-up: spawn → MCP initialize", label)
        root = work / "docs"
        root.mkdir()
        (root / "note.md").write_text("# A note\n\nNothing indexed yet.\n", encoding="utf-8")
        env = c.server_env(root, work / "db", model_dir)
        bare_python()
        asyncio.run(one_start(env, [], devnull))  # warm the page cache
        times, models = [], []
        for _ in range(args.runs):
            took, model = asyncio.run(one_start(env, [], devnull))
            times.append(took)
            models.append(model)
        bare = [bare_python() for _ in range(args.runs)]
        print(f"\n  spawn → initialize       {c.spread(times, 'ms', 1000, 0)}  (target <= 600 ms)")
        print(f"  bare `python -c pass`    {c.spread(bare, 'ms', 1000, 0)}")
        print(f"  status model field       {sorted(set(models))}  [{c.load()}]")
        if set(models) != {"not loaded"}:
            sys.exit(f"the model was loaded at start-up: {models}")

        log_path = work / "importtime.log"
        with open(log_path, "w") as errlog:
            asyncio.run(one_start(env, ["-X", "importtime"], errlog))
        import_offenders(log_path.read_text(), args.top)
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
