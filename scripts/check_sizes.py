"""Check that no function under packages/*/src is over 60 lines and no module over 450.

    python scripts/check_sizes.py        # exit status 0 when every file keeps to the limits

A long function is where a rule hides among its I/O; a long module usually holds two jobs. A
module may stay longer when it says why, in a comment line starting ``# Longer than 450
lines:`` near its top (within its first 60 lines). Standard library only.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 450
REASON_MARK = "# Longer than 450 lines:"
REASON_WITHIN = 60


def problems(path: Path) -> Iterator[str]:
    """What is over the limits in one source file."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    name = path.relative_to(ROOT)
    head = lines[:REASON_WITHIN]
    if len(lines) > MAX_MODULE_LINES and not any(
        line.lstrip().startswith(REASON_MARK) for line in head
    ):
        yield (
            f"{name}: {len(lines)} lines (more than {MAX_MODULE_LINES}); split it, or say why "
            f"in a '{REASON_MARK}' comment near the top"
        )
    for node in ast.walk(ast.parse(text, filename=str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                yield (
                    f"{name}:{node.lineno}: {node.name} is {length} lines "
                    f"(more than {MAX_FUNCTION_LINES})"
                )


def main() -> int:
    found = [
        problem
        for path in sorted(ROOT.glob("packages/*/src/**/*.py"))
        for problem in problems(path)
    ]
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
