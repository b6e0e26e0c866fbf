"""``python -m minirag_mcp``: the same as the ``minirag-mcp`` command."""

from minirag_mcp.cli import main

if __name__ == "__main__":  # not again in a conversion worker started by spawning
    main()
