"""minirag-mcp server."""
