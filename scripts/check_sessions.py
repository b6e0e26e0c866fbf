"""Check that every test runs in at least one nox session.

    python scripts/check_sessions.py     # exit status 0 when no test is left out

Collects every package's tests once (``pytest --collect-only``, in this process) with their
markers, then applies each test session's selection from noxfile.py's ``TESTS`` (the packages
it collects and its ``-m`` expression, read from the source, so nox need not be installed).
Prints how many tests each session runs and how many run in more than one; fails, naming them,
when a test runs in none, or when the tests cannot be collected. The tests of a package that is
not installed here are not collected (minirag-classify's without its package) and so are not
checked.
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted(p.name for p in (ROOT / "packages").iterdir() if (p / "tests").is_dir())

Selection = dict[str, tuple[list[str], str]]


def sessions() -> Selection:
    """noxfile.py's TESTS: session name -> (packages, marker expression)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "TESTS" for t in node.targets
        ):
            selection: Selection = ast.literal_eval(node.value)
            return selection
    sys.exit("noxfile.py has no TESTS = {...} literal")


class Markers(dict[str, bool]):
    """A test's marker names as the names of a ``-m`` expression: absent ones are False."""

    def __missing__(self, key: str) -> bool:
        return False


def selects(expression: str, markers: set[str]) -> bool:
    """Whether ``pytest -m expression`` keeps a test with these markers (and/or/not, names)."""
    code = compile(expression, "<-m>", "eval")
    return bool(eval(code, {"__builtins__": {}}, Markers.fromkeys(markers, True)))


class Collector:
    """A pytest plug-in that keeps each collected test's node id and marker names."""

    def __init__(self) -> None:
        self.items: dict[str, set[str]] = {}

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            self.items[item.nodeid] = {mark.name for mark in item.iter_markers()}


def collect() -> dict[str, set[str]]:
    """Every collected test's node id and marker names; pytest's own output only on failure."""
    collector = Collector()
    dirs = [str(ROOT / "packages" / name / "tests") for name in PACKAGES]
    args = ["--collect-only", "-q", "-p", "no:cacheprovider", f"--rootdir={ROOT}", *dirs]
    with contextlib.redirect_stdout(io.StringIO()) as output:
        status = pytest.main(args, plugins=[collector])
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        print(output.getvalue())
        sys.exit(f"collecting the tests failed (pytest exit status {int(status)})")
    return collector.items


def runs(selection: Selection, items: dict[str, set[str]]) -> dict[str, list[str]]:
    """Test node id -> the sessions that run it."""
    where: dict[str, list[str]] = {nodeid: [] for nodeid in items}
    for name, (packages, expression) in selection.items():
        for nodeid, markers in items.items():
            package = nodeid.split("/")[1] if nodeid.startswith("packages/") else ""
            if package in packages and selects(expression, markers):
                where[nodeid].append(name)
    return where


def main() -> int:
    where = runs(sessions(), collect())
    counts = Counter(name for names in where.values() for name in names)
    print(f"{len(where)} tests collected; per session: {dict(sorted(counts.items()))}")
    print(f"run in more than one session: {sum(len(n) > 1 for n in where.values())}")
    nowhere = sorted(nodeid for nodeid, names in where.items() if not names)
    for nodeid in nowhere:
        print(f"runs in no session: {nodeid}")
    if nowhere:
        print("give each a marker or a package that some session in noxfile.py's TESTS runs")
    return 1 if nowhere else 0


if __name__ == "__main__":
    sys.exit(main())
