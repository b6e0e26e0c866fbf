"""Document labels through the real tools and the CLI.

The choice model is a fake plug-in registered through monkeypatched entry points, so these
tests run in the base session. The last tests need no plug-in at all: a corpus without a
classify.toml must look exactly as it did before labels existed.
"""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.server import create_app
from testsupport.classify import FakePlugin, register
from testsupport.mcp import call, cli, error_of, synced

TOML = """
[model]
path = "/nowhere/choice.gguf"
temperature = 1.0

[facets.project]
default = "main"
values.main = { description = "The main product." }
values.garden = { description = "Garden notes.", paths = ["garden"] }

[facets.type]
values.minutes = { description = "Minutes." }
values.mail = { description = "Mail." }
values.report = { description = "Report." }
"""

LABEL_KEYS = {"labels", "date", "dateSource", "filterCounts", "filterNotice", "labelProblem"}


class FakeModel:
    def __init__(self) -> None:
        self.closed = False

    def ask(self, question: str, options: Sequence[tuple[str, str]], head: str, name):
        assert not self.closed
        if "Meeting notes" in head or "Attendees" in head:
            return {"minutes": 0.95, "mail": 0.03, "report": 0.02}
        if "tomatoes" in head.lower():
            return {"minutes": 0.35, "mail": 0.05, "report": 0.6}  # uncertain, runner-up minutes
        return {"minutes": 0.02, "mail": 0.03, "report": 0.95}

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> FakePlugin:
    found = FakePlugin(FakeModel)
    register(monkeypatch, found)
    return found


@pytest.fixture
def taxonomy(docs: Path) -> Path:
    path = docs / ".minirag" / "classify.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TOML, encoding="utf-8")
    # Dates: alpha.md from its header, the others from their file times; only a text
    # document (ingest_data) can be undated.
    (docs / "alpha.md").write_text(
        "Date: 2026-08-05\n\n" + (docs / "alpha.md").read_text(), encoding="utf-8"
    )
    os.utime(docs / "notes.txt", (1_780_000_000, 1_780_000_000))  # 2026-05-28
    os.utime(docs / "garden" / "tomatoes.md", (1_767_225_600, 1_767_225_600))  # 2026-01-01
    return path


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def keys_anywhere(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_anywhere(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_anywhere(v)}
    return set()


def test_filters_through_the_tools(env: dict, docs: Path, taxonomy: Path, plugin) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            report = await synced(client)
            assert report["state"] == "succeeded" and report["counts"]["ingested"] == 3
            assert len(plugin.models) == 1 and plugin.models[0].closed  # released by the job
            await call(client, "ingest_data", {"source": "memo", "content": "A short memo."})

            # Labels and dates on every row.
            found = await call(client, "query_documents", {"query": "alpha protocol port"})
            alpha = next(s for s in found["sources"] if s["displayPath"] == "alpha.md")
            assert alpha["date"] == "2026-08-05" and alpha["dateSource"] == "document"
            assert alpha["labels"]["project"]["value"] == "main"
            assert alpha["labels"]["type"] == {
                "value": "report",
                "confidence": 0.95,
                "source": "model",
                "runnerUp": "mail",
                "uncertain": False,
            }
            assert "filterCounts" not in found

            # A label filter restricts the search itself; soft matching admits the uncertain
            # tomatoes report, whose runner-up is minutes.
            minutes = await call(
                client, "query_documents", {"query": "notes", "labels": {"type": "minutes"}}
            )
            shown = {s["displayPath"] for s in minutes["sources"]}
            assert shown == {"notes.txt", "garden/tomatoes.md"}
            assert minutes["filterCounts"] == {"unlabelled": 0, "undated": 0}
            either = await call(
                client,
                "query_documents",
                {"query": "port", "labels": {"type": ["minutes", "report"], "project": "main"}},
            )
            assert {s["displayPath"] for s in either["sources"]} == {"alpha.md", "notes.txt"}

            # find_mentions takes the same filter: it narrows the documents searched.
            everywhere = await call(client, "find_mentions", {"terms": ["the"], "match": "any"})
            narrowed = await call(
                client,
                "find_mentions",
                {"terms": ["the"], "match": "any", "labels": {"type": "minutes"}},
            )
            assert narrowed["searchedDocuments"] == 2 < everywhere["searchedDocuments"]
            assert {d["displayPath"] for d in narrowed["documents"]} <= shown
            assert narrowed["filterCounts"] == {"unlabelled": 0, "undated": 0}
            assert all("labels" in d for d in narrowed["documents"])

            # Dates: inclusive range; the undated memo is counted, not silently dropped.
            dated = await call(
                client,
                "query_documents",
                {"query": "memo alpha notes", "dateFrom": "2026-08-01", "dateTo": "2026-08-05"},
            )
            assert {s["displayPath"] for s in dated["sources"]} == {"alpha.md"}
            assert dated["filterCounts"]["undated"] >= 1

            # Refusals name what is valid.
            message = await error_of(
                client, "query_documents", {"query": "x", "labels": {"kind": "minutes"}}
            )
            assert "unknown facet 'kind'" in message and "project, type" in message
            message = await error_of(
                client, "query_documents", {"query": "x", "labels": {"type": "memo"}}
            )
            assert "unknown value 'memo'" in message and "minutes, mail, report" in message
            message = await error_of(client, "list_files", {"dateFrom": "05.08.2026"})
            assert "YYYY-MM-DD" in message

            # list_files: the same filter, and newest first.
            listed = await call(client, "list_files", {"labels": {"project": "garden"}})
            assert [r["displayPath"] for r in listed["files"]] == ["garden/tomatoes.md"]
            assert listed["filterCounts"] == {"unlabelled": 0, "undated": 0}
            by_date = await call(client, "list_files", {"sort": "date"})
            order = [r["displayPath"] for r in by_date["files"]]
            assert order == ["alpha.md", "notes.txt", "garden/tomatoes.md", "memo"]
            assert by_date["files"][-1]["date"] is None
            assert "filterCounts" not in by_date

            # status: the labels block.
            status = await call(client, "status")
            block = status["labels"]
            assert block["model"] == "on demand" and "modelHint" not in block
            counts = {v["id"]: v["count"] for v in block["facets"]["type"]["values"]}
            assert counts == {"minutes": 1, "mail": 0, "report": 3}  # the memo too
            assert block["facets"]["type"]["uncertain"] == 1
            assert block["facets"]["type"]["unlabelled"] == 0
            assert block["facets"]["type"]["question"] == "What kind of document is this?"
            assert block["undated"] >= 1

    run(go())


def test_unlabelled_documents_are_counted(
    env: dict, docs: Path, taxonomy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register(monkeypatch, None)  # no [classify] extra

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            report = await synced(client)
            assert report["state"] == "succeeded" and report["counts"]["failed"] == 0
            assert any("[classify] extra" in e["reason"] for e in report["errors"])

            status = await call(client, "status")
            assert status["labels"]["model"] == "unavailable"
            assert "[classify]" in status["labels"]["modelHint"]
            assert status["labels"]["facets"]["type"]["unlabelled"] == 3
            assert status["labels"]["facets"]["project"]["unlabelled"] == 0

            found = await call(
                client, "query_documents", {"query": "notes", "labels": {"type": "minutes"}}
            )
            assert found["sources"] == []
            assert found["filterCounts"]["unlabelled"] == 3
            assert "unavailable" in found["filterNotice"]
            # Path and default facets still filter.
            garden = await call(
                client, "query_documents", {"query": "sun", "labels": {"project": "garden"}}
            )
            assert {s["displayPath"] for s in garden["sources"]} == {"garden/tomatoes.md"}
            assert "filterNotice" not in garden

            ingested = await call(client, "ingest_file", {"filePath": str(docs / "notes.txt")})
            assert "[classify] extra" in ingested["labelProblem"]
            data = await call(client, "ingest_data", {"source": "m", "content": "Some memo."})
            assert "type" in data["labelProblem"]

    run(go())


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html><head><title>Minutes</title></head><body><p>Attendees: Ann.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_every_tool_ingest_labels(
    env: dict, docs: Path, taxonomy: Path, plugin, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALLOW_PRIVATE_URLS", "true")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            result = await call(client, "ingest_file", {"filePath": str(docs / "notes.txt")})
            assert "labelProblem" not in result
            await call(client, "ingest_data", {"source": "memo", "content": "Attendees: Bo."})
            url = f"http://127.0.0.1:{server.server_port}/minutes"
            await call(client, "ingest_url", {"url": url})
            listed = await call(client, "list_files", {"labels": {"type": "minutes"}})
            names = {r["displayPath"] for r in listed["files"]}
            assert names == {"notes.txt", "memo", url}
            # One job per tool call: each loaded the model and released it.
            assert len(plugin.models) == 3 and all(m.closed for m in plugin.models)

    try:
        run(go())
    finally:
        server.shutdown()


def test_cli_labels(
    env: dict,
    docs: Path,
    taxonomy: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plugin = FakePlugin(FakeModel)
    register(monkeypatch, plugin)
    code, out, err = cli(capsys, "ingest", str(docs))
    assert code == 0, err
    assert len(plugin.models) == 1 and plugin.models[0].closed  # one job for the folder

    async def memo() -> None:
        async with Client(create_app(load_config({}))) as client:
            await call(client, "ingest_data", {"source": "memo", "content": "An undated memo."})

    run(memo())

    code, out, err = cli(
        capsys, "query", "notes", "--label", "type=minutes", "--label", "type=mail"
    )
    assert code == 0, err
    assert "notes.txt  2026-05-28 (file)" in out and "type=minutes (model 0.95)" in out
    code, out, err = cli(capsys, "list", "--sort", "date")
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.strip()]
    assert "alpha.md" in lines[0] and "2026-08-05 (document)" in lines[0]
    code, out, err = cli(capsys, "list", "--date-from", "2026-08-01", "--json")
    payload = json.loads(out)
    assert [r["displayPath"] for r in payload["files"]] == ["alpha.md"]
    assert payload["filterCounts"]["undated"] == 1
    code, out, err = cli(capsys, "list", "--date-from", "2026-08-01")
    assert "warn: 1 document in scope was left out for lacking a date" in err
    code, out, err = cli(capsys, "query", "x", "--label", "type")
    assert code == 1 and "facet=value" in err

    code, out, err = cli(capsys, "classify", "try", str(docs / "notes.txt"))
    assert code == 0, err
    assert "type: minutes  0.95 model" in out and "date: 2026-05-28 (file)" in out
    code, out, err = cli(capsys, "classify", "try", str(docs / "notes.txt"), "--json")
    assert json.loads(out)["facets"]["project"]["source"] == "default"

    register(monkeypatch, None)
    code, out, err = cli(capsys, "classify", "try", str(docs / "notes.txt"))
    assert code == 1 and "warn: type:" in err and "[classify] extra" in err
    code, out, err = cli(capsys, "ingest", str(docs / "alpha.md"))
    assert code == 0 and "warn: stored without a label for type" in err


def test_cli_classify_try_needs_a_taxonomy(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli(capsys, "classify", "try", str(docs / "notes.txt"))
    assert code == 1 and "classify.toml" in err


def test_a_broken_taxonomy_is_reported_and_label_filters_refuse(
    env: dict, docs: Path, taxonomy: Path, plugin
) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            await synced(client)
            taxonomy.write_text(TOML + "\n[facets.type.extra]\n", encoding="utf-8")
            status = await call(client, "status")
            assert "classify.toml" in status["labels"]["error"]
            message = await error_of(
                client, "query_documents", {"query": "x", "labels": {"type": "minutes"}}
            )
            assert message == status["labels"]["error"]
            # The file is re-read when it changes: fixed, the filter works again.
            taxonomy.write_text(TOML, encoding="utf-8")
            found = await call(
                client, "query_documents", {"query": "x", "labels": {"type": "minutes"}}
            )
            assert "filterCounts" in found

    run(go())


def test_without_a_taxonomy_nothing_changes(
    env: dict, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Runs in the base session: no classify.toml, no label key anywhere."""

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            report = await synced(client)
            assert report["counts"]["relabelled"] == 0
            data = await call(client, "ingest_data", {"source": "memo", "content": "A memo."})
            payloads = [
                report,
                data,
                await call(client, "status"),
                await call(client, "query_documents", {"query": "notes"}),
                await call(client, "list_files"),
                await call(client, "ingest_file", {"filePath": str(docs / "notes.txt")}),
            ]
            for payload in payloads:
                assert not keys_anywhere(payload) & LABEL_KEYS, payload
            for args in ({"labels": {"type": "minutes"}}, {"dateFrom": "2026-01-01"}):
                message = await error_of(client, "query_documents", {"query": "x", **args})
                assert "classify.toml" in message
            message = await error_of(client, "list_files", {"sort": "date"})
            assert "classify.toml" in message

    run(go())
    for args in (["status"], ["list"], ["query", "notes"], ["sync"]):
        code, out, err = cli(capsys, *args, "--json")
        assert code == 0, err
        assert not keys_anywhere(json.loads(out)) & LABEL_KEYS
    code, out, err = cli(capsys, "list")
    assert "undated" not in out and "(file)" not in out


def test_cli_json_is_the_tools_structured_content_with_labels(
    env: dict,
    docs: Path,
    taxonomy: Path,
    plugin: FakePlugin,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def tools() -> dict[str, Any]:
        async with Client(create_app(load_config({}))) as client:
            assert (await synced(client))["state"] == "succeeded"
            return {
                "list": await call(client, "list_files", {"sort": "date"}),
                "query": await call(client, "query_documents", {"query": "notes budget"}),
                "find": await call(
                    client, "find_mentions", {"terms": ["the"], "labels": {"type": "minutes"}}
                ),
            }

    async def fresh_status() -> dict[str, Any]:  # a server that has not loaded the model yet
        async with Client(create_app(load_config({}))) as client:
            return await call(client, "status")

    sent = run(tools())
    sent["status"] = run(fresh_status())
    assert sent["list"]["files"][0]["labels"]["project"]["source"] in ("path", "default")
    commands = {
        "list": ["list", "--sort", "date"],
        "query": ["query", "notes budget"],
        "find": ["find", "the", "--label", "type=minutes"],
        "status": ["status"],
    }
    for name, args in commands.items():
        code, out, err = cli(capsys, *args, "--json")
        assert code == 0, (name, err)
        assert json.loads(out) == sent[name], name
