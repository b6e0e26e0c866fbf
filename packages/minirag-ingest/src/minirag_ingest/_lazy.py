"""A package's exports, each imported from its module on first use, so that importing the
package loads none of them (a module ``__getattr__``, PEP 562).

The names are declared as the imports under ``if TYPE_CHECKING:`` in the package's
``__init__.py`` (what type checkers read), and listed in its ``__all__``; :func:`lazy_exports`
reads that block to know which module holds each name.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any


def lazy_exports(package: str, init_file: str) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``, whose ``__init__.py`` is
    ``init_file``: each name imported in its ``if TYPE_CHECKING:`` block is read from its
    module when first asked for; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        home = _declared(init_file).get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return __getattr__


@cache
def _declared(init_file: str) -> dict[str, str]:
    """Exported name → module, from the ``from module import name`` lines of the first
    ``if TYPE_CHECKING:`` block of ``init_file`` (read when a name is first asked for)."""
    import ast

    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            return {
                alias.asname or alias.name: statement.module
                for statement in node.body
                if isinstance(statement, ast.ImportFrom) and statement.module
                for alias in statement.names
            }
    return {}
