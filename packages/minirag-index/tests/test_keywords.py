"""The keyword side: English and Russian word forms match in one index, identifiers stay exact,
function words do not decide a ranking, and indexes built before the term columns upgrade."""

from __future__ import annotations

import pytest
from lancedb.index import FTS

from minirag_index import ChunkInput, SourceDoc
from minirag_index.storage import keyword_index
from minirag_index.storage.schema import arrow_schema, table_row

DOCS = {
    "/d/contract.md": "Условия договора поставки и сроки оплаты.",
    "/d/codes.md": "Codes: ERR-4711, QP-7.2 and ТЗ_2024_015 are tracked here.",
    "/d/other.md": "ERR-4712 and QP-7.3 and ТЗ_2024_016 belong to another project.",
    "/d/pieces.md": "QP 7 2, err 4711, ТЗ 2024 015.",
    "/d/english.md": "The supplier delivers goods every month.",
    "/d/heat.md": "Plates were heated slowly in the test chamber.",
    "/d/mixed.md": "Отчёт об испытании: the wing flows were measured, давление на крыле росло.",
    "/d/function-words.md": "Of the and the of to the in the on the, and of the.",
}


def _add_all(index, docs=DOCS):
    for source, text in docs.items():
        index.add_source(SourceDoc(source), [ChunkInput(text)])


@pytest.fixture
def keyword_index_(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    _add_all(index)
    index.refresh()
    return index


def first(index, query: str) -> str:
    hits = index.search(query).hits
    assert hits, f"nothing found for {query!r}"
    return hits[0].source


@pytest.mark.parametrize("query", ["heating", "heats", "heat"])
def test_english_inflections_match(keyword_index_, query):
    assert first(keyword_index_, query) == "/d/heat.md"


@pytest.mark.parametrize("query", ["договоры", "договоров", "поставками"])
def test_russian_word_forms_match(keyword_index_, query):
    assert first(keyword_index_, query) == "/d/contract.md"


@pytest.mark.parametrize("query", ["ERR-4711", "QP-7.2", "ТЗ_2024_015", "ТЗ\\_2024\\_015"])
def test_identifiers_rank_their_exact_document_first(keyword_index_, query):
    # /d/pieces.md holds every piece of each identifier, but not the identifier itself.
    assert first(keyword_index_, query) == "/d/codes.md"


@pytest.mark.parametrize("query", ["flow over a wing", "давлением на крылья", "крыла flow"])
def test_a_mixed_language_document_is_found_in_either_language(keyword_index_, query):
    assert first(keyword_index_, query) == "/d/mixed.md"


def test_function_words_do_not_decide_the_ranking(keyword_index_):
    assert first(keyword_index_, "the heating of the plates") == "/d/heat.md"
    assert first(keyword_index_, "условия и сроки") == "/d/contract.md"


def test_a_query_of_function_words_alone_still_finds_them(keyword_index_):
    assert first(keyword_index_, "of the") == "/d/function-words.md"


def test_english_words_are_found_as_typed(keyword_index_):
    assert first(keyword_index_, "supplier") == "/d/english.md"


def test_titles_are_analysed_too(make_index):
    index = make_index(RAG_HYBRID_WEIGHT=1.0)
    index.add_source(SourceDoc("/d/a.md", title="Heated plates"), [ChunkInput("body one")])
    index.add_source(SourceDoc("/d/b.md", title="Договор поставки"), [ChunkInput("body two")])
    index.refresh()
    assert first(index, "heating") == "/d/a.md"
    assert first(index, "договоров") == "/d/b.md"


# -- indexes built by earlier versions ---------------------------------------------------------
def _old_analyser() -> FTS:
    """What the text and title indexes were built with before the term columns."""
    return FTS(
        base_tokenizer="simple",
        language="Russian",
        stem=True,
        lower_case=True,
        remove_stop_words=False,
        ascii_folding=False,
        max_token_length=64,
    )


def build_old_index(db_path, embedder, docs=DOCS) -> None:
    """An index as the version before the term columns wrote it: no term columns, keyword
    indexes on text and title with LanceDB's Russian analyser."""
    import lancedb
    import pyarrow as pa

    old_schema = pa.schema(
        [f for f in arrow_schema(embedder.dim) if f.name not in keyword_index.TERM_COLUMNS]
    )
    rows = []
    for source, text in docs.items():
        chunk = ChunkInput(text)
        row = table_row(
            SourceDoc(source, title=source.rsplit("/", 1)[-1]),
            0,
            chunk,
            embedder.embed_passages([text])[0],
            0.0,
        )
        rows.append({k: v for k, v in row.items() if k in old_schema.names})
    table = lancedb.connect(db_path).create_table(
        "chunks", pa.Table.from_pylist(rows, schema=old_schema)
    )
    for column in ("text", "title"):
        table.create_index(column, config=_old_analyser(), replace=True)


def test_an_index_built_before_the_term_columns_is_upgraded_on_open(make_index, embedder, tmp_path):
    build_old_index(tmp_path / "old", embedder)
    index = make_index(RAG_HYBRID_WEIGHT=1.0, DB_PATH=tmp_path / "old")
    assert first(index, "heating") == "/d/heat.md"  # English stems: new
    assert first(index, "договоров") == "/d/contract.md"  # Russian stems: kept
    assert first(index, "ERR-4711") == "/d/codes.md"
    table = index.store.table()
    assert set(keyword_index.TERM_COLUMNS) <= set(table.schema.names)
    indexed = {tuple(ix.columns) for ix in table.list_indices()}
    # The old indexes are gone; find_mentions' prefix index came with the upgrade.
    assert indexed == {("text_terms",), ("title_terms",), ("mention_prefixes",)}
    assert table.count_rows() == len(DOCS)
    assert index.store.warnings == []
    # Writing after the upgrade gives new rows their terms, and the vectors stayed.
    index.add_source(SourceDoc("/d/late.md"), [ChunkInput("Flows were measured later.")])
    assert {h.source for h in index.search("flowing").hits} == {"/d/late.md", "/d/mixed.md"}
    hybrid = make_index(DB_PATH=tmp_path / "old")
    assert first(hybrid, "plates heated in a chamber") == "/d/heat.md"


def test_an_upgrade_that_cannot_be_written_leaves_the_old_keyword_search(
    make_index, embedder, tmp_path, monkeypatch
):
    build_old_index(tmp_path / "old", embedder)

    def refuse(*args, **kwargs):
        raise OSError("read-only file system")

    monkeypatch.setattr(keyword_index, "_fill_terms", refuse)
    index = make_index(RAG_HYBRID_WEIGHT=1.0, DB_PATH=tmp_path / "old")
    assert first(index, "договоров") == "/d/contract.md"  # the old Russian index still serves
    assert any("read-only file system" in w for w in index.store.warnings)


def test_a_half_finished_upgrade_is_completed_on_the_next_open(make_index, embedder, tmp_path):
    build_old_index(tmp_path / "old", embedder)
    import lancedb
    import pyarrow as pa

    table = lancedb.connect(tmp_path / "old").open_table("chunks")
    table.add_columns([pa.field(c, pa.string()) for c in keyword_index.TERM_COLUMNS])
    index = make_index(RAG_HYBRID_WEIGHT=1.0, DB_PATH=tmp_path / "old")
    assert first(index, "heating") == "/d/heat.md"
    assert index.store.count_rows("text_terms IS NULL") == 0
