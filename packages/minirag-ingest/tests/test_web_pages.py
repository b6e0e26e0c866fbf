"""ingest_url converts with markitdown's own URL handling (feeds, pages, typed downloads),
fetched through our guarded transport; real pages served by a loopback server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from minirag_index import rebuild_document
from testsupport.loopback import file_server

FILES = Path(__file__).parent / "files" / "markitdown"
HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>\n]*)?/?>")


@pytest.fixture
def fetching(make_pipeline, docs):
    return make_pipeline(docs, allow_private_urls=True)


def chunk_texts(pipeline, source: str) -> list[str]:
    return [c.text for c in pipeline.index.source_chunks(source)]


def test_an_rss_feed_is_indexed_as_its_items_text(fetching):
    with file_server() as server:
        server.files["feed"] = (FILES / "test_rss.xml").read_bytes()
        server.types["feed"] = "application/rss+xml; charset=utf-8"
        # What ingest_url stores, without embedding its ~700 chunks.
        prepared = fetching.prepare_url(f"{server.url}/feed", source_id="blog-feed")
    assert prepared.doc.title == "The Official Microsoft Blog"
    assert prepared.doc.source_type == "url"
    assert [c.text for c in prepared.chunks if HTML_TAG.search(c.text)] == []
    document = rebuild_document(prepared.chunks)
    # Each item: its title as a heading, its date, its text.
    assert "## Ignite 2024: Why nearly 70% of the Fortune 500 now use Microsoft 365 Copilot" in (
        document
    )
    assert "Published on: Tue, 19 Nov 2024" in document
    assert "AI Customer Stories from FY25 Q1" in document  # was <u>…</u> in the feed
    assert "&lt;" not in document and "<p>" not in document


def test_an_html_page_keeps_no_tag_and_its_title(fetching):
    with file_server() as server:
        server.files["blog/post"] = (FILES / "test_blog.html").read_bytes()
        server.types["blog/post"] = "text/html; charset=utf-8"
        result = fetching.ingest_url(f"{server.url}/blog/post")
    assert result.title.startswith("Does Model and Inference Parameter Matter in LLM Applications?")
    texts = chunk_texts(fetching, f"{server.url}/blog/post")
    assert texts and [t for t in texts if HTML_TAG.search(t)] == []
    document = fetching.index.read_document(f"{server.url}/blog/post")
    assert "the baseline accuracy of untuned gpt-4 can be improved by 20%" in document


def test_content_type_and_url_suffix_both_choose_the_converter(fetching):
    body = b"name,qty\nbolts,100\nnuts,200\n"
    table = "| name | qty |\n| --- | --- |\n| bolts | 100 |"
    with file_server() as server:
        for path, content_type in [
            ("typed", "text/csv"),  # the Content-Type says CSV
            ("stock.csv", "text/plain"),  # the suffix does
            ("stock", "text/plain"),  # neither: plain text
        ]:
            server.files[path] = body
            server.types[path] = content_type
            fetching.ingest_url(f"{server.url}/{path}", source_id=path)
    assert table in fetching.index.read_document("typed")
    assert table in fetching.index.read_document("stock.csv")
    assert fetching.index.read_document("stock") == body.decode().strip()


def test_the_host_guard_still_refuses_loopback(make_pipeline, docs):
    with file_server() as server:
        server.files["feed"] = (FILES / "test_rss.xml").read_bytes()
        with pytest.raises(Exception, match=r"Refusing to fetch from host 127\.0\.0\.1"):
            make_pipeline(docs).ingest_url(f"{server.url}/feed")
        assert server.requests == []  # refused before anything was sent
