"""Ingesting files and content for real: what ends up in the index."""

from __future__ import annotations

import http.server
import threading

import pytest

from minirag_index import ChunkInput
from minirag_ingest.document.pipeline import IngestRefused, with_title_line
from minirag_ingest.files.roots import PathOutsideRoots


def test_ingest_file_stores_title_date_and_chunks(pipeline, docs):
    note = docs / "SPEC-112_Warehouse stock.md"
    note.write_text(
        "# 1. General provisions\n\nDate: 2026-08-05\n\nStock is counted weekly.\n\n"
        "## Counting\n\nEvery shelf is scanned.\n",
        encoding="utf-8",
    )
    result = pipeline.ingest_file(note)
    assert result.title == "SPEC-112 Warehouse stock"
    info = pipeline.index.sources()[str(note)]
    assert info.doc_date == "2026-08-05" and info.date_source == "document"
    assert info.signature is not None and info.content_hash
    chunks = pipeline.index.source_chunks(str(note))
    assert chunks[0].text.startswith("# SPEC-112 Warehouse stock\n")
    text = pipeline.index.read_document(str(note))
    assert "# SPEC-112 Warehouse stock" not in text  # the seeded title is context, not content
    assert "Every shelf is scanned." in text
    hits = pipeline.index.search("SPEC-112").hits
    assert hits and hits[0].source == str(note)


def test_reingest_is_idempotent(pipeline, docs):
    note = docs / "Quarterly report.md"
    note.write_text("# Quarterly report\n\nRevenue grew.\n\n## Costs\n\nCosts fell.\n")
    first = pipeline.ingest_file(note)
    before = [(c.chunk_index, c.text) for c in pipeline.index.source_chunks(str(note))]
    second = pipeline.ingest_file(note)
    after = [(c.chunk_index, c.text) for c in pipeline.index.source_chunks(str(note))]
    assert first == second and before == after


def test_title_line_is_added_once():
    chunks = [ChunkInput("Body text.")]
    seeded = with_title_line(chunks, "Report")
    assert seeded[0].text == "# Report\n\nBody text." or seeded[0].text.startswith("# Report")
    assert seeded[0].text[seeded[0].context_chars :] == "Body text."
    assert with_title_line(seeded, "Report") == seeded


def test_the_title_line_never_pushes_chunk_zero_over_the_budget(token_counter):
    body = "- " * 53  # 106 tokens of dashes, one token each
    budget = token_counter(body) + 6
    [full] = with_title_line([ChunkInput(body)], "Pumps", token_counter, budget)
    assert full.text.startswith("# Pumps\n\n")
    [short] = with_title_line(
        [ChunkInput(body)], "Pumps and valves of the Riverside station", token_counter, budget
    )
    assert short.text.startswith("# Pumps") and "…" in short.text[: short.context_chars]
    assert token_counter(short.text) <= budget
    [bare] = with_title_line([ChunkInput(body)], "Pumps", token_counter, token_counter(body))
    assert bare.text == body


def test_refusals(pipeline, docs, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    with pytest.raises(PathOutsideRoots, match="Path outside configured document roots"):
        pipeline.ingest_file(outside)
    (docs / "image.gif").write_bytes(b"GIF89a")
    with pytest.raises(IngestRefused, match="unsupported"):
        pipeline.ingest_file(docs / "image.gif")
    (docs / ".miniragignore").write_text("drafts/\n")
    (docs / "drafts").mkdir()
    (docs / "drafts" / "x.md").write_text("draft")
    with pytest.raises(IngestRefused, match=r"\.miniragignore"):
        pipeline.ingest_file(docs / "drafts" / "x.md")


def test_symlink_escaping_the_root_is_refused(pipeline, docs, tmp_path):
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    (docs / "notes.md").symlink_to(secret)
    with pytest.raises(PathOutsideRoots):
        pipeline.ingest_file(docs / "notes.md")


def test_ingest_data_uses_only_a_real_title(pipeline):
    result = pipeline.ingest_data("notes/plain", "just some words about tea", "text")
    assert result.title == ""
    assert pipeline.index.source_chunks("notes/plain")[0].text == "just some words about tea"
    titled = pipeline.ingest_data("notes/html", "<html><title>Tea guide</title><p>Brew</p>", "html")
    assert titled.title == "Tea guide"


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html><head><title>Release notes</title></head><body><p>Version 2 ships.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_ingest_url_from_a_loopback_server(make_pipeline, docs):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/notes"
        guarded = make_pipeline(docs)
        with pytest.raises(Exception, match="Refusing to fetch from host"):
            guarded.ingest_url(url)
        pipeline = make_pipeline(docs, allow_private_urls=True)
        result = pipeline.ingest_url(url, source_id="release-notes")
        assert result.title == "Release notes" and result.source_type == "url"
        assert "Version 2 ships." in pipeline.index.read_document("release-notes")
        with pytest.raises(Exception, match="file"):
            pipeline.ingest_url("file:///etc/passwd")
    finally:
        server.shutdown()


def test_pages_for_a_pdf(pipeline, docs, make_pdf):
    target = docs / "stock policy.pdf"
    target.write_bytes(make_pdf(["Scope of the stock policy", "Counting rules apply weekly"]))
    pipeline.ingest_file(target)
    pages = {c.text[c.context_chars :]: c.pages for c in pipeline.index.source_chunks(str(target))}
    assert "1" in pages.values() or "1-2" in pages.values()
    hit = pipeline.index.search("Counting rules", top_k=1).hits[0]
    assert hit.pages in {"2", "1-2"}


def test_find_mentions_counts_a_heading_where_it_is_written(pipeline, docs):
    body = " ".join(f"Sentence {i} is about widgets and their gears." for i in range(40))
    path = docs / "handbook.md"
    path.write_text(f"# Handbook\n\n## Part A\n\n{body}\n\n## Part B\n\n{body}\n", encoding="utf-8")
    pipeline.ingest_file(path)
    chunks = pipeline.index.source_chunks(str(path))
    assert sum("Part A" in c.text[: c.context_chars] for c in chunks) >= 2  # breadcrumbs repeat it
    assert pipeline.index.find_mentions(["part a"]).matched_chunks == 1
    assert pipeline.index.find_mentions(["part b"]).matched_chunks == 1
    # The H1 (also the title) is written once; section B names it only in breadcrumbs: once.
    assert pipeline.index.find_mentions(['"handbook"']).matched_chunks == 2
    assert pipeline.index.find_mentions(["widgets"]).matched_chunks == len(chunks)
