"""Server start-up: spawn → MCP initialize and spawn → tools/list, the peer beside it, and what
the server imports on the way.

    uv run python bench/startup.py [--model-dir DIR] [--runs 10] [--top 25]
    uv run python bench/startup.py --peer node /path/to/node_modules/mcp-local-rag/dist/index.js
    uv run python bench/startup.py --python /other/checkout/.venv/bin/python   # another revision
    uv run python bench/startup.py --before /other/checkout/.venv/bin/python   # both profiles

Each run spawns the server over stdio with the mcp client library, exactly as an MCP client
does, and times from the spawn to the moment ``initialize`` returns and to the moment the
``tools/list`` that follows it returns; the median of ``--runs`` is the figure. Every run then
calls the status tool and the script fails unless it reports the model as "not loaded"
(start-up must not load the embedding model). For reference it also times a bare
``python -c pass`` the same way.

Every run also times spawn → the first tool call (status) answered.

``--peer COMMAND ...`` also starts another MCP server (e.g. the TypeScript mcp-local-rag) through
the same client, interleaved run by run with ours so both see the same machine, with BASE_DIR,
DB_PATH and CACHE_DIR pointing into the temporary folder, and prints each of our medians as a
fraction of the peer's.

Then two more servers are spawned with ``python -X importtime``: one taken through initialize,
one through initialize and tools/list. The first import log gives the packages that cost the
most before initialize is answered (cumulative time for top-level imports, self time for single
modules, who pulls in each heavy package); the second adds what answering tools/list imports.

``--python`` runs the server with another interpreter, e.g. the environment of another checkout
(``git worktree add /tmp/before REV && uv sync --frozen --directory /tmp/before``), to compare
revisions on the same machine. ``--before PYTHON`` takes the same two import logs from that
interpreter too, right after this one's, and prints the two profiles side by side: modules and
seconds of imports through initialize and through tools/list, and the packages whose import
time changed most. Warm bytecode matters: run once first, and do not set
PYTHONDONTWRITEBYTECODE (the script says so when it is set).
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
FIRST_CALL: list[float] = []  # spawn → the status call answered, per start that made it
HEAVY = (
    "numpy",
    "pyarrow",
    "lancedb",
    "fastembed",
    "onnxruntime",
    "markitdown",
    "tokenizers",
    "magika",
    "pandas",
    "griffe",
    "key_value",
    "beartype",
    "urllib.request",
)


def children_cpu() -> float | None:
    """CPU seconds (user + system) used so far by this process's children (Linux /proc): the
    server's own work, which unlike wall time hardly depends on what else the machine runs."""
    proc, me, total = Path("/proc"), os.getpid(), 0.0
    if not proc.is_dir():
        return None
    tick = os.sysconf("SC_CLK_TCK")
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def one_start(
    command: str,
    args: list[str],
    env: dict[str, str],
    errlog,
    *,
    list_tools: bool = True,
    status: bool = True,
) -> tuple[float, float | None, str | None, float | None, float | None]:
    """Seconds from spawn to initialize answered and to tools/list answered, the status tool's
    model field (None for a server without that tool, or when not asked), and the server's CPU
    seconds at those two moments."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, env=env)
    started = time.perf_counter()
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        initialized = time.perf_counter() - started
        cpu_init = children_cpu()
        if not list_tools:
            return initialized, None, None, cpu_init, None
        tools = await session.list_tools()
        listed = time.perf_counter() - started
        cpu_list = children_cpu()
        model = None
        if status and any(tool.name == "status" for tool in tools.tools):
            status = c.tool_json(await session.call_tool("status", {}))
            model = status.get("model")
            FIRST_CALL.append(time.perf_counter() - started)
    return initialized, listed, model, cpu_init, cpu_list


def reorder(result: tuple) -> tuple:
    """one_start's result as (init, list, cpu init, cpu list, model)."""
    initialized, listed, model, cpu_init, cpu_list = result
    return initialized, listed, cpu_init, cpu_list, model


def bare_python(python: str) -> float:
    started = time.perf_counter()
    subprocess.run([python, "-c", "pass"], check=True)
    return time.perf_counter() - started


def parse(log: str) -> list[tuple[int, int, int, str]]:
    """(self µs, cumulative µs, indent, module) per line of a -X importtime log."""
    rows = []
    for line in log.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), len(m.group(3)), m.group(4)))
    return rows


def by_package(rows: list[tuple[int, int, int, str]]) -> dict[str, int]:
    roots: dict[str, int] = {}
    for own, _, _, name in rows:
        roots[name.split(".")[0]] = roots.get(name.split(".")[0], 0) + own
    return roots


def import_offenders(rows: list[tuple[int, int, int, str]], top: int) -> None:
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
    for heavy in HEAVY:
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
    print("  self time summed per top-level package (top 15):")
    for name, own in sorted(by_package(rows).items(), key=lambda kv: -kv[1])[:15]:
        print(f"    {own / 1000:8.1f} ms  {name}")


def list_additions(before: list, after: list) -> None:
    """What answering tools/list imported on top of initialize."""
    seen = {r[3] for r in before}
    added = [r for r in after if r[3] not in seen]
    print(
        f"\n## imported to answer tools/list: {len(added)} modules, "
        f"{sum(r[0] for r in added) / 1000:.0f} ms of imports"
    )
    for name, own in sorted(by_package(added).items(), key=lambda kv: -kv[1])[:10]:
        print(f"    {own / 1000:8.1f} ms  {name}")


def compare_profiles(before: tuple[list, list], after: tuple[list, list], top: int) -> None:
    """The import profiles of two interpreters (before, after), through initialize and through
    tools/list: totals, then the top-level packages whose self time changed most."""
    print("\n## import profile, before → after (python -X importtime, self times summed)")
    for step, b, a in (("initialize", before[0], after[0]), ("tools/list", before[1], after[1])):
        print(
            f"  through {step:<10}  {len(b):5d} → {len(a):5d} modules, "
            f"{sum(r[0] for r in b) / 1e6:5.2f} → {sum(r[0] for r in a) / 1e6:5.2f} s"
        )
    old, new = by_package(before[1]), by_package(after[1])
    changes = sorted(set(old) | set(new), key=lambda k: -abs(new.get(k, 0) - old.get(k, 0)))
    print(f"  packages through tools/list whose import time changed most (top {top}):")
    for name in changes[:top]:
        b, a = old.get(name), new.get(name)
        shown = [f"{v / 1000:7.1f} ms" if v is not None else "  not imported" for v in (b, a)]
        print(f"    {name:<32} {shown[0]} → {shown[1]}")


def importtime_log(python: str, env: dict[str, str], work: Path, *, list_tools: bool) -> list:
    """The import log of one start (``python -X importtime``)."""
    log_path = work / f"importtime-{'list' if list_tools else 'init'}.log"
    with open(log_path, "w") as errlog:
        asyncio.run(
            one_start(
                python,
                ["-X", "importtime", "-m", "minirag_mcp"],
                env,
                errlog,
                list_tools=list_tools,
                status=False,
            )
        )
    return parse(log_path.read_text())


def our_start(python: str, env: dict[str, str], errlog, calls: list[float]) -> tuple:
    """One start of our server; spawn → the status call goes to ``calls``."""
    result = reorder(asyncio.run(one_start(python, ["-m", "minirag_mcp"], env, errlog)))
    calls.append(FIRST_CALL.pop())
    return result


def print_figures(times: dict[str, list], calls: dict[str, list], *, with_peer: bool) -> None:
    """The medians of each kind of start, ours as a fraction of the peer's."""
    labels = {"": "ours", "peer ": "peer"}
    for who in labels if with_peer else ("",):
        for step, name in (("init", "initialize"), ("list", "tools/list")):
            spread = c.spread(times[who + step], "ms", 1000, 0)
            line = f"  {labels[who]}: spawn → {name:<10} {spread}"
            if with_peer and who != "peer ":
                ratio = c.median(times[who + step]) / c.median(times[f"peer {step}"])
                line += f"  / peer {ratio:.2f}"
            cpu = [v for v in times[f"{who}cpu {step}"] if v is not None]
            if cpu:
                line += f"; server CPU {c.median(cpu) * 1000:.0f} ms"
            print(line)
        if who in calls:
            print(f"  {labels[who]}: spawn → status call {c.spread(calls[who], 'ms', 1000, 0)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", type=Path, help="MODEL_NAME folder (default: test model)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--python", default=sys.executable, help="interpreter of the server")
    parser.add_argument("--before", help="another interpreter: its import profile beside ours")
    parser.add_argument(
        "--peer", nargs=argparse.REMAINDER, help="command and arguments of a server to compare"
    )
    args = parser.parse_args()

    devnull = open(os.devnull, "w")  # noqa: SIM115
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-startup-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("server start-up: spawn → MCP initialize, → tools/list", label)
        print(f"server   {args.python} -m minirag_mcp")
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            print("note     PYTHONDONTWRITEBYTECODE is set: every start recompiles (unset it)")
        root = work / "docs"
        root.mkdir()
        (root / "note.md").write_text("# A note\n\nNothing indexed yet.\n", encoding="utf-8")
        env = c.server_env(root, work / "db", model_dir, CACHE_DIR=str(work / "cache"))
        ours = (args.python, ["-m", "minirag_mcp"], env)
        peer = None
        if args.peer:
            peer_env = {
                **{k: v for k, v in env.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
                "BASE_DIR": str(root),
                "DB_PATH": str(work / "peer-db"),
                "CACHE_DIR": str(work / "peer-cache"),
            }
            peer = (args.peer[0], args.peer[1:], peer_env)
            print(f"peer     {' '.join(args.peer)}")
        bare_python(args.python)
        for server in (ours, peer):  # warm the page cache (and bytecode)
            if server:
                asyncio.run(one_start(*server, devnull, status=False))
        steps = ("init", "list", "cpu init", "cpu list")
        whos = ("", "peer ")
        times: dict[str, list] = {f"{who}{s}": [] for who in whos for s in steps}
        models = []
        calls: dict[str, list[float]] = {"": []}
        for _ in range(args.runs):
            *measured, model = our_start(args.python, env, devnull, calls[""])
            for step, value in zip(steps, measured, strict=True):
                times[step].append(value)
            models.append(model)
            if peer:
                *measured, _ = reorder(asyncio.run(one_start(*peer, devnull, status=False)))
                for step, value in zip(steps, measured, strict=True):
                    times[f"peer {step}"].append(value)
        bare = [bare_python(args.python) for _ in range(args.runs)]
        print()
        print_figures(times, calls, with_peer=peer is not None)
        print(f"  bare `python -c pass`    {c.spread(bare, 'ms', 1000, 0)}")
        print(f"  status model field       {sorted(set(models))}  [{c.load()}]")
        if set(models) != {"not loaded"}:
            sys.exit(f"the model was loaded at start-up: {models}")

        at_init = importtime_log(args.python, env, work, list_tools=False)
        at_list = importtime_log(args.python, env, work, list_tools=True)
        import_offenders(at_init, args.top)
        list_additions(at_init, at_list)
        if args.before:
            earlier = (
                importtime_log(args.before, env, work, list_tools=False),
                importtime_log(args.before, env, work, list_tools=True),
            )
            compare_profiles(earlier, (at_init, at_list), args.top)
        c.footer()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
