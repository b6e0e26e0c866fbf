"""The MCP tools, driven through fastmcp's in-process client."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from minirag_mcp.config import load_config
from minirag_mcp.instructions import POLICY
from minirag_mcp.listing import ocr_engine
from minirag_mcp.server import create_app
from testsupport.mcp import call, error_of, synced

TOOLS = {
    "sync_start",
    "sync_status",
    "ingest_file",
    "ingest_data",
    "ingest_url",
    "query_documents",
    "find_mentions",
    "read_chunk_neighbors",
    "read_file",
    "list_files",
    "delete_file",
    "status",
}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_twelve_tools_each_described(env: dict) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            tools = await client.list_tools()
            assert {t.name for t in tools} == TOOLS
            for tool in tools:
                assert tool.description and len(tool.description) > 80, tool.name
            query = next(t for t in tools if t.name == "query_documents")
            for phrase in ("Sources", "displayPath", "no links"):
                assert phrase in query.description
            assert set(query.input_schema["properties"]) == {
                "query",
                "topK",
                "scope",
                "labels",
                "dateFrom",
                "dateTo",
            }
            neighbors = next(t for t in tools if t.name == "read_chunk_neighbors")
            assert {"filePath", "chunkIndex", "before", "after"} <= set(
                neighbors.input_schema["properties"]
            )
            assert client.instructions.startswith(POLICY)

    run(go())


def unnamed_objects(schema: dict, node: Any = None, path: str = "") -> list[str]:
    """Where an output schema has an object without named properties, or an untyped value."""
    node = schema if node is None else node
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    found: list[str] = []
    for option in node.get("anyOf", []):
        found += unnamed_objects(schema, option, path)
    kind = node.get("type")
    if kind == "array":
        found += unnamed_objects(schema, node.get("items", {}), path + "[]")
    elif kind == "object":
        values = node.get("additionalProperties")
        if isinstance(values, dict):  # a map: facet names, parent ids
            found += unnamed_objects(schema, values, path + "{}")
        elif not node.get("properties"):
            found.append(path or "(top)")
        for name, item in node.get("properties", {}).items():
            found += unnamed_objects(schema, item, f"{path}.{name}")
    elif not kind and not node.get("anyOf") and "const" not in node:
        found.append(path)
    return found


def test_every_tool_publishes_an_output_schema_with_named_properties(env: dict) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            for tool in await client.list_tools():
                schema = tool.output_schema
                assert schema is not None and schema["type"] == "object", tool.name
                assert schema["properties"] and schema["required"], tool.name
                assert unnamed_objects(schema) == [], tool.name
            query = next(
                t.output_schema for t in await client.list_tools() if t.name == "query_documents"
            )
            hit = query["properties"]["hits"]["items"]
            if "$ref" in hit:
                hit = query["$defs"][hit["$ref"].rsplit("/", 1)[-1]]
            assert {"chunkIndex", "parentId", "distance"} <= set(hit["properties"])

    run(go())


def test_append_reaches_the_client(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_INSTRUCTIONS_APPEND", "When a question names SOP-114, search.")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            assert client.instructions.endswith("\n\nWhen a question names SOP-114, search.")
            assert len(client.instructions) <= 2048

    run(go())


@pytest.mark.ocr
def test_round_trip(env: dict, docs: Path) -> None:
    alpha = str(docs / "alpha.md")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            empty = await call(client, "query_documents", {"query": "timeouts"})
            assert empty["hits"] == [] and "notice" in empty

            status = await synced(client)
            assert status["state"] == "succeeded", status
            assert set(status) >= {"jobId", "state", "counts", "errors", "progress"}
            assert status["counts"]["ingested"] == 3 and status["counts"]["failed"] == 0
            assert status["progress"] == {"done": 3, "total": 3}

            found = await call(
                client, "query_documents", {"query": "alpha protocol port timeout", "topK": 3}
            )
            top = found["hits"][0]
            assert top["source"] == alpha
            assert set(top) >= {"text", "source", "title", "chunkIndex", "score", "parentId"}
            assert top["parentId"] in found["parents"]
            assert found["sources"][0] == {
                "source": alpha,
                "title": "Alpha protocol",
                "hits": found["sources"][0]["hits"],
                "displayPath": "alpha.md",
            }
            nested = await call(
                client, "query_documents", {"query": "tomatoes", "scope": str(docs / "garden")}
            )
            assert [s["displayPath"] for s in nested["sources"]] == ["garden/tomatoes.md"]

            around = await call(
                client,
                "read_chunk_neighbors",
                {"filePath": alpha, "chunkIndex": 0, "before": 0, "after": 1},
            )
            assert [c["chunkIndex"] for c in around["chunks"]] == [0, 1]
            assert around["chunks"][0]["isTarget"] is True

            whole = await call(client, "read_file", {"filePath": alpha})
            assert set(whole) == {"source", "title", "text", "offset", "totalChars"}
            assert whole["totalChars"] == len(whole["text"])
            assert "E-1234" in whole["text"] and whole["text"].count("# Alpha protocol") == 1

            mentions = await call(client, "find_mentions", {"terms": ["tomato"]})
            assert mentions["matchedDocuments"] == 1 and mentions["searchedDocuments"] == 3
            assert mentions["documents"][0]["displayPath"] == "garden/tomatoes.md"

            listing = await call(client, "list_files")
            states = {row["displayPath"]: row["state"] for row in listing["files"]}
            assert states == dict.fromkeys(
                ["alpha.md", "garden/tomatoes.md", "notes.txt"], "indexed"
            )

            health = await call(client, "status")
            assert health["documents"] == 3 and health["staleChunkCount"] == 0
            if ocr_engine() is None:
                assert health["ocr"] == "unavailable" and "ocrHint" in health
            else:
                assert health["ocr"] == ocr_engine() and "ocrHint" not in health
            assert "unsignedSourceCount" not in health and "configError" not in health

            gone = await call(client, "delete_file", {"filePath": alpha})
            assert gone["source"] == alpha and gone["deleted"] >= 1
            assert "not in the index" in await error_of(client, "read_file", {"filePath": alpha})
            listing = await call(client, "list_files")
            states = {row["displayPath"]: row["state"] for row in listing["files"]}
            assert states["alpha.md"] == "not_indexed"

            copy = (docs / "garden" / "tomatoes.md").read_text(encoding="utf-8")
            (docs / "garden" / "tomatoes-copy.md").write_text(copy, encoding="utf-8")
            await call(client, "ingest_file", {"filePath": str(docs / "garden/tomatoes-copy.md")})
            twins = await call(client, "query_documents", {"query": "tomatoes full sun"})
            first = twins["sources"][0]
            assert first["lookAlikes"][0]["overlap"] >= 0.5
            assert first["lookAlikes"][0]["displayPath"].startswith("garden/tomatoes")

            added = await call(
                client,
                "ingest_data",
                {"source": "memo-7", "content": "The vault code is 9917.", "format": "text"},
            )
            assert added == {"source": "memo-7", "title": "", "chunks": 1}
            again = await call(client, "ingest_file", {"filePath": alpha})
            assert again["source"] == alpha and again["chunks"] >= 1
            memo = await call(client, "read_file", {"source": "memo-7"})
            assert "9917" in memo["text"]

    run(go())


def test_broken_config_keeps_status_answering(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASE_DIRS", "{not json")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            status = await call(client, "status")
            assert set(status) == {"version", "configError"}
            assert "BASE_DIRS" in status["configError"]
            message = await error_of(client, "query_documents", {"query": "anything"})
            assert "BASE_DIRS" in message
            assert "BASE_DIRS" in await error_of(client, "list_files")
            assert "BASE_DIRS" in await error_of(client, "sync_start")

    run(go())


def test_relative_paths_are_refused(env: dict) -> None:
    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            for tool, args in [
                ("ingest_file", {"filePath": "alpha.md"}),
                ("read_file", {"filePath": "alpha.md"}),
                ("delete_file", {"filePath": "./alpha.md"}),
                ("read_chunk_neighbors", {"filePath": "alpha.md", "chunkIndex": 0}),
            ]:
                assert "must be an absolute path" in await error_of(client, tool, args), tool

    run(go())


def test_outside_the_roots_and_bad_arguments_are_tool_errors(env: dict, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# secret\n", encoding="utf-8")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            message = await error_of(client, "ingest_file", {"filePath": str(outside)})
            assert "outside configured document roots" in message
            unknown = await error_of(client, "sync_status", {"jobId": "nope"})
            assert "no sync job 'nope' is known" in unknown
            assert "topK" in await error_of(client, "query_documents", {"query": "x", "topK": 0})
            assert await error_of(client, "ingest_url", {"url": "file:///etc/passwd"})

    run(go())


BILLING = (
    "# Handbook\n\n## Billing\n\n"
    + "\n\n".join(
        f"Invoice rule {n}: " + " ".join(f"{word}{n}" for word in ("alpha", "beta", "gamma") * 25)
        for n in range(3)
    )
    + "\n\n## Travel\n\nTrains are booked a week early.\n"
)


def test_hits_in_one_section_return_that_section_once(env: dict, docs: Path, monkeypatch) -> None:
    monkeypatch.setenv("RAG_HYBRID_WEIGHT", "1.0")
    (docs / "handbook.md").write_text(BILLING, encoding="utf-8")

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            assert (await synced(client))["state"] == "succeeded"
            found = await call(client, "query_documents", {"query": "invoice rule", "topK": 5})
            billing = [h for h in found["hits"] if h["text"].count("Invoice rule")]
            assert len(billing) == 3, [h["text"][:40] for h in found["hits"]]
            [parent] = {h["parentId"] for h in billing}
            section = found["parents"][parent]
            for n in range(3):
                assert section.count(f"Invoice rule {n}:") == 1
            assert section.count("## Billing") == 1
            assert len(found["parents"]) == len({h["parentId"] for h in found["hits"]})

    run(go())


def test_sync_progress_reaches_a_client_that_asked(env: dict, docs: Path) -> None:
    for n in range(12):
        (docs / f"note{n}.md").write_text(f"# Note {n}\n\nSome words about item {n}.\n")
    files = sum(1 for path in docs.rglob("*") if path.is_file())
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    async def go() -> None:
        app = create_app(load_config({}))
        async with Client(app, progress_handler=on_progress) as client:
            assert (await synced(client))["state"] == "succeeded"
            await asyncio.sleep(0.5)  # the last notification may trail the final poll

    run(go())
    assert seen, "no progress notification arrived"
    assert {total for _, total in seen if total} == {files}  # (no total before the scan)
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)  # never goes backwards
    assert seen[-1][0] == files


def test_every_answer_carries_its_data_as_json_text_too(env: dict, docs: Path) -> None:
    """A client that reads only the text content gets the same data as one that reads the
    structured content, and the structured content fits the published output schema."""
    import json

    import jsonschema

    async def go() -> None:
        async with Client(create_app(load_config({}))) as client:
            schemas = {tool.name: tool.output_schema for tool in await client.list_tools()}
            await synced(client)
            first = next(path for path in docs.rglob("*") if path.is_file())
            calls = [
                ("status", {}),
                ("list_files", {}),
                ("query_documents", {"query": "the"}),
                ("find_mentions", {"terms": ["the"]}),
                ("read_file", {"filePath": str(first)}),
                ("read_chunk_neighbors", {"filePath": str(first), "chunkIndex": 0}),
            ]
            for name, args in calls:
                result = await client.call_tool(name, args)
                assert len(result.content) == 1, name
                assert json.loads(result.content[0].text) == result.structured_content, name
                jsonschema.validate(result.structured_content, schemas[name])

    run(go())
