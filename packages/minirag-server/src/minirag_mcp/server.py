"""The MCP server: twelve tools over one index, and the instructions sent at connect time.

The tools live in :mod:`minirag_mcp.tools`, each a thin wrapper over the function of the same
name in :mod:`minirag_mcp.operations`; the CLI calls the same functions. A failure comes back
as a tool error carrying the reason, never as a crashed server.
"""

from __future__ import annotations

import os

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
# py-key-value (fastmcp's session-state store, first read when tools/list is answered)
# instruments its own modules with beartype as they are imported unless told not to; its checks
# only warn, and the instrumentation costs about 90 ms of CPU before that first answer.
os.environ.setdefault("PY_KEY_VALUE_DISABLE_BEARTYPE", "true")

import logging
from typing import Any

from fastmcp import FastMCP

from minirag_mcp.config import Config, ConfigProblem, load_config
from minirag_mcp.context import AppContext
from minirag_mcp.instructions import build_instructions
from minirag_mcp.tools import register_tools

log = logging.getLogger(__name__)

SERVER_NAME = "minirag"
SHUTDOWN_WAIT = 60.0  # seconds a running sync gets to finish its commit when the server stops


def advertise_tools_only(mcp: FastMCP) -> None:
    """Advertise the capabilities this server has: tools, in a list that never changes.

    fastmcp derives capabilities from the handlers it registers, so it would also offer prompts
    and resources (none exist here) and the UI extension, and promise list-change notifications
    nobody sends. There is no public setting for this, hence the wrapper on its low-level
    server's ``get_capabilities``."""
    from mcp.types import ToolsCapability

    low_level = mcp._mcp_server
    derived = low_level.get_capabilities

    def get_capabilities(*args: Any, **kwargs: Any) -> Any:
        capabilities = derived(*args, **kwargs)
        return capabilities.model_copy(
            update={
                "prompts": None,
                "resources": None,
                "tools": ToolsCapability(list_changed=False),
                "extensions": None,
            }
        )

    low_level.get_capabilities = get_capabilities  # type: ignore[method-assign]


def create_app(config: Config | ConfigProblem | None = None) -> FastMCP:
    """Build the server for ``config`` (read from the environment when None)."""
    config = config if config is not None else load_config({})
    mcp = FastMCP(
        SERVER_NAME,
        instructions=build_instructions(config.instructions_append),
        version=config.version,
    )
    mcp.app_context = AppContext(config)  # type: ignore[attr-defined]  # read by tools.app_of
    advertise_tools_only(mcp)
    register_tools(mcp)
    return mcp


def serve_stdio(config: Config | ConfigProblem) -> None:
    """Run the server on stdio; nothing but JSON-RPC is written to stdout."""
    from minirag_mcp.warmup import WarmUpAfterInitialize

    app = create_app(config)
    app.add_middleware(WarmUpAfterInitialize())
    try:
        app.run(transport="stdio", show_banner=False)
    finally:
        # A sync still running when the client goes away stops after its commit in flight,
        # rather than being cut off inside the embedding or storage libraries at exit.
        app.app_context.stop_jobs(timeout=SHUTDOWN_WAIT)  # type: ignore[attr-defined]


def main() -> None:
    """Run the server on stdio with the configuration from the environment."""
    serve_stdio(load_config({}))
