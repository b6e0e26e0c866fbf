"""Scope matching: a scope covers a source when it names it or a folder above it.

Matching stops at a separator, so "/docs/proj" covers "/docs/proj/notes.md" but never
"/docs/project-secret/notes.md". File sources use the platform separator; data and URL ids use
"/".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

_SEPARATORS = "/" if os.sep == "/" else "/" + os.sep


def in_scope(source: str, scope: str | None) -> bool:
    """True when ``source`` is ``scope`` or lies under it; no scope covers everything."""
    if not scope:
        return True
    base = scope.rstrip(_SEPARATORS)
    if not base:  # the filesystem root
        return source.startswith(tuple(_SEPARATORS))
    if source in (base, scope):
        return True
    return any(source.startswith(base + sep) for sep in _SEPARATORS)


def in_any_scope(scopes: Iterable[str]) -> Callable[[str], bool]:
    """:func:`in_scope` for several scopes at once, as one string test per source (a sync asks
    it for every indexed source)."""
    exact: set[str] = set()
    prefixes: list[str] = []
    for scope in scopes:
        if not scope:
            return lambda source: True
        base = scope.rstrip(_SEPARATORS)
        if base:
            exact.update((base, scope))
        prefixes += [base + sep for sep in _SEPARATORS]  # the filesystem root: any absolute
    starts = tuple(prefixes)
    return lambda source: source in exact or source.startswith(starts)


def scope_filter_sql(scope: str | None) -> str | None:
    """The same rule as a LanceDB filter on the ``source`` column."""
    if not scope:
        return None
    base = scope.rstrip(_SEPARATORS)
    if not base:
        return None
    parts = [f"source = {sql_string(base)}"]
    # "starts with base + sep" as a range, which the writer's BTREE index on ``source``
    # answers without reading every row: base + sep <= source < base + (the next character).
    parts += [
        f"(source >= {sql_string(base + sep)} AND source < {sql_string(base + chr(ord(sep) + 1))})"
        for sep in _SEPARATORS
    ]
    return "(" + " OR ".join(parts) + ")"


def sql_string(value: str) -> str:
    """A SQL string literal with quotes escaped."""
    return "'" + value.replace("'", "''") + "'"
