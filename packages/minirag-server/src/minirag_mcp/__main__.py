"""``python -m minirag_mcp``: the same as the ``minirag-mcp`` command."""

from minirag_mcp.cli import main

main()
