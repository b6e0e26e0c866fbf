"""Running one CLI command: its configuration, its result printed as JSON or as lines, and its
exit status (see :data:`EXIT_STATUS_HELP`).

Every command's result is its tool's result model, so ``--json`` prints exactly what the tool
returns; a failure prints ``{"error": ...}`` with --json and ``error:`` on stderr without, and
exits 1 either way. Messages name the flags and commands the user typed
(:mod:`minirag_mcp.wording`).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from minirag_mcp.errors import ServerError
from minirag_mcp.interrupt import EXIT_INTERRUPTED, STOP
from minirag_mcp.render import interrupted_line, show_folder_ingest
from minirag_mcp.results import FolderCounts, FolderIngest, Ingested, ItemError, Result, SyncJob
from minirag_mcp.wording import Wording, cli_wording, error_message

if TYPE_CHECKING:
    from minirag_ingest.sync.jobs import JobStatus
    from minirag_mcp.context import AppContext

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_STATUS_HELP = (
    "Exit status (the same with --json): 0 success; 1 failure, including any file that failed "
    "in ingest or sync, and a write command (ingest, ingest-url, sync, watch, delete) refused "
    "by a read-only configuration; 2 usage error; 130 interrupted (Ctrl-C, SIGTERM); 141 "
    "output pipe closed by its reader. status exits 0 even when the configuration is broken."
)
R = TypeVar("R", bound=Result)


class UsageError(ServerError):
    """The command line itself is wrong (exit status 2)."""


class Places(Protocol):
    """Where a command works: the options every subcommand takes (None: not given)."""

    base_dir: list[str] | None
    db_path: str | None
    cache_dir: str | None
    model_name: str | None
    read_only: bool
    json: bool


def emit_json(payload: dict[str, Any]) -> None:
    """The payload as JSON, always valid UTF-8 (undecodable bytes in names are escaped)."""
    from minirag_ingest.files.names import json_safe

    print(json.dumps(json_safe(payload), ensure_ascii=False, indent=2))


def fail(places: Places | None, message: str, code: int = EXIT_FAILED) -> int:
    """Report a failure: ``{"error": ...}`` on stdout with --json, ``error:`` on stderr without."""
    if places is not None and places.json:
        emit_json({"error": message})
    else:
        print(f"error: {message}", file=sys.stderr)
    return code


def absolute(path: str) -> str:
    """A CLI path made absolute against the current directory."""
    return os.path.abspath(os.path.expanduser(path))


def cli_scope(scope: str | None) -> str | None:
    """A relative --scope that names something on disk is taken against the current directory;
    URLs and data ids pass through."""
    if not scope:
        return None
    if "://" in scope or os.path.isabs(os.path.expanduser(scope)):
        return os.path.expanduser(scope)
    return absolute(scope) if os.path.exists(scope) else scope


def label_filter(pairs: list[str] | None) -> dict[str, Any] | None:
    """--label facet=value flags as the tools' labels argument (a repeated facet: any of)."""
    if not pairs:
        return None
    wanted: dict[str, list[str]] = {}
    for pair in pairs:
        facet, sep, value = pair.partition("=")
        if not sep or not facet.strip() or not value.strip():
            raise ValueError(f"--label takes facet=value, got {pair!r}")
        wanted.setdefault(facet.strip(), []).append(value.strip())
    return {facet: values[0] if len(values) == 1 else values for facet, values in wanted.items()}


def one_document(path: str | None, source: str | None, path_flag: str) -> None:
    """read, delete and read-neighbors name one document: by its path or by --source."""
    if path and source:
        raise UsageError(f"give either {path_flag} or --source, not both")
    if not path and not source:
        raise UsageError(
            f"name the document: give its {path_flag}, or --source for a data or url id"
        )


class Progress:
    """A one-line progress bar on stderr, drawn only on a terminal."""

    def __init__(self, label: str, enabled: bool):
        self.label = label
        self.enabled = enabled and sys.stderr.isatty()
        self.drawn = False

    def update(self, done: int, total: int) -> None:
        if not self.enabled or not total:
            return
        width = 30
        filled = int(width * min(done, total) / total)
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r{self.label} [{bar}] {done}/{total}")
        sys.stderr.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.drawn = False


def make_context(places: Places, wording: Wording) -> AppContext:
    from minirag_mcp.config import load_config
    from minirag_mcp.context import AppContext

    overrides = {
        "base_dirs": list(places.base_dir) if places.base_dir else None,
        "db_path": places.db_path,
        "cache_dir": places.cache_dir,
        "model_name": places.model_name,
        "read_only": places.read_only or None,
    }
    ctx = AppContext(load_config(overrides))
    ctx.wording = wording
    return ctx


def succeeded(result: Result) -> tuple[int, str | None]:
    return EXIT_OK, None


def run(
    places: Places,
    action: Callable[[AppContext], R],
    show: Callable[[R], Any],
    wording: Wording,
    outcome: Callable[[R], tuple[int, str | None]] = succeeded,
) -> int:
    """Run ``action``, print its result (JSON or human) and return the exit status.

    ``outcome`` reads the exit status, and the error a failed run reports, off the result, so
    --json and the human output cannot disagree on them."""
    ctx = make_context(places, wording)
    try:
        result = action(ctx)
    except Exception as exc:
        return fail(places, wording.render(error_message(exc)))
    code, problem = outcome(result)
    print_result(places, result, show, problem)
    if code == EXIT_INTERRUPTED and problem:
        print(problem, file=sys.stderr)
    return code


def print_result(places: Places, result: R, show: Callable[[R], Any], problem: str | None) -> None:
    """The result as JSON (with the run's ``error`` first, when it failed) or as lines."""
    if places.json:
        payload = result.dump()
        emit_json({"error": problem, **payload} if problem else payload)
    else:
        show(result)


def sync_outcome(result: SyncJob) -> tuple[int, str | None]:
    """A sync that stopped early exits 130, one with any failed item 1."""
    counts = result.counts
    if result.state == "interrupted":
        return EXIT_INTERRUPTED, interrupted_line(result.progress.done, result.progress.total)
    if result.state == "succeeded" and not counts.failed:
        return EXIT_OK, None
    if result.error:
        return EXIT_FAILED, result.error
    return EXIT_FAILED, f"{counts.failed} of {counts.scanned} files or folders failed"


def interrupted(places: Places, done: int, total: int | None = None) -> int:
    """Stopped by a signal before (or while) doing the work: say how far it got, exit 130."""
    message = interrupted_line(done, total)
    if places.json:
        emit_json({"error": message, "state": "interrupted"})
    print(message, file=sys.stderr)
    return EXIT_INTERRUPTED


def ingest_folder(places: Places, folder: str) -> int:
    """``ingest <folder>``: every file under it, one at a time, with sync's counts line."""
    from minirag_ingest.files.scan import scan
    from minirag_mcp import listing

    ctx = make_context(places, cli_wording(filePath="PATH"))
    try:
        ctx.require_writable()
        scanned = scan(
            ctx.roots, ctx.roots.contain(folder), extra_extensions=listing.scan_extensions()
        )
        # One labelling job for the whole folder: the choice model, when a facet needs
        # it, is loaded once by the first file and released at the end.
        labelling = ctx.pipeline.labelling()
    except Exception as exc:
        return fail(places, ctx.wording.render(error_message(exc)))
    files = [item.source for item in scanned.files]
    bar = Progress("ingest", enabled=not places.json)
    with labelling as labels:
        run = _FolderRun(ctx, labels, bar)
        stopped = run.ingest(files)
    bar.close()
    for unlisted in scanned.unlisted:
        run.failed += 1
        run.errors.append(ItemError(path=str(unlisted.path), reason=unlisted.message))
    state = "interrupted" if stopped else ("failed" if run.failed else "succeeded")
    counts = FolderCounts(
        scanned=len(files), ingested=len(run.results), ignored=scanned.ignored, failed=run.failed
    )
    result = FolderIngest(
        state=state, counts=counts, files=run.results, errors=run.errors, ignored=scanned.ignored
    )
    problem = None
    if stopped:
        problem = interrupted_line(len(run.results) + run.failed, len(files))
    elif run.failed:
        problem = f"{run.failed} of {len(files)} files or folders failed"
    print_result(places, result, show_folder_ingest, problem)
    if stopped:
        print(problem, file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_FAILED if run.failed else EXIT_OK


class _FolderRun:
    """The files of one folder ingest, each ingested on its own; what went wrong is kept."""

    def __init__(self, ctx: AppContext, labels: Any, bar: Progress) -> None:
        self.ctx, self.labels, self.bar = ctx, labels, bar
        self.results: list[Ingested] = []
        self.errors: list[ItemError] = []
        self.failed = 0

    def ingest(self, files: list[str]) -> bool:
        """Ingest ``files`` in order; True when a signal stopped it before the end."""
        from minirag_index import ModelLoadError
        from minirag_mcp import operations as ops

        for done, path in enumerate(files):
            if STOP.is_set():
                return True
            try:
                self.results.append(ops.ingest_file(self.ctx, path, self.labels))
            except ModelLoadError as exc:  # no file after this one can be read either
                self.model_failed(exc, len(files) - done)
                return False
            except Exception as exc:
                self.failed += 1
                self.errors.append(ItemError(path=path, reason=error_message(exc)))
            self.bar.update(done + 1, len(files))
        return False

    def model_failed(self, exc: Exception, left: int) -> None:
        self.failed += left
        noun = "file" if left == 1 else "files"
        embedder = self.ctx.index.embedder
        model = str(embedder.local_folder or embedder.model_name)
        self.errors.append(ItemError(path=model, reason=f"{left} {noun} not read: {exc}"))


def watch_until_stopped(places: Places) -> int:
    """``watch``: one sync, then one per quiet spell of changes, each printed as sync prints
    it (with --json one JSON object a line), until Ctrl-C or SIGTERM; then exit 130
    (interrupted, as any command a signal stopped)."""
    from minirag_mcp.render import show_sync

    ctx = make_context(places, cli_wording())

    def printed(job: JobStatus) -> None:
        result = SyncJob.of(job)
        if places.json:
            from minirag_ingest.files.names import json_safe

            print(json.dumps(json_safe(result.dump()), ensure_ascii=False), flush=True)
        else:
            show_sync(result)
            sys.stdout.flush()

    try:
        ctx.require_writable()
        watcher = ctx.start_watching(on_sync=printed)
    except Exception as exc:
        return fail(places, ctx.wording.render(error_message(exc)))
    how = watcher.status()
    roots = ", ".join(str(root) for root in ctx.roots)
    print(f"watching {roots} ({how.state}); Ctrl-C to stop", file=sys.stderr)
    while not STOP.wait(0.5):
        pass
    ctx.stop_watching()
    ctx.stop_jobs()
    print("stopped watching", file=sys.stderr)
    return EXIT_INTERRUPTED
