"""A read-only configuration (READ_ONLY=1 / --read-only) through the CLI: write commands
refuse, and an index that is missing, empty or too old is reported, never created or
upgraded. (The read-only server over HTTP is in test_http.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testsupport.files import files_under
from testsupport.mcp import cli


@pytest.mark.parametrize(
    "command",
    [
        ["sync"],
        ["ingest", "{docs}/alpha.md"],
        ["ingest", "{docs}"],
        ["ingest-url", "https://example.org/"],
        ["delete", "{docs}/alpha.md"],
        ["watch"],
    ],
)
def test_write_commands_refuse_and_create_nothing(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    args = [part.format(docs=docs) for part in command]
    code, out, _ = cli(capsys, *args, "--read-only", "--json")
    assert code == 1
    assert "read-only" in json.loads(out)["error"]
    assert "writer" in json.loads(out)["error"]
    assert not (docs / ".minirag").exists()


def test_read_only_from_the_environment_refuses_too(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READ_ONLY", "1")
    code, _, err = cli(capsys, "sync")
    assert code == 1 and "READ_ONLY=1" in err
    assert not (docs / ".minirag").exists()


def test_read_only_and_watch_cannot_be_combined(
    env: dict, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("READ_ONLY", "1")
    monkeypatch.setenv("WATCH", "1")
    code, out, _ = cli(capsys, "status", "--json")
    assert code == 0
    assert "READ_ONLY and WATCH" in json.loads(out)["configError"]
    monkeypatch.delenv("WATCH")
    code, _, err = cli(capsys, "serve", "--watch")
    assert code == 2 and "read-only" in err


def test_a_reader_needs_to_be_told_where_the_index_is(
    env: dict, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BASE_DIR")
    code, out, _ = cli(capsys, "status", "--read-only", "--json")
    assert code == 0 and "needs DB_PATH" in json.loads(out)["configError"]


def test_a_missing_index_is_reported_and_not_created(
    env: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "nowhere"
    code, out, _ = cli(capsys, "status", "--read-only", "--db-path", str(db), "--json")
    status = json.loads(out)
    assert code == 0 and status["readOnly"] is True
    assert any("no index at DB_PATH" in e for e in status["errors"])
    code, _, err = cli(capsys, "query", "alpha", "--read-only", "--db-path", str(db))
    assert code == 1 and "never creates" in err
    assert not db.exists()


def test_an_index_folder_without_a_table_is_reported_and_left_empty(
    env: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "empty"
    db.mkdir()
    code, out, _ = cli(capsys, "status", "--read-only", "--db-path", str(db), "--json")
    assert code == 0 and any("holds no table yet" in e for e in json.loads(out)["errors"])
    code, out, _ = cli(capsys, "query", "alpha", "--read-only", "--db-path", str(db), "--json")
    assert code == 0 and "empty" in json.loads(out)["notice"]
    assert list(db.iterdir()) == []


def test_an_index_too_old_to_read_is_reported_and_not_upgraded(
    env: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import lancedb

    db = tmp_path / "old"
    lancedb.connect(db).create_table("chunks", data=[{"id": "a#0", "text": "alpha"}])
    before = files_under(db)
    code, out, _ = cli(capsys, "status", "--read-only", "--db-path", str(db), "--json")
    assert code == 0
    assert any("older version" in e for e in json.loads(out)["errors"])
    code, _, err = cli(capsys, "find", "alpha", "--read-only", "--db-path", str(db))
    assert code == 1 and "never upgrades" in err
    assert files_under(db) == before


def test_serving_http_without_a_token_refuses_to_start(
    env: dict, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MINIRAG_TOKEN", raising=False)
    monkeypatch.delenv("MINIRAG_TOKEN_FILE", raising=False)
    code, _, err = cli(capsys, "serve", "--http", "--read-only")
    assert code == 1
    assert "MINIRAG_TOKEN" in err and "MINIRAG_TOKEN_FILE" in err
    assert "secrets.token_urlsafe" in err


def test_serving_http_beyond_loopback_needs_allow_remote(
    env: dict, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINIRAG_TOKEN", "a-token-long-enough-1234")
    code, _, err = cli(capsys, "serve", "--http", "--host", "0.0.0.0")
    assert code == 1 and "--allow-remote" in err and "TLS" in err
    code, _, err = cli(capsys, "serve", "--port", "9000")
    assert code == 2 and "--http" in err
