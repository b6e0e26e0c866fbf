"""The CLI subcommands, built with cyclopts. Imported only when ``minirag-mcp`` is given
arguments, so starting the server does not pay for it.

Each subcommand calls the same :mod:`minirag_mcp.operations` function as its MCP tool, so
``--json`` prints exactly that tool's result. Exit status: 0 on success, 1 on failure (any
per-file failure of ingest or sync included); ``status`` exits 0 even on a configuration error.

(No ``from __future__ import annotations`` here: cyclopts reads the annotations at run time.)
"""

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from cyclopts import App, Parameter

from minirag_mcp import operations as ops
from minirag_mcp.config import __version__
from minirag_mcp.context import AppContext

# -- output helpers ---------------------------------------------------------------------------


def warn(message: str) -> None:
    print(f"warn: {message}", file=sys.stderr)


def fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


def emit_json(payload: dict[str, Any]) -> None:
    """The payload as JSON, always valid UTF-8 (undecodable bytes in names are escaped)."""
    from minirag_ingest.names import json_safe

    print(json.dumps(json_safe(payload), ensure_ascii=False, indent=2))


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


def make_context(common: Any) -> AppContext:
    from minirag_mcp.config import load_config
    from minirag_mcp.context import AppContext

    overrides = {
        "base_dirs": list(common.base_dir) if common.base_dir else None,
        "db_path": common.db_path,
        "cache_dir": common.cache_dir,
        "model_name": common.model_name,
    }
    return AppContext(load_config(overrides))


def run(common: Any, action: Callable[[AppContext], dict[str, Any]], show: Callable) -> int:
    """Run ``action``, print its result (JSON or human) and return the exit status."""
    ctx = make_context(common)
    try:
        payload = action(ctx)
    except Exception as exc:
        from minirag_mcp.server import error_message

        return fail(error_message(exc))
    if common.json:
        emit_json(payload)
        return 0
    return show(payload) or 0


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


def show_query(payload: dict[str, Any]) -> int:
    if payload.get("warning"):
        warn(payload["warning"])
    warn_filter(payload)
    hits = payload.get("hits", [])
    if not hits:
        print("no results")
        if payload.get("notice"):
            print(payload["notice"])
        return 0
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
    return 0


def show_mentions(payload: dict[str, Any]) -> int:
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
        return 0
    for document in payload["documents"]:
        first = document.get("firstMatch") or {}
        pages = page_suffix(first.get("pages"))
        title = " [title]" if document.get("titleMatch") else ""
        print(f"{document['displayPath']}{pages}: {document['matchingChunks']} chunks{title}")
        if first.get("snippet"):
            print(f"    {first['snippet']}")
    if payload.get("nextOffset") is not None:
        print(f"more: --offset {payload['nextOffset']}")
    return 0


def show_ingest(payload: dict[str, Any]) -> int:
    print(f"ingested {payload['source']}: {payload['chunks']} chunks ({payload['title']!r})")
    if payload.get("labelProblem"):
        warn(payload["labelProblem"])
    return 0


def show_sync(payload: dict[str, Any]) -> int:
    counts = payload["counts"]
    print("sync " + payload["state"] + ": " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for error in payload.get("errors", []):
        warn(f"{error['path']}: {error['reason']}" if error["path"] else error["reason"])
    for path in payload.get("unreadableFiles", []):
        warn(f"{path}: kept as indexed, not read again: that needs the [ocr] extra")
    return 0 if payload["state"] == "succeeded" and not counts.get("failed") else 1


def show_list(payload: dict[str, Any]) -> int:
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
    return 0


def show_status(payload: dict[str, Any]) -> int:
    if payload.get("configError"):
        print(f"version: {payload['version']}")
        warn(f"configuration error: {payload['configError']}")
        return 0
    for key, value in payload.items():
        if key in ("errors", "schemeWarning"):
            continue
        if isinstance(value, list):
            value = (
                ", ".join(
                    json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else str(v)
                    for v in value
                )
                or "-"
            )
        print(f"{key}: {value}")
    if payload.get("schemeWarning"):
        warn(payload["schemeWarning"])
    for error in payload.get("errors", []):
        warn(error)
    return 0


def show_neighbors(payload: dict[str, Any]) -> int:
    print(payload["displayPath"])
    for chunk in payload["chunks"]:
        mark = ">" if chunk.get("isTarget") else " "
        print(f"{mark} chunk {chunk['chunkIndex']}{page_suffix(chunk.get('pages'))}")
        print("    " + chunk["text"].replace("\n", "\n    "))
    return 0


def show_read(payload: dict[str, Any]) -> int:
    print(payload["text"])
    return 0


def show_delete(payload: dict[str, Any]) -> int:
    print(f"deleted {payload['source']} ({payload['deleted']} chunks); the file is untouched")
    return 0


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
        help="Local-first RAG over your documents: an MCP server (no arguments) and a CLI.",
        version=__version__,
        result_action="return_value",
    )

    @app.default
    def serve(*, common: Common | None = None) -> int:
        """Start the MCP server on stdio."""
        common = common or Common()
        from minirag_mcp.server import serve_stdio

        serve_stdio(make_context(common).config)
        return 0

    @app.command
    def ingest(path: str, *, common: Common | None = None) -> int:
        """Index a file, or every file under a folder (excluded files left out)."""
        common = common or Common()
        target = absolute(path)
        if not os.path.isdir(target):
            return run(common, lambda ctx: ops.ingest_file(ctx, target), show_ingest)
        return ingest_folder(common, target)

    @app.command(name="ingest-url")
    def ingest_url(
        url: str,
        *,
        source: Annotated[str | None, Parameter(help="Id to store it under.")] = None,
        common: Common | None = None,
    ) -> int:
        """Fetch a web page and index it."""
        common = common or Common()
        return run(common, lambda ctx: ops.ingest_url(ctx, url, source), show_ingest)

    @app.command
    def sync(
        *,
        scope: Annotated[str | None, Parameter(help="Only this folder or file.")] = None,
        common: Common | None = None,
    ) -> int:
        """Reconcile the index with the files on disk."""
        common = common or Common()
        bar = Progress("sync", enabled=not common.json)

        def action(ctx: AppContext) -> dict[str, Any]:
            def on_progress(status: dict[str, Any]) -> None:
                bar.update(status["progress"]["done"], status["progress"]["total"])

            try:
                return ops.sync_run(ctx, cli_scope(scope), on_progress)
            finally:
                bar.close()

        code = run(common, action, show_sync)
        return code

    @app.command
    def query(
        text: str,
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
        path = absolute(file_path) if file_path else None
        return run(
            common,
            lambda ctx: ops.read_chunk_neighbors(ctx, chunk_index, path, source, before, after),
            show_neighbors,
        )

    @app.command
    def read(
        path: str | None = None,
        *,
        source: Annotated[str | None, Parameter(help="A data or url source id.")] = None,
        common: Common | None = None,
    ) -> int:
        """Print a whole indexed document as Markdown."""
        common = common or Common()
        file_path = absolute(path) if path else None
        return run(common, lambda ctx: ops.read_file(ctx, file_path, source), show_read)

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
        )

    @app.command
    def status(*, common: Common | None = None) -> int:
        """Configuration and index health (exits 0 even when the configuration is broken)."""
        common = common or Common()
        return run(common, ops.status, show_status)

    @app.command
    def delete(
        path: str | None = None,
        *,
        source: Annotated[str | None, Parameter(help="A data or url source id.")] = None,
        common: Common | None = None,
    ) -> int:
        """Remove a document from the index (the file on disk is untouched)."""
        common = common or Common()
        file_path = absolute(path) if path else None
        return run(common, lambda ctx: ops.delete_file(ctx, file_path, source), show_delete)

    classify = App(name="classify", help="Document labels (needs a classify.toml).")
    app.command(classify)

    @classify.command(name="try")
    def classify_try(path: str, *, common: Common | None = None) -> int:
        """Label one file the way an ingest would, without storing anything."""
        common = common or Common()
        from minirag_ingest.labels.try_file import try_lines

        ctx = make_context(common)
        try:
            result = ops.classify_try(ctx, absolute(path))
        except Exception as exc:
            from minirag_mcp.server import error_message

            return fail(error_message(exc))
        if common.json:
            emit_json(result)
        else:
            for line in try_lines(result):
                print(line)
        for problem in result.get("problems", []):
            warn(problem)
        return 1 if result.get("problems") else 0

    def ingest_folder(common: Any, folder: str) -> int:
        from minirag_ingest.scan import scan

        ctx = make_context(common)
        results: list[dict[str, Any]] = []
        errors: list[dict[str, str]] = []
        try:
            ctx.require_config()
            scanned = scan(
                ctx.roots, ctx.roots.contain(folder), extra_extensions=ops.scan_extensions()
            )
            # One labelling job for the whole folder: the choice model, when a facet needs
            # it, is loaded once by the first file and released at the end.
            labelling = ctx.pipeline.labelling()
        except Exception as exc:
            from minirag_mcp.server import error_message

            return fail(error_message(exc))
        bar = Progress("ingest", enabled=not common.json)
        total = len(scanned.files)
        with labelling as labels:
            for done, item in enumerate(scanned.files, 1):
                try:
                    results.append(ops.ingest_file(ctx, item.source, labels))
                except Exception as exc:
                    from minirag_mcp.server import error_message

                    errors.append({"path": item.source, "reason": error_message(exc)})
                bar.update(done, total)
        bar.close()
        for unlisted in scanned.unlisted:
            errors.append({"path": str(unlisted.path), "reason": unlisted.message})
        if common.json:
            emit_json({"files": results, "errors": errors, "ignored": scanned.ignored})
        else:
            for row in results:
                show_ingest(row)
            if scanned.ignored:
                print(f"{scanned.ignored} excluded by .miniragignore rules")
            for error in errors:
                warn(f"{error['path']}: {error['reason']}")
        return 1 if errors else 0

    return app
