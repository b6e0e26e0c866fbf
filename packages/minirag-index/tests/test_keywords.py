"""The keyword side: Russian word forms match, identifiers stay exact, old indexes upgrade."""

from __future__ import annotations

import pytest
from lancedb.index import FTS

from minirag_index import ChunkInput, SourceDoc

DOCS = {
    "/d/contract.md": "Условия договора поставки и сроки оплаты.",
    "/d/codes.md": "Codes: ERR-4711, QP-7.2 and ТЗ_2024_015 are tracked here.",
    "/d/other.md": "ERR-4712 and QP-7.3 and ТЗ_2024_016 belong to another project.",
    "/d/english.md": "The supplier delivers goods every month.",
}


@pytest.fixture
def keyword_index(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    for source, text in DOCS.items():
        index.add_source(SourceDoc(source), [ChunkInput(text)])
    index.refresh()
    return index


@pytest.mark.parametrize("query", ["договоры", "договоров", "поставками"])
def test_russian_word_forms_match(keyword_index, query):
    assert keyword_index.search(query).hits[0].source == "/d/contract.md"


@pytest.mark.parametrize("query", ["ERR-4711", "QP-7.2", "ТЗ_2024_015", "ТЗ\\_2024\\_015"])
def test_identifiers_rank_their_exact_document_first(keyword_index, query):
    assert keyword_index.search(query).hits[0].source == "/d/codes.md"


def test_english_words_are_untouched(keyword_index):
    assert keyword_index.search("supplier").hits[0].source == "/d/english.md"


def test_an_index_built_with_another_analyser_is_rebuilt_on_open(make_index, tmp_path):
    old = make_index(RAG_HYBRID_WEIGHT=1.0, DB_PATH=tmp_path / "old")
    old.add_source(SourceDoc("/d/contract.md"), [ChunkInput(DOCS["/d/contract.md"])])
    table = old.store.table()
    for column in ("text", "title"):  # what an earlier version built: no stemming
        table.create_index(column, config=FTS(stem=False), replace=True)
    assert not old.search("договоров").hits
    reopened = make_index(RAG_HYBRID_WEIGHT=1.0, DB_PATH=tmp_path / "old")
    assert reopened.search("договоров").hits[0].source == "/d/contract.md"
