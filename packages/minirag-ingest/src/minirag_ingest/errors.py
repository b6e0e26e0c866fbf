"""Errors of minirag-ingest that more than one module raises or reports.

A configuration value is a :class:`~minirag_index.settings.ConfigError` (the one class every
package raises, re-exported here); a file that cannot be indexed is a :class:`ConversionError`.
"""

from __future__ import annotations

import os
from pathlib import Path

from minirag_index.errors import MiniragError
from minirag_index.settings import ConfigError

__all__ = ["ConfigError", "ConversionError", "IngestError", "one_line"]


def one_line(text: str) -> str:
    """``text`` with every run of whitespace, line breaks included, as one space."""
    return " ".join(text.split())


class IngestError(MiniragError):
    """The root of minirag-ingest's errors (itself beneath the index's ``MiniragError``)."""


class ConversionError(IngestError):
    """A file could not be turned into Markdown; ``str()`` is a one-line reason naming it."""

    def __init__(self, path: str | os.PathLike[str] | None, reason: str) -> None:
        self.path = None if path is None else str(path)
        self.reason = one_line(reason)
        super().__init__(self.path, self.reason)

    def __str__(self) -> str:
        if self.path is None:
            return self.reason
        return f"{Path(self.path).name}: {self.reason}"
