"""The MCP server: twelve tools over one index, and the instructions sent at connect time.

The tools live in :mod:`minirag_mcp.tools`, each a thin wrapper over the function of the same
name in the server's operation modules; the CLI calls the same functions. A failure comes back
as a tool error carrying the reason, never as a crashed server: :class:`ToolCallGuard` turns
anything a call raises into a tool error, and every result and message is made valid UTF-8
first (:mod:`minirag_mcp.results` does it for results), since a file name that is not (and the
text derived from it) would otherwise fail to serialise and end the stdio session.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from fastmcp import FastMCP
from fastmcp.exceptions import DisabledError, FastMCPError, NotFoundError, ToolError
from fastmcp.server.middleware import Middleware

from minirag_ingest.files.names import safe_text
from minirag_mcp.config import Config, ConfigProblem, load_config
from minirag_mcp.context import AppContext
from minirag_mcp.instructions import build_instructions
from minirag_mcp.tools import APP_KEY, TOOLS, register_tools
from minirag_mcp.wording import error_message

log = logging.getLogger(__name__)

SERVER_NAME = "minirag"
WATCH_FIRST_SYNC_AFTER = 1.0  # seconds: the imports of the first sync hold the GIL
SHUTDOWN_WAIT = 60.0  # seconds a running sync gets to finish its commit when the server stops


class ToolCallGuard(Middleware):
    """The last line: a tool call that raises anything - an exception no operation expected,
    a result that cannot be serialised, even ``SystemExit`` from a library - answers with a
    tool error naming the tool and the reason, and the server keeps serving.

    A call naming a tool this server does not offer is an expected mistake, not a failure:
    it answers one line saying why (no such tool, or a write tool on a read-only server),
    and nothing is logged."""

    def __init__(self, *, read_only: bool = False) -> None:
        self.read_only = read_only

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        try:
            return await call_next(context)
        except (NotFoundError, DisabledError):  # fastmcp found no tool by that name
            name = str(getattr(context.message, "name", ""))
            raise ToolError(unavailable_tool(name, read_only=self.read_only)) from None
        except FastMCPError as exc:  # ours, and fastmcp's own (unknown tool, bad arguments)
            try:
                text = str(exc)
            except Exception:
                text = type(exc).__name__
            if safe_text(text) == text:
                raise
            raise ToolError(safe_text(text)) from exc
        except (Exception, SystemExit) as exc:
            name = getattr(context.message, "name", "the tool")
            log.warning("tool %s failed unexpectedly", name, exc_info=True)
            raise ToolError(f"{name} failed unexpectedly: {error_message(exc)}") from exc


def unavailable_tool(name: str, *, read_only: bool) -> str:
    """Why a call naming ``name`` found no tool: a write tool a read-only server leaves out,
    or a name no tool has (then the tools there are)."""
    shown = safe_text(repr(name))
    if read_only and any(spec.fn.__name__ == name and not spec.for_readers for spec in TOOLS):
        return (
            f"{shown} is not available: this server is read-only (READ_ONLY=1): sync, ingest "
            "and delete run on the writer's machine"
        )
    offered = [spec.fn.__name__ for spec in TOOLS if spec.for_readers or not read_only]
    return f"unknown tool {shown}; this server's tools are: {', '.join(offered)}"


def create_app(config: Config | ConfigProblem | None = None, *, watch: bool = False) -> FastMCP:
    """Build the server for ``config`` (read from the environment when None). With ``watch``
    (or WATCH=1) the index follows the roots while the server runs (watch mode)."""
    return build_app(config, watch=watch)[0]


def build_app(
    config: Config | ConfigProblem | None = None, *, watch: bool = False
) -> tuple[FastMCP, AppContext]:
    """The server of :func:`create_app` and the AppContext its tools answer from (its lifespan
    context holds it, under :data:`~minirag_mcp.tools.APP_KEY`)."""
    config = config if config is not None else load_config({})
    app_ctx = AppContext(config)
    # A read-only server never watches (watch mode syncs); its configuration refuses WATCH=1.
    watching = isinstance(config, Config) and (watch or config.watch) and not config.read_only

    @contextlib.asynccontextmanager
    async def lifespan(_server: FastMCP) -> AsyncIterator[dict[str, Any]]:
        if watching:  # its first sync waits until the client has been answered
            app_ctx.start_watching(first_sync_after=WATCH_FIRST_SYNC_AFTER)
        try:
            yield {APP_KEY: app_ctx}
        finally:  # the last client went away: no conversion worker outlives the session
            await anyio.to_thread.run_sync(lambda: app_ctx.stop_watching(SHUTDOWN_WAIT))
            await anyio.to_thread.run_sync(app_ctx.stop_workers)

    mcp = FastMCP(
        SERVER_NAME,
        instructions=build_instructions(config.instructions_append),
        version=config.version,
        lifespan=lifespan,
    )
    read_only = isinstance(config, Config) and config.read_only
    mcp.add_middleware(ToolCallGuard(read_only=read_only))
    register_tools(mcp, read_only=read_only)
    return mcp, app_ctx


def warm_modules(config: Config | ConfigProblem) -> tuple[str, ...]:
    """What the warm-up imports for this configuration: LanceDB and the embedding runtime its
    MODEL_NAME loads with."""
    from minirag_index.embedding import runtime_modules
    from minirag_mcp.warmup import WARM_MODULES

    if not isinstance(config, Config):
        return WARM_MODULES
    return ("lancedb", *runtime_modules(config.index.MODEL_NAME))


def serve_stdio(
    config: Config | ConfigProblem,
    *,
    watch: bool = False,
    prepare: Callable[[FastMCP], None] | None = None,
) -> None:
    """Run the server on stdio; nothing but JSON-RPC is written to stdout. ``prepare`` is
    called with the server before it serves (bench/server_timings.py adds its timing hooks)."""
    from minirag_mcp.warmup import WarmUpAfterInitialize

    app, app_ctx = build_app(config, watch=watch)
    warm_up = WarmUpAfterInitialize(warm_modules(config))
    app.add_middleware(warm_up)
    if prepare is not None:
        prepare(app)
    try:
        app.run(transport="stdio", show_banner=False)
    finally:
        warm_up.stop()
        stop_app(app_ctx)


def stop_app(app_ctx: AppContext) -> None:
    """A sync still running when the server stops ends after its commit in flight, rather than
    being cut off inside the embedding or storage libraries at exit; then the workers go."""
    app_ctx.stop_watching(SHUTDOWN_WAIT)
    app_ctx.stop_jobs(timeout=SHUTDOWN_WAIT)
    app_ctx.stop_workers()


def main() -> None:
    """Run the server on stdio with the configuration from the environment."""
    serve_stdio(load_config({}))
