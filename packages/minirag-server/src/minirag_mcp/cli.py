"""The ``minirag-mcp`` command: with no arguments the stdio MCP server, otherwise a one-shot
CLI action against the same index (see :mod:`minirag_mcp.commands`)."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")


def main(argv: list[str] | None = None) -> None:
    """Entry point: no arguments starts the server without loading the CLI machinery."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        from minirag_mcp.server import main as server_main

        server_main()
        return
    from minirag_mcp.commands import build_app

    result = build_app()(args)
    sys.exit(result if isinstance(result, int) else 0)


if __name__ == "__main__":
    main()
