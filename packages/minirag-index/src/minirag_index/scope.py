"""Scope matching: a scope covers a source when it names it or a folder above it.

Matching stops at a separator, so "/docs/proj" covers "/docs/proj/notes.md" but never
"/docs/project-secret/notes.md". File sources use the platform separator; data and URL ids use
"/".
"""

from __future__ import annotations

import os

_SEPARATORS = ("/", os.sep)


def in_scope(source: str, scope: str | None) -> bool:
    if not scope:
        return True
    base = scope.rstrip("/" + os.sep) or scope
    if source == base:
        return True
    return any(source.startswith(base + sep) for sep in _SEPARATORS if not base.endswith(sep))


def scope_filter_sql(scope: str | None) -> str | None:
    """The same rule as a LanceDB filter on the ``source`` column."""
    if not scope:
        return None
    base = scope.rstrip("/" + os.sep) or scope
    parts = [f"source = {sql_string(base)}"]
    for sep in dict.fromkeys(_SEPARATORS):
        if not base.endswith(sep):
            parts.append(f"starts_with(source, {sql_string(base + sep)})")
    return "(" + " OR ".join(parts) + ")"


def sql_string(value: str) -> str:
    """A SQL string literal with quotes escaped."""
    return "'" + value.replace("'", "''") + "'"
