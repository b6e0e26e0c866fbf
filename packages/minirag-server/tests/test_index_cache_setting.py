"""INDEX_CACHE_MB through the program: a read-only query connects with that bound and writes
nothing; a value below the least is reported by name, as every setting is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lancedb
import pytest

from testsupport.files import files_under
from testsupport.mcp import cli


def test_a_read_only_query_uses_the_bound_and_writes_nothing(
    env: dict, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = cli(capsys, "sync")
    assert code == 0, err
    db = Path(env["BASE_DIR"]) / ".minirag" / "lancedb"
    before = files_under(db)
    sizes: list[int] = []
    real = lancedb.Session

    def recording(**given: Any) -> Any:
        sizes.append(given["index_cache_size_bytes"])
        return real(**given)

    monkeypatch.setattr(lancedb, "Session", recording)
    monkeypatch.setenv("INDEX_CACHE_MB", "20")
    code, out, err = cli(capsys, "query", "alpha", "--read-only", "--json")
    assert code == 0, err
    assert json.loads(out)["hits"]
    assert sizes == [20 * 1024 * 1024]
    assert files_under(db) == before


def test_a_value_below_the_least_is_named(
    env: dict, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INDEX_CACHE_MB", "8")
    code, out, _ = cli(capsys, "status", "--json")
    assert code == 0
    problem = json.loads(out)["configError"]
    assert "INDEX_CACHE_MB" in problem and "at least 16" in problem
