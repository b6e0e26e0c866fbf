"""A stdio start that has answered before answers initialize and the first tools/list from its
record (see minirag_mcp.early_front): the same answers a normal start gives, a new tool list
when the configuration changed, a broken record ignored, nothing lost or reordered, and none of
the framework imported on that path. Real server subprocesses speaking JSON lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "early-test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
STATUS = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "status", "arguments": {}},
}
FRAMEWORK = ("mcp", "mcp_types", "fastmcp", "pydantic", "pydantic_core", "anyio")


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {
        **os.environ,
        "FASTMCP_CHECK_FOR_UPDATES": "off",
        "HF_HUB_OFFLINE": "1",
        **(extra or {}),
    }


def converse(
    env: dict[str, str],
    *,
    back_to_back: bool = False,
    command: list[str] | None = None,
    initialize: dict = INITIALIZE,
) -> tuple[list[dict], str, int]:
    """initialize, initialized, tools/list, a status call: each sent after the previous answer
    (or all at once with ``back_to_back``), then stdin closed. The responses, stderr, exit."""
    process = subprocess.Popen(
        command or [sys.executable, "-m", "minirag_mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None

    def send(*messages: dict) -> None:
        assert process.stdin is not None
        process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        process.stdin.flush()

    def receive() -> dict:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line, "the server closed stdout before answering"
        return json.loads(line)

    try:
        if back_to_back:
            send(initialize, INITIALIZED, TOOLS_LIST, STATUS)
            responses = [receive() for _ in range(3)]
        else:
            send(initialize)
            responses = [receive()]
            send(INITIALIZED, TOOLS_LIST)
            responses.append(receive())
            send(STATUS)
            responses.append(receive())
        process.stdin.close()
        rest = process.stdout.read()
        assert process.stderr is not None
        err = process.stderr.read()
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert not rest.strip(), f"unexpected output after the answers: {rest[:300]!r}"
    return responses, err.decode(errors="replace"), process.returncode


def records(env: dict[str, str]) -> list[Path]:
    return sorted((Path(env["CACHE_DIR"]) / "early-answers").glob("*.json"))


def recorded_tools(record_file: Path) -> dict:
    [answers] = json.loads(record_file.read_text(encoding="utf-8"))["answers"].values()
    return answers["tools/list"]


def tool_names(responses: list[dict]) -> set[str]:
    return {tool["name"] for tool in responses[1]["result"]["tools"]}


def status_of(responses: list[dict]) -> dict:
    result = responses[2]["result"]
    assert not result.get("isError"), result
    return result["structuredContent"]


def test_second_start_answers_as_a_normal_start(env: dict) -> None:
    normal, _, code = converse(server_env({"MINIRAG_EARLY_ANSWERS": "0"}))
    assert code == 0
    assert records(env) == [], "the feature is off: no record"

    first, _, code = converse(server_env())
    assert code == 0
    assert len(records(env)) == 1, "the first start records its answers"
    second, err, code = converse(server_env())
    assert code == 0
    assert "differed" not in err
    for a, b, c in zip(normal[:2], first[:2], second[:2], strict=True):
        assert a == b == c  # initialize and tools/list, compared as JSON
    assert status_of(second)["model"] == "not loaded"


@pytest.mark.parametrize("args", [[], ["serve"]], ids=["no-arguments", "serve"])
def test_answers_come_from_the_record_and_a_stale_one_is_rewritten(
    env: dict, args: list[str]
) -> None:
    command = [sys.executable, "-m", "minirag_mcp", *args]
    truth, _, _ = converse(server_env(), command=command)
    [record_file] = records(env)
    record = json.loads(record_file.read_text(encoding="utf-8"))
    [answers] = record["answers"].values()
    answers["tools/list"]["tools"][0]["description"] = "a stale description"
    record_file.write_text(json.dumps(record), encoding="utf-8")

    stale, err, code = converse(server_env(), command=command)
    assert code == 0
    assert stale[1]["result"]["tools"][0]["description"] == "a stale description"
    assert "differed" in err
    assert recorded_tools(record_file) == truth[1]["result"]
    again, _, _ = converse(server_env(), command=command)
    assert again[1] == truth[1]


def test_a_configuration_change_gives_the_new_tool_list(env: dict, tmp_path: Path) -> None:
    writer_env = server_env({"DB_PATH": str(tmp_path / "db")})
    writer, _, _ = converse(writer_env)
    converse(writer_env)  # answered from the record
    reader, _, code = converse({**writer_env, "READ_ONLY": "1"})
    assert code == 0
    assert "sync_start" in tool_names(writer)
    assert "sync_start" not in tool_names(reader)
    assert tool_names(reader) < tool_names(writer)
    assert len(records(env)) == 2, "one record per configuration"


def test_another_protocol_version_gets_its_own_answers(env: dict) -> None:
    older = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-06-18"}}
    normal, _, _ = converse(server_env({"MINIRAG_EARLY_ANSWERS": "0"}), initialize=older)
    converse(server_env())  # records the answers of 2025-11-25
    first, _, _ = converse(server_env(), initialize=older)  # not those: the server answers
    second, _, _ = converse(server_env(), initialize=older)  # from the record, now
    assert normal[0]["result"]["protocolVersion"] == "2025-06-18"
    assert normal[:2] == first[:2] == second[:2]
    [record_file] = records(env)
    record = json.loads(record_file.read_text(encoding="utf-8"))
    assert sorted(record["answers"]) == ["2025-06-18", "2025-11-25"]


def test_a_corrupt_record_is_ignored_and_rewritten(env: dict) -> None:
    truth, _, _ = converse(server_env())
    [record_file] = records(env)
    record_file.write_text('{"format": 1, "fingerprint": tru', encoding="utf-8")

    responses, _, code = converse(server_env())
    assert code == 0
    assert responses[:2] == truth[:2]
    assert status_of(responses)["model"] == "not loaded"
    assert recorded_tools(record_file) == truth[1]["result"]


@pytest.mark.parametrize("start", ["first", "recorded"])
def test_back_to_back_requests_are_answered_in_order(env: dict, start: str) -> None:
    if start == "recorded":
        converse(server_env())
    responses, err, code = converse(server_env(), back_to_back=True)
    assert code == 0, err
    assert [r["id"] for r in responses] == [0, 1, 2]
    assert responses[0]["result"]["serverInfo"]["name"] == "minirag"
    assert "status" in tool_names(responses)
    assert status_of(responses)["model"] == "not loaded"


# Runs the real command with two additions that change nothing it does: the framework's import
# waits until the first early answer is written, and at that moment the modules then loaded are
# printed on stderr.
HOLD_BACK = """
import json, sys, threading
from minirag_mcp import early_front

answered = threading.Event()
write = early_front.Front._to_client

def to_client(self, line):
    if not answered.is_set():
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in {framework!r})
        print("LOADED-AT-FIRST-ANSWER " + json.dumps(loaded), file=sys.stderr, flush=True)
    write(self, line)
    answered.set()

class HoldFramework:
    def find_spec(self, name, path=None, target=None):
        if name == "minirag_mcp.server" and {hold!r}:
            answered.wait(60)
        return None

early_front.Front._to_client = to_client
sys.meta_path.insert(0, HoldFramework())
sys.argv = ["minirag-mcp"]
from minirag_mcp.cli import main
main()
"""


def test_early_answers_import_none_of_the_framework(env: dict) -> None:
    def run(hold: bool) -> tuple[list[dict], str]:
        script = HOLD_BACK.format(framework=set(FRAMEWORK), hold=hold)
        responses, err, code = converse(server_env(), command=[sys.executable, "-c", script])
        assert code == 0, err
        return responses, err

    first, _ = run(hold=False)  # writes the record
    responses, err = run(hold=True)
    [line] = [x for x in err.splitlines() if x.startswith("LOADED-AT-FIRST-ANSWER ")]
    assert json.loads(line.split(" ", 1)[1]) == []
    assert responses[:2] == first[:2]
    assert status_of(responses)["model"] == "not loaded"


def test_which_requests_are_answered_from_a_record() -> None:
    from minirag_mcp import early_answers as rules

    record = {
        "handshake_versions": ["2025-06-18", "2025-11-25"],
        "latest_handshake_version": "2025-11-25",
        "answers": {"2025-11-25": {"initialize": {"a": 1}, "tools/list": {"tools": []}}},
    }
    future = {**INITIALIZE["params"], "protocolVersion": "2099-01-01"}
    older = {**INITIALIZE["params"], "protocolVersion": "2025-06-18"}
    # The SDK answers a version it does not offer with its latest; one the record has no
    # answers for is left to the server (and recorded then).
    assert rules.negotiated_version(future, record) == "2025-11-25"
    assert rules.record_answers(record, rules.negotiated_version(older, record)) is None
    assert rules.answerable_initialize(INITIALIZE)
    assert not rules.answerable_initialize({**INITIALIZE, "params": {"capabilities": {}}})
    assert rules.answerable_tools_list(TOOLS_LIST)
    assert not rules.answerable_tools_list({**TOOLS_LIST, "params": {"cursor": "2"}})
    enveloped = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    assert not rules.answerable_tools_list({**TOOLS_LIST, "params": enveloped})
    assert not rules.enabled({"MINIRAG_EARLY_ANSWERS": "0"})
    assert not rules.enabled({"MINIRAG_EAGER_IMPORTS": "1"})
    assert rules.enabled({})


def test_the_record_lives_in_the_cache_folder_the_index_settings_use(tmp_path: Path) -> None:
    """early_answers.py repeats CACHE_DIR's default so as not to import pydantic at start:
    the two must name the same folder, with CACHE_DIR set and without."""
    from minirag_index.settings import IndexSettings, default_cache_dir
    from minirag_mcp.early_answers import records_folder

    assert records_folder({}) == default_cache_dir() / "early-answers"
    chosen = tmp_path / "cache"
    settings = IndexSettings(CACHE_DIR=chosen)
    assert records_folder({"CACHE_DIR": str(chosen)}) == settings.CACHE_DIR / "early-answers"


def test_the_front_splits_lines_only_at_newlines_whatever_the_reads(tmp_path: Path) -> None:
    from minirag_mcp.early_front import lines_of

    long_line = b'{"q": "' + b"x" * 200_000 + b'"}\n'  # several reads of the pipe
    data = b'{"a": 1}\n' + long_line + b'{"b": "carriage\rreturn"}\n\n{"last": true}'
    source = tmp_path / "lines"
    source.write_bytes(data)
    fd = os.open(source, os.O_RDONLY)
    try:
        lines = list(lines_of(fd))
    finally:
        os.close(fd)
    assert lines == [
        b'{"a": 1}\n',
        long_line,
        b'{"b": "carriage\rreturn"}\n',
        b"\n",
        b'{"last": true}',
    ]


def test_a_long_line_passes_the_front_in_about_twice_its_size(tmp_path: Path) -> None:
    """A response of 40 MB (read_file of a large document) is held once while its pieces are
    joined, not copied again for every step of the split."""
    import tracemalloc

    from minirag_mcp.early_front import lines_of

    size = 40 << 20
    source = tmp_path / "lines"
    source.write_bytes(b"y" * size + b"\n" + b'{"next": 1}\n')
    fd = os.open(source, os.O_RDONLY)
    tracemalloc.start()
    try:
        lengths = [len(line) for line in lines_of(fd)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        os.close(fd)
    assert lengths == [size + 1, len(b'{"next": 1}\n')]
    assert peak <= 2.2 * size, f"{peak >> 20} MiB for a line of {size >> 20} MiB"


def test_once_the_handshake_is_over_a_long_line_goes_out_as_it_is_read(tmp_path: Path) -> None:
    from minirag_mcp.early_front import LONG_LINE, READ_SIZE, line_pieces

    long_line = b'{"text": "' + b"z" * (3 * LONG_LINE) + b'"}\n'
    source = tmp_path / "lines"
    source.write_bytes(b'{"first": 1}\n' + long_line + b'{"after": 2}\n')
    fd = os.open(source, os.O_RDONLY)
    try:
        pieces = list(line_pieces(fd, lambda: True))
    finally:
        os.close(fd)
    assert pieces[0] == (b'{"first": 1}\n', True)
    assert pieces[-1] == (b'{"after": 2}\n', True)
    middle = pieces[1:-1]
    assert b"".join(piece for piece, _ in middle) == long_line
    assert [ends for _, ends in middle] == [False] * (len(middle) - 1) + [True]
    assert max(len(piece) for piece, _ in middle) <= LONG_LINE + READ_SIZE
