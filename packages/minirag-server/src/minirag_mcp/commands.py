"""The CLI subcommands, built with cyclopts. Imported only when ``minirag-mcp`` is given
arguments, so starting the server does not pay for it.

Each subcommand is a small function calling the same :mod:`minirag_mcp.operations` function as
its MCP tool, so ``--json`` prints exactly that tool's result; :func:`build_app` registers them
from :data:`COMMANDS`. Running one, its exit status and its JSON errors live in
:mod:`minirag_mcp.runner`, its human output in :mod:`minirag_mcp.render`.

(No ``from __future__ import annotations`` here: cyclopts reads the annotations at run time.)
"""

import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from cyclopts import App, CycloptsError, Parameter
from cyclopts.exceptions import MissingArgumentError, UnusedCliTokensError

from minirag_index import DEFAULT_NEIGHBORS, DEFAULT_TOP_K
from minirag_mcp import labelling, listing, render, searching
from minirag_mcp import operations as ops
from minirag_mcp.config import __version__
from minirag_mcp.context import AppContext
from minirag_mcp.interrupt import STOP
from minirag_mcp.results import ClassifyTry, SyncJob
from minirag_mcp.runner import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_STATUS_HELP,
    EXIT_USAGE,
    Progress,
    UsageError,
    absolute,
    cli_scope,
    emit_json,
    ingest_folder,
    interrupted,
    label_filter,
    one_document,
    run,
    sync_outcome,
    watch_until_stopped,
)
from minirag_mcp.wording import cli_wording


@Parameter(name="*")
@dataclass
class Common:
    """Options every subcommand takes."""

    base_dir: Annotated[
        list[str] | None,
        Parameter(
            name="--base-dir",
            negative="",
            help="Document root; repeat for several. Replaces BASE_DIR/BASE_DIRS.",
        ),
    ] = None
    db_path: Annotated[
        str | None,
        Parameter(help="Index folder or object-store URI such as s3://bucket/prefix (DB_PATH)."),
    ] = None
    cache_dir: Annotated[str | None, Parameter(help="Model cache folder (CACHE_DIR).")] = None
    model_name: Annotated[
        str | None, Parameter(help="fastembed model id or model folder (MODEL_NAME).")
    ] = None
    read_only: Annotated[
        bool,
        Parameter(
            negative="",
            help="Never write to the index; write commands refuse (READ_ONLY=1).",
        ),
    ] = False
    json: Annotated[bool, Parameter(negative="", help="Print the tool's result as JSON.")] = False


LabelFlag = Annotated[
    list[str] | None,
    Parameter(
        name="--label",
        negative="",
        help="facet=value; repeat for several (a repeated facet matches any of its values).",
    ),
]
DateFromFlag = Annotated[
    str | None, Parameter(help="Only documents dated on or after (YYYY-MM-DD).")
]
DateToFlag = Annotated[
    str | None, Parameter(help="Only documents dated on or before (YYYY-MM-DD).")
]
ScopeFlag = Annotated[str | None, Parameter(help="Only under this path or id.")]
SourceFlag = Annotated[str | None, Parameter(help="A data or url source id.")]


def scope_arg(ctx: AppContext, scope: str | None) -> str | None:
    """--scope as the tools take it: a relative path is taken against the current directory,
    whether or not it exists, unless it is no folder here and covers indexed data items (ids
    such as ``notes/2024``)."""
    given = cli_scope(scope)
    if not given or searching.URL_LIKE.match(given) or os.path.isabs(given):
        return given
    return given if searching.names_items(ctx, given) else absolute(given)


# -- the commands -----------------------------------------------------------------------------


def serve(
    *,
    watch: Annotated[
        bool, Parameter(negative="", help="Keep the index in line with the roots (WATCH=1).")
    ] = False,
    http: Annotated[
        bool,
        Parameter(
            negative="",
            help="Serve streamable HTTP at /mcp instead of stdio; needs MINIRAG_TOKEN or "
            "MINIRAG_TOKEN_FILE.",
        ),
    ] = False,
    host: Annotated[
        str, Parameter(help="Address to listen on with --http (loopback unless --allow-remote).")
    ] = "127.0.0.1",
    port: Annotated[int, Parameter(help="Port to listen on with --http.")] = 8765,
    allow_remote: Annotated[
        bool,
        Parameter(negative="", help="With --http, allow a --host that is not loopback (no TLS!)."),
    ] = False,
    common: Common | None = None,
) -> int:
    """Start the MCP server: on stdio, or over HTTP with --http."""
    common = common or Common()
    from minirag_mcp.runner import fail, make_context

    config = make_context(common, cli_wording()).config
    if watch and (common.read_only or getattr(config, "read_only", False)):
        raise UsageError("--watch syncs, and a read-only server never writes: drop one")
    if not http:
        if host != "127.0.0.1" or port != 8765 or allow_remote:
            raise UsageError("--host, --port and --allow-remote go with --http")
        from minirag_mcp.server import serve_stdio

        serve_stdio(config, watch=watch)
        return EXIT_OK
    from minirag_index.settings import ConfigError
    from minirag_mcp.http_serve import serve_http

    try:
        serve_http(config, host=host, port=port, allow_remote=allow_remote, watch=watch)
    except ConfigError as exc:
        return fail(common, str(exc))
    return EXIT_OK


def watch(*, common: Common | None = None) -> int:
    """Sync, then keep the index in line with the roots until Ctrl-C: each change is synced
    once the folder has been quiet for WATCH_QUIET_SECONDS."""
    return watch_until_stopped(common or Common())


def ingest(path: str, /, *, common: Common | None = None) -> int:
    """Index a file, or every file under a folder (excluded files left out)."""
    common = common or Common()
    if STOP.is_set():
        return interrupted(common, 0)
    target = absolute(path)
    if os.path.isdir(target):
        return ingest_folder(common, target)
    wording = cli_wording(filePath="PATH")
    return run(common, lambda ctx: ops.ingest_file(ctx, target), render.show_ingest, wording)


def ingest_url(
    url: str,
    /,
    *,
    source: Annotated[str | None, Parameter(help="Id to store it under.")] = None,
    common: Common | None = None,
) -> int:
    """Fetch a web page and index it."""
    common = common or Common()
    action = lambda ctx: ops.ingest_url(ctx, url, source)  # noqa: E731
    return run(common, action, render.show_ingest, cli_wording())


def sync(
    *,
    scope: Annotated[str | None, Parameter(help="Only this folder or file.")] = None,
    common: Common | None = None,
) -> int:
    """Reconcile the index with the files on disk."""
    common = common or Common()
    if STOP.is_set():
        return interrupted(common, 0)
    bar = Progress("sync", enabled=not common.json)

    def action(ctx: AppContext) -> SyncJob:
        def on_progress(status: SyncJob) -> None:
            bar.update(status.progress.done, status.progress.total)

        try:
            # A sync's scope is always a folder or file, so a relative one is taken
            # against the current directory whether or not it exists.
            where = absolute(scope) if scope else None
            return ops.sync_run(ctx, where, on_progress, stop=STOP)
        finally:
            bar.close()

    return run(common, action, render.show_sync, cli_wording(), sync_outcome)


def query(
    text: str,
    /,
    *,
    top_k: Annotated[int, Parameter(help="Passages to return (1-100).")] = DEFAULT_TOP_K,
    scope: ScopeFlag = None,
    label: LabelFlag = None,
    date_from: DateFromFlag = None,
    date_to: DateToFlag = None,
    common: Common | None = None,
) -> int:
    """Hybrid search over the index."""
    common = common or Common()

    def action(ctx: AppContext) -> Any:
        labels = label_filter(label)
        return searching.query_documents(
            ctx, text, top_k, scope_arg(ctx, scope), labels, date_from, date_to
        )

    return run(common, action, render.show_query, cli_wording())


def find(
    *terms: str,
    any: Annotated[
        bool, Parameter(negative="", help="Documents with any term (default: all).")
    ] = False,
    scope: ScopeFlag = None,
    offset: Annotated[int, Parameter(help="Skip this many documents.")] = 0,
    label: LabelFlag = None,
    date_from: DateFromFlag = None,
    date_to: DateToFlag = None,
    common: Common | None = None,
) -> int:
    """Every document mentioning the terms. A term starting with - goes after --."""
    common = common or Common()
    if not terms:
        raise UsageError("give at least one TERM to look for: minirag-mcp find TERM...")
    match = "any" if any else "all"

    def action(ctx: AppContext) -> Any:
        labels = label_filter(label)
        where = scope_arg(ctx, scope)
        return searching.find_mentions(
            ctx, list(terms), match, where, offset, labels, date_from, date_to
        )

    return run(common, action, render.show_mentions, cli_wording())


def read_neighbors(
    *,
    chunk_index: Annotated[int, Parameter(help="The chunk to read around.")],
    file_path: Annotated[str | None, Parameter(help="The indexed file.")] = None,
    source: SourceFlag = None,
    before: int = DEFAULT_NEIGHBORS,
    after: int = DEFAULT_NEIGHBORS,
    common: Common | None = None,
) -> int:
    """Read the chunks around one chunk of a document."""
    common = common or Common()
    one_document(file_path, source, "--file-path")
    path = absolute(file_path) if file_path else None

    def action(ctx: AppContext) -> Any:
        return ops.read_chunk_neighbors(ctx, chunk_index, path, source, before, after)

    return run(common, action, render.show_neighbors, cli_wording())


def read(
    path: str | None = None, /, *, source: SourceFlag = None, common: Common | None = None
) -> int:
    """Print a whole indexed document as Markdown (every page read_file gives, joined)."""
    common = common or Common()
    one_document(path, source, "PATH")
    file_path = absolute(path) if path else None
    action = lambda ctx: ops.read_whole_file(ctx, file_path, source)  # noqa: E731
    return run(common, action, render.show_read, cli_wording(filePath="PATH"))


def list_(
    *,
    scope: ScopeFlag = None,
    label: LabelFlag = None,
    date_from: DateFromFlag = None,
    date_to: DateToFlag = None,
    sort: Annotated[str | None, Parameter(help='"date": newest first, undated last.')] = None,
    common: Common | None = None,
) -> int:
    """List files under the roots with their state, plus data and url items."""
    common = common or Common()

    def action(ctx: AppContext) -> Any:
        labels = label_filter(label)
        return listing.list_files(ctx, scope_arg(ctx, scope), labels, date_from, date_to, sort)

    return run(common, action, render.show_list, cli_wording())


def status(*, common: Common | None = None) -> int:
    """Configuration and index health (exits 0 even when the configuration is broken)."""
    return run(common or Common(), listing.status, render.show_status, cli_wording())


def delete(
    path: str | None = None, /, *, source: SourceFlag = None, common: Common | None = None
) -> int:
    """Remove a document from the index (the file on disk is untouched)."""
    common = common or Common()
    one_document(path, source, "PATH")
    file_path = absolute(path) if path else None
    action = lambda ctx: ops.delete_file(ctx, file_path, source)  # noqa: E731
    return run(common, action, render.show_delete, cli_wording(filePath="PATH"))


def classify_try(path: str, /, *, common: Common | None = None) -> int:
    """Label one file the way an ingest would, without storing anything."""
    common = common or Common()

    def outcome(result: ClassifyTry) -> tuple[int, str | None]:
        for problem in result.problems:
            render.warn(problem)
        return (EXIT_FAILED, "; ".join(result.problems)) if result.problems else (EXIT_OK, None)

    action = lambda ctx: labelling.classify_try(ctx, absolute(path))  # noqa: E731
    return run(common, action, render.show_try, cli_wording(filePath="PATH"), outcome)


# The commands in the order --help lists them, each under its name on the command line.
COMMAND_TABLE: tuple[tuple[str, Callable[..., int]], ...] = (
    ("serve", serve),  # also what no command at all runs
    ("ingest", ingest),
    ("ingest-url", ingest_url),
    ("sync", sync),
    ("watch", watch),
    ("query", query),
    ("find", find),
    ("read-neighbors", read_neighbors),
    ("read", read),
    ("list", list_),
    ("status", status),
    ("delete", delete),
)
COMMANDS = (*(name for name, _ in COMMAND_TABLE), "classify")


def build_app() -> App:
    app = App(
        name="minirag-mcp",
        help="Local-first RAG over your documents: an MCP server (no arguments) and a CLI.\n\n"
        + EXIT_STATUS_HELP,
        version=__version__,
        result_action="return_value",
    )
    app.default(serve)
    for name, command in COMMAND_TABLE:
        app.command(command, name=name)
    labels = App(name="classify", help="Document labels (needs a classify.toml).")
    labels.command(classify_try, name="try")
    app.command(labels)
    return app


# -- running a command line -------------------------------------------------------------------


def main(args: Sequence[str]) -> int:
    """Run one command line and return its exit status."""
    show_library_warnings()
    try:
        result = build_app()(list(args), exit_on_error=False, print_error=False)
    except UsageError as exc:
        return usage_error(args, [args[0]] if args else [], str(exc))
    except CycloptsError as exc:
        return usage_error(args, list(exc.command_chain or []), cyclopts_message(args, exc))
    return result if isinstance(result, int) else EXIT_OK


DEBUG_SWITCH = "MINIRAG_DEBUG"  # 1: our packages' debug lines too (an object store's full error)


class _LevelPrefix(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        prefix = "warn" if record.levelno >= logging.WARNING else record.levelname.lower()
        return f"{prefix}: {record.getMessage()}"


def show_library_warnings() -> None:
    """Warnings logged by our packages (a file whose characters could not be decoded...)
    reach stderr as ``warn:`` lines, like the command's own; with MINIRAG_DEBUG=1 their debug
    lines as well, as ``debug:`` lines (the whole text of an error shown in one line)."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_LevelPrefix())
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)
        if os.environ.get(DEBUG_SWITCH) == "1":
            handler.setLevel(logging.DEBUG)
            for package in ("minirag_index", "minirag_ingest", "minirag_mcp"):
                logging.getLogger(package).setLevel(logging.DEBUG)


def cyclopts_message(args: Sequence[str], exc: CycloptsError) -> str:
    """cyclopts' message, in plainer words for an unknown command and a missing argument."""
    first = args[0] if args else ""
    unknown = first and first not in COMMANDS and not first.startswith("-")
    if isinstance(exc, UnusedCliTokensError) and unknown:
        return f"unknown command {first!r}; the commands are: {', '.join(COMMANDS)}"
    if isinstance(exc, MissingArgumentError) and exc.argument is not None:
        name = exc.argument.name
        if not name.startswith("-"):
            return f"{name} is missing"
        return f"{name} needs a value" if name in args else f"{name} is required"
    return " ".join(str(exc).split())


def usage_error(args: Sequence[str], chain: list[str], message: str) -> int:
    """A wrong command line: the message naming the command, exit status 2."""
    command = " ".join(["minirag-mcp", *[c for c in chain if c in COMMANDS or c == "try"]])
    text = f"{command}: {message} (see {command} --help)"
    options = list(args[: list(args).index("--")] if "--" in args else args)
    if "--json" in options:
        emit_json({"error": text})
    else:
        print(f"error: {text}", file=sys.stderr)
    return EXIT_USAGE
