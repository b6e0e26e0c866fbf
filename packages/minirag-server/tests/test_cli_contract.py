"""The command line's contract, through the real `minirag-mcp` command run as a child process:
exit statuses, JSON errors, messages in the CLI's own words, missing places, model failures and
the small things a user trips on."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.documents import password_protected_pdf
from testsupport.mcp import call, cli_process

TOOL_WORDS = ("sync_start", "ingest_file", "list_files", "filePath", "chunkIndex", "topK")
# Bytes no encoding decodes (charset-normalizer gives up and so does BeautifulSoup's fallback).
# Bytes no encoding reads. No NUL or other control bytes: those make a file binary data, which
# is refused rather than decoded (minirag_ingest.files.text_encoding).
UNDECODABLE = bytes([0x81, 0x8D, 0xFF, 0x90, 0x9D, 0xC3, 0x80, 0xFE, 0xC0, 0xF5] * 20)


def outcome(*args: str) -> tuple[int, int, dict]:
    """The exit status without --json, with it, and the --json output parsed."""
    plain = cli_process(*args)
    as_json = cli_process(*args, "--json")
    return plain.returncode, as_json.returncode, json.loads(as_json.stdout)


def test_exit_status_is_the_same_with_and_without_json(env: dict, docs: Path, monkeypatch) -> None:
    assert outcome("list")[:2] == (0, 0)

    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    plain, with_json, synced = outcome("sync")
    assert (plain, with_json) == (1, 1)
    assert synced["state"] == "failed" and synced["counts"]["failed"] == 1
    assert synced["error"] and synced["errors"][0]["path"] == str(docs / "broken.pdf")

    plain, with_json, failure = outcome("read", str(docs / "never-indexed.md"))
    assert (plain, with_json) == (1, 1)
    assert list(failure) == ["error"] and "not in the index" in failure["error"]

    for usage in (["bogus"], ["query"], ["read-neighbors"], ["read"]):
        plain, with_json, failure = outcome(*usage)
        assert (plain, with_json) == (2, 2), usage
        assert list(failure) == ["error"] and failure["error"].startswith("minirag-mcp")
        assert usage[0] in failure["error"], usage

    monkeypatch.setenv("BASE_DIRS", "{not json")
    plain, with_json, status = outcome("status")
    assert (plain, with_json) == (0, 0) and "configError" in status
    assert outcome("list")[:2] == (1, 1)


def test_json_mode_prints_every_failure_as_one_object_on_stdout(env: dict, docs: Path) -> None:
    failed = cli_process("read", "--source", "nothing-here", "--json")
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["error"]
    assert "error:" not in failed.stderr
    usage = cli_process("find", "--json")
    assert usage.returncode == 2 and "TERM" in json.loads(usage.stdout)["error"]


def test_messages_name_the_command_and_the_flags_that_were_typed(env: dict, docs: Path) -> None:
    alpha = str(docs / "alpha.md")
    missing = cli_process("read", alpha)
    assert missing.returncode == 1
    assert "minirag-mcp sync" in missing.stderr and "minirag-mcp list" in missing.stderr

    assert cli_process("ingest", alpha).returncode == 0
    cases = {
        ("query", "alpha", "--top-k", "0"): "--top-k must be at least 1",
        ("query", "  "): "TEXT is empty",
        ("find", "alpha", "--offset", "-1"): "--offset must not be negative",
        ("read-neighbors", "--file-path", alpha, "--chunk-index", "99"): "--chunk-index goes",
        ("read-neighbors", "--file-path", alpha, "--chunk-index", "0", "--before", "-1"): (
            "--before and --after must not be negative"
        ),
    }
    for args, wanted in cases.items():
        result = cli_process(*args)
        assert result.returncode == 1, (args, result.stderr)
        assert wanted in result.stderr, (args, result.stderr)
        assert not any(word in result.stderr for word in TOOL_WORDS), (args, result.stderr)

    past = cli_process("read-neighbors", "--file-path", alpha, "--chunk-index", "99").stderr
    assert "there is no chunk 99 in alpha.md: it has 2 chunks" in past

    no_text = cli_process("query")
    assert no_text.returncode == 2
    assert "minirag-mcp query: TEXT is missing" in no_text.stderr and "--text" not in no_text.stderr
    neither = cli_process("read")
    assert neither.returncode == 2 and "PATH" in neither.stderr and "--source" in neither.stderr


def test_a_missing_root_or_an_index_path_that_is_a_file_is_refused_creating_nothing(
    env: dict, tmp_path: Path
) -> None:
    gone = tmp_path / "no" / "such" / "folder"
    for args in (["sync"], ["query", "x"], ["find", "x"], ["list"], ["ingest", str(gone)]):
        result = cli_process(*args, "--base-dir", str(gone))
        assert result.returncode == 1, (args, result.stderr)
        assert f"the document root {gone} does not exist" in result.stderr, args
        assert "empty" not in result.stderr, args
    assert not (tmp_path / "no").exists()

    status = cli_process("status", "--base-dir", str(gone), "--json")
    assert status.returncode == 0
    assert any("does not exist" in error for error in json.loads(status.stdout)["errors"])

    a_file = tmp_path / "index-file"
    a_file.write_text("not an index", encoding="utf-8")
    for args in (["sync"], ["query", "x"], ["find", "x"], ["list"]):
        result = cli_process(*args, "--db-path", str(a_file))
        assert result.returncode == 1, (args, result.stderr)
        assert f"DB_PATH {a_file} is a file, not a folder" in result.stderr, args
    assert a_file.read_text(encoding="utf-8") == "not an index"


def test_a_model_that_cannot_load_names_the_file_and_fails_every_file(
    env: dict, docs: Path, model_dir: Path, tmp_path: Path
) -> None:
    without_weights = tmp_path / "model-without-weights"
    shutil.copytree(model_dir, without_weights)
    (without_weights / "model.onnx").unlink()
    result = cli_process("sync", "--model-name", str(without_weights), "--json")
    assert result.returncode == 1
    job = json.loads(result.stdout)
    assert job["state"] == "failed"
    assert job["counts"]["failed"] == 3 and job["counts"]["ingested"] == 0
    assert str(without_weights) in job["error"] and "model.onnx is missing" in job["error"]
    assert "network" not in job["error"]
    [error] = job["errors"]
    assert error["path"] == str(without_weights) and error["reason"].startswith("3 files not read")

    bad_config = tmp_path / "model-with-bad-config"
    shutil.copytree(model_dir, bad_config)
    (bad_config / "config.json").write_text("{not json", encoding="utf-8")
    result = cli_process("sync", "--model-name", str(bad_config))
    assert result.returncode == 1
    assert f"{bad_config / 'config.json'} is not valid JSON" in result.stderr
    assert "network" not in result.stderr


def test_a_closed_pipe_ends_the_command_quietly(env: dict, docs: Path) -> None:
    for number in range(5000):  # ~160 KB of rows: far more than a 64 KB pipe buffer holds
        (docs / f"row-{number:04d}.md").write_text("x\n", encoding="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-m", "minirag_mcp", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert child.stdout is not None and child.stderr is not None
    assert child.stdout.readline()
    child.stdout.close()  # what `| head -n 1` does
    err = child.stderr.read().decode()
    assert child.wait(timeout=600) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_folder_ingest_prints_the_counts_and_carries_them_in_json(env: dict, docs: Path) -> None:
    result = cli_process("ingest", str(docs))
    assert result.returncode == 0, result.stderr
    assert "ingest succeeded: scanned 3, ingested 3, ignored 0, failed 0" in result.stdout
    (docs / "secret.pdf").write_bytes(password_protected_pdf("Quarterly figures", "hunter2"))
    result = cli_process("ingest", str(docs), "--json")
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert payload["counts"] == {"scanned": 4, "ingested": 3, "ignored": 0, "failed": 1}
    [error] = payload["errors"]
    assert error["path"] == str(docs / "secret.pdf")
    assert "the PDF is password-protected" in error["reason"]
    assert "PDFPasswordIncorrect" not in error["reason"]


def test_undecodable_characters_are_reported_once_naming_the_file(env: dict, docs: Path) -> None:
    page = docs / "garbled.html"
    page.write_bytes(b"<html><body><p>Readable words. " + UNDECODABLE + b"</p></body></html>")
    result = cli_process("ingest", str(page))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "could not be decoded" in line]
    assert warnings == [
        f"warn: {page}: some characters could not be decoded and were replaced with U+FFFD; "
        "save the file as UTF-8 to index them as written"
    ]


def test_list_accepts_a_data_source_id_as_scope(env: dict, docs: Path) -> None:
    async def add() -> None:
        async with Client(create_app(load_config({}))) as client:
            for source in ("memo-7", "memo-70", "memo-7/part"):
                await call(client, "ingest_data", {"source": source, "content": f"{source} text"})

    asyncio.run(add())
    result = cli_process("list", "--scope", "memo-7", "--json")
    assert result.returncode == 0, result.stderr
    listed = sorted(row["source"] for row in json.loads(result.stdout)["files"])
    assert listed == ["memo-7", "memo-7/part"]  # the scope rule: memo-70 is another id


def test_human_status_prints_the_labels_block_as_lines(env: dict, docs: Path) -> None:
    (docs / ".minirag").mkdir()
    (docs / ".minirag" / "classify.toml").write_text(
        '[facets.area]\ndefault = "main"\n'
        'values.main = { description = "Everything else." }\n'
        'values.garden = { description = "Growing things.", paths = ["garden"] }\n',
        encoding="utf-8",
    )
    assert cli_process("sync").returncode == 0
    result = cli_process("status")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert "labels: model on demand, 0 documents undated" in lines
    assert "    garden (1): Growing things." in lines
    assert "    main (2): Everything else." in lines
    assert "{" not in result.stdout.split("labels:", 1)[1]
