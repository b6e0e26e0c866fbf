"""The CLI subcommands, built with cyclopts. Imported only when ``minirag-mcp`` is given
arguments, so starting the server does not pay for it.

Each subcommand calls the same :mod:`minirag_mcp.operations` function as its MCP tool, so
``--json`` prints exactly that tool's result. Exit status, the same with and without ``--json``
(see :data:`EXIT_STATUS_HELP`): 0 success, 1 failure (any file that failed in ingest or sync
included), 2 a usage error, 130 interrupted, 141 a closed output pipe; ``status`` exits 0 even
on a configuration error.
With ``--json`` every failure is one JSON object on stdout with an ``error`` key. Messages name
the command and flags the user typed (:mod:`minirag_mcp.wording`), not the tools' arguments.

(No ``from __future__ import annotations`` here: cyclopts reads the annotations at run time.)
"""

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from cyclopts import App, CycloptsError, Parameter
from cyclopts.exceptions import MissingArgumentError, UnusedCliTokensError

from minirag_mcp import operations as ops
from minirag_mcp.config import __version__
from minirag_mcp.context import AppContext
from minirag_mcp.interrupt import EXIT_INTERRUPTED, STOP
from minirag_mcp.wording import Wording, cli_wording, error_message

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_STATUS_HELP = (
    "Exit status (the same with --json): 0 success; 1 failure, including any file that failed "
    "in ingest or sync; 2 usage error; 130 interrupted (Ctrl-C, SIGTERM); 141 output pipe "
    "closed by its reader. status exits 0 even when the configuration is broken."
)
COMMANDS = (
    "ingest",
    "ingest-url",
    "sync",
    "query",
    "find",
    "read-neighbors",
    "read",
    "list",
    "status",
    "delete",
    "classify",
)


class UsageError(Exception):
    """The command line itself is wrong (exit status 2)."""


# -- output helpers ---------------------------------------------------------------------------


def warn(message: str) -> None:
    print(f"warn: {message}", file=sys.stderr)


def emit_json(payload: dict[str, Any]) -> None:
    """The payload as JSON, always valid UTF-8 (undecodable bytes in names are escaped)."""
    from minirag_ingest.names import json_safe

    print(json.dumps(json_safe(payload), ensure_ascii=False, indent=2))


def fail(common: Any, message: str, code: int = EXIT_FAILED) -> int:
    """Report a failure: ``{"error": ...}`` on stdout with --json, ``error:`` on stderr without."""
    if common is not None and common.json:
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


def count_line(command: str, state: str, counts: dict[str, int]) -> str:
    """``sync succeeded: scanned 3, ingested 2, ...``: the counts line of sync and ingest."""
    return f"{command} {state}: " + ", ".join(f"{k} {v}" for k, v in counts.items())


def interrupted_line(done: int, total: int | None = None) -> str:
    files = f"{done} of {total}" if total else str(done)
    return f"interrupted: {files} files done, the next sync resumes"


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


# -- options shared by every subcommand -------------------------------------------------------


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
    db_path: Annotated[str | None, Parameter(help="Index folder (DB_PATH).")] = None
    cache_dir: Annotated[str | None, Parameter(help="Model cache folder (CACHE_DIR).")] = None
    model_name: Annotated[
        str | None, Parameter(help="fastembed model id or model folder (MODEL_NAME).")
    ] = None
    json: Annotated[bool, Parameter(negative="", help="Print the tool's result as JSON.")] = False


def make_context(common: Any, wording: Wording) -> AppContext:
    from minirag_mcp.config import load_config
    from minirag_mcp.context import AppContext

    overrides = {
        "base_dirs": list(common.base_dir) if common.base_dir else None,
        "db_path": common.db_path,
        "cache_dir": common.cache_dir,
        "model_name": common.model_name,
    }
    ctx = AppContext(load_config(overrides))
    ctx.wording = wording
    return ctx


Outcome = Callable[[dict[str, Any]], tuple[int, str | None]]


def succeeded(payload: dict[str, Any]) -> tuple[int, str | None]:
    return EXIT_OK, None


def run(
    common: Any,
    action: Callable[[AppContext], dict[str, Any]],
    show: Callable[[dict[str, Any]], Any],
    wording: Wording,
    outcome: Outcome = succeeded,
) -> int:
    """Run ``action``, print its result (JSON or human) and return the exit status.

    ``outcome`` reads the exit status, and the error a failed run reports, off the result, so
    --json and the human output cannot disagree on them."""
    ctx = make_context(common, wording)
    try:
        payload = action(ctx)
    except Exception as exc:
        return fail(common, wording.render(error_message(exc)))
    code, problem = outcome(payload)
    if common.json:
        emit_json({"error": problem, **payload} if problem else payload)
    else:
        show(payload)
    if code == EXIT_INTERRUPTED and problem:
        print(problem, file=sys.stderr)
    return code


# -- human output -----------------------------------------------------------------------------


def page_suffix(pages: str | None) -> str:
    return f" (p. {pages})" if pages else ""


def label_suffix(row: dict[str, Any]) -> str:
    """A row's date (with its source) and labels, when the corpus has document labels."""
    if "labels" not in row and "date" not in row:
        return ""
    parts = [f"{row['date']} ({row.get('dateSource')})" if row.get("date") else "undated"]
    for facet, label in (row.get("labels") or {}).items():
        how = label.get("source", "")
        if how == "model":
            how += f" {label.get('confidence', 0):.2f}"
            if label.get("uncertain"):
                how += f" uncertain, runner-up {label.get('runnerUp')}"
        parts.append(f"{facet}={label['value']} ({how})")
    return "  " + " ".join(parts)


def warn_filter(payload: dict[str, Any]) -> None:
    """Non-zero filterCounts and the filterNotice, as warn: lines."""
    counts = payload.get("filterCounts") or {}
    if counts.get("unlabelled"):
        warn(f"{counts['unlabelled']} documents in scope were left out for lacking a label")
    if counts.get("undated"):
        warn(f"{counts['undated']} documents in scope were left out for lacking a date")
    if payload.get("filterNotice"):
        warn(payload["filterNotice"])


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


def show_query(payload: dict[str, Any]) -> None:
    if payload.get("warning"):
        warn(payload["warning"])
    warn_filter(payload)
    hits = payload.get("hits", [])
    if not hits:
        print("no results")
        if payload.get("notice"):
            print(payload["notice"])
        return
    display = {s["source"]: s["displayPath"] for s in payload.get("sources", [])}
    for number, hit in enumerate(hits, 1):
        where = display.get(hit["source"], hit["source"])
        distance = "-" if hit.get("distance") is None else f"{hit['distance']:.3f}"
        print(
            f"[{number}] {where}{page_suffix(hit.get('pages'))} chunk {hit['chunkIndex']} "
            f"score {hit['score']:.4f} distance {distance}"
        )
        print("    " + hit["text"].replace("\n", "\n    "))
        print()
    print("Sources:")
    for source in payload.get("sources", []):
        pages = sorted(
            {h["pages"] for h in hits if h["source"] == source["source"] and h.get("pages")}
        )
        suffix = f" (p. {', '.join(pages)})" if pages else ""
        print(f"  {source['displayPath']}{suffix}{label_suffix(source)}")
        for look in source.get("lookAlikes", []):
            print(
                f"    looks like {look.get('displayPath', look.get('source'))} "
                f"(overlap {look.get('overlap', 0):.2f})"
            )


def show_mentions(payload: dict[str, Any]) -> None:
    print(
        f"{payload['matchedDocuments']} of {payload['searchedDocuments']} documents match "
        f"({payload['matchedChunks']} chunks)"
    )
    if payload.get("forms"):
        print("forms: " + ", ".join(f"{f['form']} ({f['documents']})" for f in payload["forms"]))
    if not payload.get("documents"):
        print("no results")
        if payload.get("notice"):
            print(payload["notice"])
        return
    for document in payload["documents"]:
        first = document.get("firstMatch") or {}
        pages = page_suffix(first.get("pages"))
        title = " [title]" if document.get("titleMatch") else ""
        print(f"{document['displayPath']}{pages}: {document['matchingChunks']} chunks{title}")
        if first.get("snippet"):
            print(f"    {first['snippet']}")
    if payload.get("nextOffset") is not None:
        print(f"more: --offset {payload['nextOffset']}")


def show_ingest(payload: dict[str, Any]) -> None:
    print(f"ingested {payload['source']}: {payload['chunks']} chunks ({payload['title']!r})")
    if payload.get("labelProblem"):
        warn(payload["labelProblem"])


def show_sync(payload: dict[str, Any]) -> None:
    print(count_line("sync", payload["state"], payload["counts"]))
    for error in payload.get("errors", []):
        warn(f"{error['path']}: {error['reason']}" if error["path"] else error["reason"])
    for path in payload.get("unreadableFiles", []):
        warn(f"{path}: kept as indexed, not read again: that needs the [ocr] extra")


def sync_outcome(payload: dict[str, Any]) -> tuple[int, str | None]:
    """A sync that stopped early exits 130, one with any failed item 1."""
    counts = payload["counts"]
    if payload["state"] == "interrupted":
        progress = payload.get("progress") or {}
        return EXIT_INTERRUPTED, interrupted_line(progress.get("done", 0), progress.get("total"))
    if payload["state"] == "succeeded" and not counts.get("failed"):
        return EXIT_OK, None
    if payload.get("error"):
        return EXIT_FAILED, payload["error"]
    failed = counts.get("failed", 0)
    return EXIT_FAILED, f"{failed} of {counts.get('scanned', 0)} files or folders failed"


def show_list(payload: dict[str, Any]) -> None:
    for row in payload["files"]:
        ocr = f" [ocr:{row['ocrEngine']}]" if row.get("ocrEngine") else ""
        print(
            f"{row['state']:<12} {row['chunks']:>5}  {row['displayPath']}{ocr}{label_suffix(row)}"
        )
    if payload.get("ignored"):
        print(f"{payload['ignored']} excluded by .miniragignore rules")
    for folder in payload.get("unlistedFolders", []):
        warn(folder["reason"])
    warn_filter(payload)


def show_status(payload: dict[str, Any]) -> None:
    if payload.get("configError"):
        print(f"version: {payload['version']}")
        warn(f"configuration error: {payload['configError']}")
        return
    for key, value in payload.items():
        if key in ("errors", "schemeWarning", "labels", "modelMismatch", "indexModelNote"):
            continue
        if isinstance(value, dict):
            value = json.dumps(value, ensure_ascii=False)
        elif isinstance(value, list):
            value = (
                ", ".join(
                    json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v)
                    for v in value
                )
                or "-"
            )
        print(f"{key}: {value}")
    if "labels" in payload:
        for line in label_block_lines(payload["labels"]):
            print(line)
    for key in ("schemeWarning", "modelMismatch", "indexModelNote"):
        if payload.get(key):
            warn(payload[key])
    for error in payload.get("errors", []):
        warn(error)


def label_block_lines(block: dict[str, Any]) -> list[str]:
    """status's labels block as lines: the model state, then each facet and its values."""
    if block.get("error"):
        return [f"labels: error: {block['error']}"]
    lines = [f"labels: model {block.get('model')}, {block.get('undated', 0)} documents undated"]
    if block.get("modelHint"):
        lines.append(f"  model hint: {block['modelHint']}")
    for name, facet in (block.get("facets") or {}).items():
        within = f", within {', '.join(facet['within'])}" if facet.get("within") else ""
        lines.append(
            f"  {name}: {facet.get('question')} ({facet.get('unlabelled', 0)} unlabelled, "
            f"{facet.get('uncertain', 0)} uncertain{within})"
        )
        for value in facet.get("values", []):
            lines.append(f"    {value['id']} ({value['count']}): {value['description']}")
    return lines


def show_neighbors(payload: dict[str, Any]) -> None:
    print(payload["displayPath"])
    for chunk in payload["chunks"]:
        mark = ">" if chunk.get("isTarget") else " "
        print(f"{mark} chunk {chunk['chunkIndex']}{page_suffix(chunk.get('pages'))}")
        print("    " + chunk["text"].replace("\n", "\n    "))


def show_read(payload: dict[str, Any]) -> None:
    print(payload["text"])


def show_delete(payload: dict[str, Any]) -> None:
    print(f"deleted {payload['source']} ({payload['deleted']} chunks); the file is untouched")


# -- the app ------------------------------------------------------------------------------------

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


def build_app() -> App:
    app = App(
        name="minirag-mcp",
        help="Local-first RAG over your documents: an MCP server (no arguments) and a CLI.\n\n"
        + EXIT_STATUS_HELP,
        version=__version__,
        result_action="return_value",
    )

    @app.default
    def serve(*, common: Common | None = None) -> int:
        """Start the MCP server on stdio."""
        common = common or Common()
        from minirag_mcp.server import serve_stdio

        serve_stdio(make_context(common, cli_wording()).config)
        return EXIT_OK

    @app.command
    def ingest(path: str, /, *, common: Common | None = None) -> int:
        """Index a file, or every file under a folder (excluded files left out)."""
        common = common or Common()
        if STOP.is_set():
            return interrupted(common, 0)
        target = absolute(path)
        if not os.path.isdir(target):
            wording = cli_wording(filePath="PATH")
            return run(common, lambda ctx: ops.ingest_file(ctx, target), show_ingest, wording)
        return ingest_folder(common, target)

    @app.command(name="ingest-url")
    def ingest_url(
        url: str,
        /,
        *,
        source: Annotated[str | None, Parameter(help="Id to store it under.")] = None,
        common: Common | None = None,
    ) -> int:
        """Fetch a web page and index it."""
        common = common or Common()
        return run(common, lambda ctx: ops.ingest_url(ctx, url, source), show_ingest, cli_wording())

    @app.command
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

        def action(ctx: AppContext) -> dict[str, Any]:
            def on_progress(status: dict[str, Any]) -> None:
                bar.update(status["progress"]["done"], status["progress"]["total"])

            try:
                # A sync's scope is always a folder or file, so a relative one is taken
                # against the current directory whether or not it exists.
                where = absolute(scope) if scope else None
                return ops.sync_run(ctx, where, on_progress, stop=STOP)
            finally:
                bar.close()

        return run(common, action, show_sync, cli_wording(), sync_outcome)

    @app.command
    def query(
        text: str,
        /,
        *,
        top_k: Annotated[int, Parameter(help="Passages to return (1-100).")] = ops.DEFAULT_TOP_K,
        scope: Annotated[str | None, Parameter(help="Only under this path or id.")] = None,
        label: LabelFlag = None,
        date_from: DateFromFlag = None,
        date_to: DateToFlag = None,
        common: Common | None = None,
    ) -> int:
        """Hybrid search over the index."""
        common = common or Common()
        return run(
            common,
            lambda ctx: ops.query_documents(
                ctx, text, top_k, cli_scope(scope), label_filter(label), date_from, date_to
            ),
            show_query,
            cli_wording(),
        )

    @app.command
    def find(
        *terms: str,
        any: Annotated[
            bool, Parameter(negative="", help="Documents with any term (default: all).")
        ] = False,
        scope: Annotated[str | None, Parameter(help="Only under this path or id.")] = None,
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
        return run(
            common,
            lambda ctx: ops.find_mentions(
                ctx,
                list(terms),
                match,
                cli_scope(scope),
                offset,
                label_filter(label),
                date_from,
                date_to,
            ),
            show_mentions,
            cli_wording(),
        )

    @app.command(name="read-neighbors")
    def read_neighbors(
        *,
        chunk_index: Annotated[int, Parameter(help="The chunk to read around.")],
        file_path: Annotated[str | None, Parameter(help="The indexed file.")] = None,
        source: Annotated[str | None, Parameter(help="A data or url source id.")] = None,
        before: int = 2,
        after: int = 2,
        common: Common | None = None,
    ) -> int:
        """Read the chunks around one chunk of a document."""
        common = common or Common()
        one_document(file_path, source, "--file-path")
        path = absolute(file_path) if file_path else None
        return run(
            common,
            lambda ctx: ops.read_chunk_neighbors(ctx, chunk_index, path, source, before, after),
            show_neighbors,
            cli_wording(),
        )

    @app.command
    def read(
        path: str | None = None,
        /,
        *,
        source: Annotated[str | None, Parameter(help="A data or url source id.")] = None,
        common: Common | None = None,
    ) -> int:
        """Print a whole indexed document as Markdown."""
        common = common or Common()
        one_document(path, source, "PATH")
        file_path = absolute(path) if path else None
        return run(
            common,
            lambda ctx: ops.read_file(ctx, file_path, source),
            show_read,
            cli_wording(filePath="PATH"),
        )

    @app.command(name="list")
    def list_(
        *,
        scope: Annotated[str | None, Parameter(help="Only under this path or id.")] = None,
        label: LabelFlag = None,
        date_from: DateFromFlag = None,
        date_to: DateToFlag = None,
        sort: Annotated[str | None, Parameter(help='"date": newest first, undated last.')] = None,
        common: Common | None = None,
    ) -> int:
        """List files under the roots with their state, plus data and url items."""
        common = common or Common()
        return run(
            common,
            lambda ctx: ops.list_files(
                ctx, cli_scope(scope), label_filter(label), date_from, date_to, sort
            ),
            show_list,
            cli_wording(),
        )

    @app.command
    def status(*, common: Common | None = None) -> int:
        """Configuration and index health (exits 0 even when the configuration is broken)."""
        common = common or Common()
        return run(common, ops.status, show_status, cli_wording())

    @app.command
    def delete(
        path: str | None = None,
        /,
        *,
        source: Annotated[str | None, Parameter(help="A data or url source id.")] = None,
        common: Common | None = None,
    ) -> int:
        """Remove a document from the index (the file on disk is untouched)."""
        common = common or Common()
        one_document(path, source, "PATH")
        file_path = absolute(path) if path else None
        return run(
            common,
            lambda ctx: ops.delete_file(ctx, file_path, source),
            show_delete,
            cli_wording(filePath="PATH"),
        )

    classify = App(name="classify", help="Document labels (needs a classify.toml).")
    app.command(classify)

    @classify.command(name="try")
    def classify_try(path: str, /, *, common: Common | None = None) -> int:
        """Label one file the way an ingest would, without storing anything."""
        common = common or Common()
        from minirag_ingest.labels.try_file import try_lines

        def show(result: dict[str, Any]) -> None:
            for line in try_lines(result):
                print(line)

        def outcome(result: dict[str, Any]) -> tuple[int, str | None]:
            problems = result.get("problems") or []
            for problem in problems:
                warn(problem)
            return (EXIT_FAILED, "; ".join(problems)) if problems else (EXIT_OK, None)

        return run(
            common,
            lambda ctx: ops.classify_try(ctx, absolute(path)),
            show,
            cli_wording(filePath="PATH"),
            outcome,
        )

    return app


def one_document(path: str | None, source: str | None, path_flag: str) -> None:
    """read, delete and read-neighbors name one document: by its path or by --source."""
    if path and source:
        raise UsageError(f"give either {path_flag} or --source, not both")
    if not path and not source:
        raise UsageError(
            f"name the document: give its {path_flag}, or --source for a data or url id"
        )


def interrupted(common: Any, done: int, total: int | None = None) -> int:
    """Stopped by a signal before (or while) doing the work: say how far it got, exit 130."""
    message = interrupted_line(done, total)
    if common.json:
        emit_json({"error": message, "state": "interrupted"})
    print(message, file=sys.stderr)
    return EXIT_INTERRUPTED


def ingest_folder(common: Any, folder: str) -> int:
    """``ingest <folder>``: every file under it, one at a time, with sync's counts line."""
    from minirag_index import ModelLoadError
    from minirag_ingest.scan import scan

    ctx = make_context(common, cli_wording(filePath="PATH"))
    results: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    try:
        ctx.require_places()
        scanned = scan(ctx.roots, ctx.roots.contain(folder), extra_extensions=ops.scan_extensions())
        # One labelling job for the whole folder: the choice model, when a facet needs
        # it, is loaded once by the first file and released at the end.
        labelling = ctx.pipeline.labelling()
    except Exception as exc:
        return fail(common, ctx.wording.render(error_message(exc)))
    bar = Progress("ingest", enabled=not common.json)
    files = scanned.files
    failed = 0
    state = "succeeded"
    with labelling as labels:
        for done, item in enumerate(files):
            if STOP.is_set():
                state = "interrupted"
                break
            try:
                results.append(ops.ingest_file(ctx, item.source, labels))
            except ModelLoadError as exc:  # no file after this one can be read either
                left = len(files) - done
                failed += left
                noun = "file" if left == 1 else "files"
                embedder = ctx.index.embedder
                model = str(embedder.local_folder or embedder.model_name)
                errors.append({"path": model, "reason": f"{left} {noun} not read: {exc}"})
                break
            except Exception as exc:
                failed += 1
                errors.append({"path": item.source, "reason": error_message(exc)})
            bar.update(done + 1, len(files))
    bar.close()
    for unlisted in scanned.unlisted:
        failed += 1
        errors.append({"path": str(unlisted.path), "reason": unlisted.message})
    if state != "interrupted" and failed:
        state = "failed"
    counts = {
        "scanned": len(files),
        "ingested": len(results),
        "ignored": scanned.ignored,
        "failed": failed,
    }
    payload = {
        "state": state,
        "counts": counts,
        "files": results,
        "errors": errors,
        "ignored": scanned.ignored,
    }
    if state == "interrupted":
        code, problem = EXIT_INTERRUPTED, interrupted_line(len(results) + failed, len(files))
    elif failed:
        code, problem = EXIT_FAILED, f"{failed} of {len(files)} files or folders failed"
    else:
        code, problem = EXIT_OK, None
    if common.json:
        emit_json({"error": problem, **payload} if problem else payload)
    else:
        for row in results:
            show_ingest(row)
        print(count_line("ingest", state, counts))
        for error in errors:
            warn(f"{error['path']}: {error['reason']}")
    if code == EXIT_INTERRUPTED:
        print(problem, file=sys.stderr)
    return code


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


def show_library_warnings() -> None:
    """Warnings logged by our packages (a file whose characters could not be decoded...)
    reach stderr as ``warn:`` lines, like the command's own."""
    import logging

    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("warn: %(message)s"))
        handler.setLevel(logging.WARNING)
        root.addHandler(handler)


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
