"""The root of the server's own errors."""

from __future__ import annotations

from minirag_index.errors import MiniragError

__all__ = ["ServerError"]


class ServerError(MiniragError):
    """An error of minirag-mcp (itself beneath the index's ``MiniragError``): its message is
    what the user reads."""
