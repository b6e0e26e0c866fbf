"""Hybrid search through a real index and the real (small) embedding model."""

from __future__ import annotations

import subprocess
import sys

import pytest

from minirag_index import MAX_TOP_K, ChunkInput, SourceDoc

DISTRACTORS = [
    "The export job failed because the network connection timed out.",
    "Timeouts during export usually mean the database is overloaded.",
    "An error message appears when the export cannot reach the server.",
    "Check the logs when an export error is reported by the scheduler.",
    "Error handling in the export pipeline retries three times.",
    "The server reports a failure code when the export is cancelled.",
    "Most export errors are caused by an expired access token.",
    "A failed export leaves a partial file in the output folder.",
]


def add(index, source, *texts, title=""):
    chunks = [ChunkInput(t, joiner="" if i == 0 else "\n\n") for i, t in enumerate(texts)]
    index.add_source(SourceDoc(source, title=title), chunks)


def test_exact_identifier_found_only_by_keywords_is_in_hybrid_top_5(make_index):
    index = make_index()
    for i, text in enumerate(DISTRACTORS * 3):
        add(index, f"/docs/export/{i}.md", text)
    add(index, "/docs/codes.md", "Reference code ERR-4711 belongs to the invoice archive.")
    index.refresh()
    for query in ("ERR-4711", "meaning of ERR-4711"):
        hybrid = index.search(query, top_k=5)
        assert "/docs/codes.md" in [h.source for h in hybrid.hits], query
    # Make the vector side blind to it, as a model that does not know the code would be.
    real_vector_rows = index.vector_rows

    def vector_rows_without_code(*args):
        return [r for r in real_vector_rows(*args) if r["source"] != "/docs/codes.md"]

    index.vector_rows = vector_rows_without_code
    hits = index.search("meaning of ERR-4711", top_k=5).hits
    assert "/docs/codes.md" in [h.source for h in hits]
    assert next(h for h in hits if h.source == "/docs/codes.md").distance is None
    keyword_only = make_index(RAG_HYBRID_WEIGHT=1.0).search("ERR-4711", top_k=5)
    assert keyword_only.hits[0].source == "/docs/codes.md"
    assert keyword_only.hits[0].distance is None  # ranked by BM25 alone


def test_fused_scores_follow_the_formula(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=0.6)
    add(index, "/d/a.md", "alpha beta gamma")
    add(index, "/d/b.md", "delta epsilon")
    index.refresh()
    result = index.search("alpha beta gamma", top_k=2)
    top = result.hits[0]
    assert top.source == "/d/a.md"
    assert top.score == pytest.approx(0.4 / 61 + 0.6 / 61)
    assert result.keyword_error is None


def test_weight_zero_runs_no_keyword_search(make_index, monkeypatch):
    index = make_index(RAG_HYBRID_WEIGHT=0.0)
    add(index, "/d/a.md", "alpha")
    called = []
    monkeypatch.setattr(index.store, "keyword_search", lambda *a: called.append(a) or [])
    index.search("alpha")
    assert called == []


def test_a_failing_keyword_side_is_reported(make_index, monkeypatch):
    index = make_index()
    add(index, "/d/a.md", "alpha")

    def broken(*args, **kwargs):
        raise RuntimeError("index file missing")

    monkeypatch.setattr(index.store, "keyword_search", broken)
    result = index.search("alpha")
    assert result.hits  # the vector side still answers
    assert "index file missing" in result.keyword_error


def test_top_k_bounds(make_index):
    index = make_index()
    add(index, "/d/a.md", *[f"note number {i}" for i in range(3)])
    with pytest.raises(ValueError, match="at least 1"):
        index.search("note", top_k=0)
    with pytest.raises(ValueError):
        index.search("note", top_k=-3)
    assert len(index.search("note", top_k=1000).hits) == 3  # clamped, not refused
    assert MAX_TOP_K == 100


def test_scope_never_matches_a_sibling_with_the_same_prefix(make_index):
    index = make_index()
    add(index, "/docs/proj/notes.md", "quarterly budget figures")
    add(index, "/docs/project-secret/x.md", "quarterly budget figures, secret")
    index.refresh()
    result = index.search("quarterly budget", scope="/docs/proj")
    assert {h.source for h in result.hits} == {"/docs/proj/notes.md"}
    assert index.search("budget", scope="/docs/nothing-here").notice


def test_empty_index_says_so(make_index):
    result = make_index().search("anything")
    assert result.hits == [] and "empty" in result.notice


def test_three_hits_in_one_section_return_that_section_once(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    section = [
        ChunkInput("## Billing\n\nInvoices are sent monthly.", section=0),
        ChunkInput("Billing > Invoices are paid within 30 days.", context_chars=10, joiner="\n\n"),
        ChunkInput("Billing > Late invoices get a reminder.", context_chars=10, joiner="\n\n"),
    ]
    other = ChunkInput("## Travel\n\nTrains are booked early.", section=1)
    index.add_source(SourceDoc("/d/policy.md"), [*section, ChunkInput(other.text, section=1)])
    index.refresh()
    result = index.search("invoices", top_k=5)
    invoice_hits = [h for h in result.hits if "nvoice" in h.text]
    assert len(invoice_hits) == 3
    assert len({h.parent_id for h in invoice_hits}) == 1
    assert result.parents[invoice_hits[0].parent_id] == (
        "## Billing\n\nInvoices are sent monthly.\n\n"
        "Invoices are paid within 30 days.\n\nLate invoices get a reminder."
    )
    assert [s.hits for s in result.sources] == [3]


def test_grouping_and_max_files_apply(make_index):
    index = make_index(RAG_MAX_FILES=1)
    add(index, "/d/a.md", "red apples", "green apples")
    add(index, "/d/b.md", "apples and pears")
    index.refresh()
    result = index.search("apples", top_k=10)
    assert len({h.source for h in result.hits}) == 1


def test_parents_follow_a_replaced_source(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    add(index, "/d/a.md", "## Plan\n\nThe launch is in May.")
    assert "May" in index.search("launch").parents.popitem()[1]
    add(index, "/d/a.md", "## Plan\n\nThe launch moved to June.")
    assert "June" in index.search("launch").parents.popitem()[1]


def test_a_search_reads_the_table_version_once(make_index, monkeypatch):
    """Every read of the version asks the storage for the latest one (a round trip on S3); a
    search reads it once and hands it on, and still sees a write made just before it."""
    index = make_index()
    add(index, "/d/a.md", "## Plan\n\nThe launch is in May.", *DISTRACTORS)
    index.search("launch")  # the views of this version are built
    reads = []
    original = index.store.version

    def counting():
        reads.append(1)
        return original()

    monkeypatch.setattr(index.store, "version", counting)
    result = index.search("launch")
    assert len(reads) == 1
    assert "May" in result.parents[result.hits[0].parent_id]
    add(index, "/d/a.md", "## Plan\n\nThe launch moved to June.")
    reads.clear()
    result = index.search("launch")
    assert len(reads) == 1
    assert "June" in result.parents[result.hits[0].parent_id]


def _counting_section_reads(index, monkeypatch) -> list[str | None]:
    reads: list[str | None] = []
    real = index.store.chunks

    def chunks(where):
        reads.append(where)
        return real(where)

    monkeypatch.setattr(index.store, "chunks", chunks)
    return reads


def test_a_small_index_reads_its_sections_once_per_version(make_index, monkeypatch):
    """A small table's sections are read whole by the first search of a version (each search
    reading its hits' sections was a LanceDB query of its own); an edit is seen at once."""
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    add(index, "/d/a.md", "## Plan\n\nThe launch is in May.", "## Team\n\nAnna leads it.")
    add(index, "/d/b.md", "## Budget\n\nThe budget is small.")
    reads = _counting_section_reads(index, monkeypatch)
    for query in ("launch", "budget", "Anna", "launch"):
        assert index.search(query, top_k=3).parents
    assert reads == [None]
    add(index, "/d/a.md", "## Plan\n\nThe launch moved to June.")
    assert "June" in index.search("launch", top_k=1).parents.popitem()[1]
    assert reads == [None, None]


def test_a_larger_index_reads_only_the_sections_its_hits_need(make_index, monkeypatch):
    from minirag_index.search import sections

    monkeypatch.setattr(sections, "WHOLE_TABLE_SECTIONS", 2)
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    add(index, "/d/a.md", "## Plan\n\nThe launch is in May.", "## Team\n\nAnna leads it.")
    add(index, "/d/b.md", "## Budget\n\nThe budget is small.")
    reads = _counting_section_reads(index, monkeypatch)
    result = index.search("budget", top_k=1)
    assert result.parents.popitem()[1] == "## Budget\n\nThe budget is small."
    assert len(reads) == 1 and reads[0] is not None and "parent_id IN" in reads[0]


@pytest.mark.parametrize("weight", [0.0, 1.0], ids=["vector side", "keyword side"])
def test_each_side_sees_what_another_writer_and_an_optimisation_left(make_index, weight):
    """The searches run on LanceDB's async table (storage/searches.py): it must see a commit
    of another writer at once, and the table the store opens again after optimising."""
    reader = make_index(RAG_HYBRID_WEIGHT=weight)
    writer = make_index(RAG_HYBRID_WEIGHT=weight)
    add(writer, "/d/a.md", "## Plan\n\nThe launch is in May.", *DISTRACTORS)
    assert reader.search("launch in May").hits[0].source == "/d/a.md"
    add(writer, "/d/b.md", "## Harvest\n\nThe orchard harvest starts in September.")
    assert reader.search("orchard harvest September").hits[0].source == "/d/b.md"
    reader.store.optimize()
    add(reader, "/d/c.md", "## Regatta\n\nThe sailing regatta is held on the lake.")
    assert reader.search("sailing regatta lake").hits[0].source == "/d/c.md"
    writer.delete_source("/d/b.md")
    assert "/d/b.md" not in {hit.source for hit in reader.search("orchard harvest").hits}


def test_searches_share_one_event_loop_thread_started_by_the_first(tmp_path, embedder):
    code = f"""
import threading
from minirag_index import Embedder, IndexSettings, MiniragIndex, ChunkInput, SourceDoc

def searching():
    return [t for t in threading.enumerate() if t.name == "minirag-search"]

embedder = Embedder({embedder.model_name!r}, {str(embedder.cache_dir)!r})
indexes = [
    MiniragIndex(IndexSettings(DB_PATH={str(tmp_path)!r} + f"/db{{n}}",
                 MODEL_NAME=embedder.model_name, CACHE_DIR=embedder.cache_dir), embedder=embedder)
    for n in range(2)
]
for index in indexes:
    index.add_source(SourceDoc("/d/a.md"), [ChunkInput("The launch is in May.")])
assert not searching(), "a thread before any search"
for index in indexes:
    assert index.search("launch").hits
assert len(searching()) == 1, searching()
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
