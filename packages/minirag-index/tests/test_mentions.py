"""find_mentions engine: the matching rule, counting, ranking and paging."""

from __future__ import annotations

import unicodedata

import pytest

from minirag_index.search.mentions import (
    MAX_PAGE,
    MentionCorpus,
    build_corpus,
    find_mentions,
    parse_terms,
)
from minirag_index.text.folding import fold, fold_with_offsets


def corpus_of(docs: dict[str, str], titles: dict[str, str] | None = None) -> MentionCorpus:
    """One chunk per document, no context."""
    titles = titles or {}
    return build_corpus((src, titles.get(src, src), 0, text, 0, None) for src, text in docs.items())


def matched_sources(corpus: MentionCorpus, *terms: str, **kwargs) -> set[str]:
    result = find_mentions(corpus, list(terms), **kwargs)
    return {d.source for d in result.documents}


# --------------------------------------------------------------------------- folding


def test_fold_case_yo_and_composition():
    assert fold("ОТЧЁТ") == fold("отчет") == "отчет"
    assert fold("Straße") == fold("STRASSE")
    nfd = unicodedata.normalize("NFD", "Йогурт")
    assert nfd != "Йогурт"
    assert fold(nfd) == fold("йогурт") == "йогурт"  # й keeps its breve


def test_fold_conversion_leftovers():
    assert fold(r"ТЗ\_2024\_015") == "тз_2024_015"
    assert fold(r"\*важно\*") == "*важно*"
    assert fold("до\u00adго\u200bвор\u200c\u200d\u2060\ufeff") == "договор"
    assert fold(r"C:\Users\x") == r"c:\users\x"  # not an escape: kept


def test_fold_with_offsets_maps_back():
    text = unicodedata.normalize("NFD", "Ёлка") + r" ТЗ\_1 до\u00adм"
    folded, offsets = fold_with_offsets(text)
    assert folded == fold(text)
    assert len(offsets) == len(folded)
    i = folded.index("тз_1")
    assert text[offsets[i] : offsets[i + 3] + 1] == r"ТЗ\_1"


# --------------------------------------------------------------------------- matching rule


def test_open_end_from_word_start():
    corpus = corpus_of(
        {
            "a": "Подписан акт приёмки.",
            "b": "Нет актов за май.",
            "c": "Копия акта прилагается.",
            "d": "Это актуально сейчас.",
            "e": "Наш контакт в банке.",
        }
    )
    assert matched_sources(corpus, "акт") == {"a", "b", "c", "d"}


def test_quoted_term_closes_the_end():
    corpus = corpus_of({"a": "акт подписан", "b": "акта нет", "c": "«акт»", "d": "контакт"})
    assert matched_sources(corpus, '"акт"') == {"a", "c"}
    assert matched_sources(corpus, "«акт»") == {"a", "c"}


def test_english_word_start():
    corpus = corpus_of({"a": "The reports are in.", "b": "Unreported income", "c": "REPORT"})
    assert matched_sources(corpus, "report") == {"a", "c"}
    assert matched_sources(corpus, '"report"') == {"c"}


def test_underscore_and_hyphen_start_a_new_word_letters_and_digits_do_not():
    corpus = corpus_of({"u": "file x_акт.docx", "h": "пред-акт", "d": "код 2акт", "l": "контакт"})
    assert matched_sources(corpus, "акт") == {"u", "h"}


def test_escaped_identifier_matches_plain_query():
    corpus = corpus_of({"a": r"Согласно ТЗ\_2024\_015 работы", "b": "ТЗ 2024 015"})
    assert matched_sources(corpus, "ТЗ_2024_015") == {"a"}
    assert matched_sources(corpus, r"ТЗ\_2024\_015") == {"a"}


def test_yo_and_case_are_ignored():
    corpus = corpus_of({"a": "ГОДОВОЙ ОТЧЁТ", "b": "отчет"})
    assert matched_sources(corpus, "отчет") == {"a", "b"}
    assert matched_sources(corpus, "Отчёт") == {"a", "b"}


def test_soft_hyphen_and_zero_width_inside_words():
    corpus = corpus_of({"a": "до\u00adго\u00adвор поставки", "b": "дого\u200bвор"})
    assert matched_sources(corpus, '"договор"') == {"a", "b"}


def test_decomposed_title_matches_composed_query():
    title = unicodedata.normalize("NFD", "Отчёт_йога.docx")
    corpus = build_corpus([("/d/x.docx", title, 0, "ничего", 0, None)])
    result = find_mentions(corpus, ["йога"])
    assert result.matched_documents == 1
    assert result.documents[0].title_match
    assert result.documents[0].first_match is None  # the title matched, no chunk did
    assert find_mentions(corpus, ["отчет"]).matched_documents == 1


def test_decomposed_text_matches_composed_query_and_back():
    corpus = corpus_of({"a": unicodedata.normalize("NFD", "Район Ёлки"), "b": "район елки"})
    assert matched_sources(corpus, "район ёлки") == {"a", "b"}
    assert matched_sources(corpus, unicodedata.normalize("NFD", "Район")) == {"a", "b"}


def test_phrase_across_line_break_and_whitespace_runs():
    corpus = corpus_of(
        {
            "a": "договор\nпоставки №5",
            "b": "договор   \t поставки",
            "c": "договор о поставке",
            "d": "договоры поставки",
        }
    )
    assert matched_sources(corpus, "договор поставки") == {"a", "b"}
    result = find_mentions(corpus, ["договор поставки"])
    assert [(f.form, f.documents) for f in result.forms] == [("договор поставки", 2)]


def test_phrase_does_not_cross_chunk_boundary():
    corpus = build_corpus(
        [("a", "A", 0, "конец договор", 0, None), ("a", "A", 1, "поставки начало", 0, None)]
    )
    assert find_mentions(corpus, ["договор поставки"]).matched_documents == 0


def test_term_starting_with_punctuation():
    corpus = corpus_of({"a": "скидка -15% на всё", "b": "скидка 15%"})
    assert matched_sources(corpus, "-15%") == {"a"}
    # a hyphen starts a new word, so "15%" also matches inside "-15%"
    assert matched_sources(corpus, "15%") == {"a", "b"}
    assert matched_sources(corpus, "15") == {"a", "b"}


def test_regex_characters_are_literal():
    corpus = corpus_of({"a": "цена (USD) 1.5", "b": "цена USD 105"})
    assert matched_sources(corpus, "(usd)") == {"a"}
    assert matched_sources(corpus, "1.5") == {"a"}


def test_parse_terms():
    terms = parse_terms(['"Акт"', " Отчёт  за\nгод ", "«x»"])
    assert [(t.text, t.exact) for t in terms] == [
        ("акт", True),
        ("отчет за год", False),
        ("x", True),
    ]
    with pytest.raises(ValueError):
        parse_terms([])
    with pytest.raises(ValueError):
        parse_terms(['""'])
    with pytest.raises(ValueError):
        parse_terms(["\u00ad"])


# --------------------------------------------------------------------------- combining and counts


def test_all_and_any():
    corpus = corpus_of(
        {"ab": "alpha and beta", "a": "alpha only", "b": "beta only", "none": "gamma"},
    )
    all_result = find_mentions(corpus, ["alpha", "beta"])
    assert {d.source for d in all_result.documents} == {"ab"}
    assert all_result.matched_documents == 1
    any_result = find_mentions(corpus, ["alpha", "beta"], match="any")
    assert {d.source for d in any_result.documents} == {"ab", "a", "b"}
    assert any_result.matched_documents == 3
    assert any_result.searched_documents == 4
    with pytest.raises(ValueError):
        find_mentions(corpus, ["alpha"], match="most")  # type: ignore[arg-type]


def test_all_counts_terms_across_title_and_chunks():
    corpus = build_corpus(
        [
            ("d1", "Alpha report", 0, "nothing here", 0, None),
            ("d1", "Alpha report", 1, "the beta section", 0, None),
            ("d2", "Other", 0, "alpha", 0, None),
        ]
    )
    result = find_mentions(corpus, ["alpha", "beta"])
    assert [d.source for d in result.documents] == ["d1"]
    assert result.documents[0].title_match
    assert result.documents[0].matching_chunks == 1
    assert result.matched_chunks == 1
    assert result.documents[0].first_match is not None
    assert result.documents[0].first_match.chunk_index == 1


def test_matched_chunks_counts_chunks_not_hits():
    corpus = build_corpus(
        [
            ("d", "T", 0, "акт акт акт", 0, None),
            ("d", "T", 1, "без", 0, None),
            ("d", "T", 2, "акты", 0, None),
            ("e", "T", 0, "акт", 0, None),
        ]
    )
    result = find_mentions(corpus, ["акт"])
    assert result.matched_chunks == 3
    assert {d.source: d.matching_chunks for d in result.documents} == {"d": 2, "e": 1}


def test_forms_counted_by_documents():
    corpus = corpus_of(
        {
            "1": "акт и акты",
            "2": "акт",
            "3": "Акта нет, актуально",
            "4": "актуально",
            "5": "контакт",
        }
    )
    result = find_mentions(corpus, ["акт"])
    forms = {f.form: f.documents for f in result.forms}
    assert forms == {"акт": 2, "акты": 1, "акта": 1, "актуально": 2}
    counts = [f.documents for f in result.forms]
    assert counts == sorted(counts, reverse=True)


def test_forms_of_quoted_forms_with_any():
    corpus = corpus_of({"1": "акт", "2": "акта", "3": "актуально", "4": "актов и акт"})
    result = find_mentions(corpus, ['"акт"', '"акта"', '"актов"'], match="any")
    assert result.matched_documents == 3
    assert {f.form: f.documents for f in result.forms} == {"акт": 2, "акта": 1, "актов": 1}


def test_forms_only_from_matched_documents_in_scope():
    corpus = corpus_of({"in/a": "акты alpha", "in/b": "акта", "out/c": "актуально alpha"})
    result = find_mentions(corpus, ["акт", "alpha"], doc_filter=lambda s: s.startswith("in/"))
    assert result.searched_documents == 2
    assert [d.source for d in result.documents] == ["in/a"]
    assert {f.form for f in result.forms} == {"акты", "alpha"}


def test_title_matches_rank_first_then_chunk_count_then_source():
    corpus = build_corpus(
        [
            ("z-title", "Акт сверки", 0, "ничего", 0, None),
            ("b-many", "Other", 0, "акт", 0, None),
            ("b-many", "Other", 1, "акт", 0, None),
            ("b-many", "Other", 2, "акт", 0, None),
            ("a-one", "Other", 0, "акт", 0, None),
            ("c-one", "Other", 0, "акт", 0, None),
            ("a-title", "акты", 0, "акт", 0, None),
        ]
    )
    result = find_mentions(corpus, ["акт"])
    assert [d.source for d in result.documents] == [
        "a-title",
        "z-title",
        "b-many",
        "a-one",
        "c-one",
    ]
    assert result.documents[0].title_match and result.documents[1].title_match
    assert not result.documents[2].title_match


def test_repeated_breadcrumb_counts_once_per_section():
    ctx1 = "Договор > Раздел 1\n"
    ctx2 = "Договор > Раздел 2\n"
    rows = [
        ("d", "Doc", 0, ctx1 + "текст первый", len(ctx1), "s1"),
        ("d", "Doc", 1, ctx1 + "текст второй", len(ctx1), "s1"),
        ("d", "Doc", 2, ctx1 + "текст третий", len(ctx1), "s1"),
        ("d", "Doc", 3, ctx2 + "текст четвертый", len(ctx2), "s2"),
        ("d", "Doc", 4, ctx2 + "и снова раздел", len(ctx2), "s2"),
    ]
    corpus = build_corpus(rows)
    # "раздел" is in every breadcrumb: once for section 1 (only there); section 2 already
    # counts it in chunk 4's own text, so its breadcrumbs add nothing
    result = find_mentions(corpus, ["раздел"])
    assert result.matched_chunks == 2
    assert result.documents[0].matching_chunks == 2
    assert result.documents[0].first_match is not None
    assert result.documents[0].first_match.chunk_index == 0
    # "договор" only in breadcrumbs: one chunk per section
    assert find_mentions(corpus, ["договор"]).matched_chunks == 2
    # body text is still found in every chunk
    assert find_mentions(corpus, ["текст"]).matched_chunks == 4


def test_a_heading_counts_where_it_is_written_not_in_every_breadcrumb():
    """The chunker's own output: each heading is in the body of its section's first chunk,
    and every later chunk repeats it as a breadcrumb."""
    rows = [
        ("d", "Handbook", 0, "# Handbook\n\n## Part A\n\nwidgets", 0, 0),
        ("d", "Handbook", 1, "Handbook > Part A\nwidgets", 18, 0),
        ("d", "Handbook", 2, "Handbook > Part A\nwidgets", 18, 0),
        ("d", "Handbook", 3, "Handbook\n## Part B\n\nwidgets", 9, 1),
        ("d", "Handbook", 4, "Handbook > Part B\nwidgets", 18, 1),
    ]
    corpus = build_corpus(rows)
    assert find_mentions(corpus, ["part a"]).matched_chunks == 1
    assert find_mentions(corpus, ["part b"]).matched_chunks == 1
    # The H1 is written once, in section 0; section 1 names it only in breadcrumbs: once there.
    assert find_mentions(corpus, ["handbook"]).matched_chunks == 2
    assert find_mentions(corpus, ["widgets"]).matched_chunks == 5


def test_breadcrumbs_do_not_lift_a_document_in_the_ranking():
    heading_only = [
        ("a-long", "A", i, ("Gearbox\n" if i else "# Gearbox\n\n") + "filler text", 8 * bool(i), 0)
        for i in range(6)
    ]
    real = [("b-mentions", "B", i, f"gearbox note {i}", 0, 0) for i in range(2)]
    result = find_mentions(build_corpus(heading_only + real), ["gearbox"])
    assert [d.source for d in result.documents] == ["b-mentions", "a-long"]
    assert [d.matching_chunks for d in result.documents] == [2, 1]


def test_context_counted_once_even_when_rows_come_unordered():
    ctx = "| Наименование | Сумма |\n"
    rows = [("d", "Doc", i, ctx + f"| строка {i} | {i} |", len(ctx), "table") for i in (3, 1, 0, 2)]
    corpus = build_corpus(rows)
    result = find_mentions(corpus, ["наименование"])
    assert result.matched_chunks == 1
    assert result.documents[0].first_match is not None
    assert result.documents[0].first_match.chunk_index == 0
    assert find_mentions(corpus, ["строка"]).matched_chunks == 4


# --------------------------------------------------------------------------- paging and notice


def test_450_documents_in_three_pages():
    docs = {f"/docs/{i:04d}.md": f"документ {i} упоминает акт" for i in range(450)}
    docs |= {f"/other/{i}.md": "ничего" for i in range(30)}
    corpus = corpus_of(docs)
    seen: list[str] = []
    sizes = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        result = find_mentions(corpus, ["акт"], offset=offset, limit=500)
        assert result.matched_documents == 450
        assert result.matched_chunks == 450
        assert result.searched_documents == 480
        assert result.forms[0].form == "акт" and result.forms[0].documents == 450
        sizes.append(len(result.documents))
        seen.extend(d.source for d in result.documents)
        offset = result.next_offset
        pages += 1
    assert sizes == [MAX_PAGE, MAX_PAGE, 50]
    assert len(seen) == len(set(seen)) == 450
    assert set(seen) == {s for s in docs if s.startswith("/docs/")}


def test_nothing_found_says_what_was_searched():
    corpus = corpus_of({f"d{i}": "обычный текст" for i in range(7)})
    result = find_mentions(corpus, ["несуществующее"])
    assert result.matched_documents == 0
    assert result.searched_documents == 7
    assert result.documents == [] and result.forms == []
    assert result.notice is not None
    assert "несуществующее" in result.notice and "7" in result.notice


def test_nothing_in_scope_notice():
    corpus = corpus_of({"a": "акт"})
    result = find_mentions(corpus, ["акт"], doc_filter=lambda s: False)
    assert result.searched_documents == 0
    assert result.matched_documents == 0
    assert result.notice is not None


def test_empty_corpus():
    corpus = build_corpus([])
    result = find_mentions(corpus, ["акт"])
    assert (result.searched_documents, result.matched_documents) == (0, 0)
    assert result.notice


def test_match_has_no_notice():
    result = find_mentions(corpus_of({"a": "акт"}), ["акт"])
    assert result.notice is None


# --------------------------------------------------------------------------- snippets


def test_snippet_shows_hit_in_original_text():
    filler = "слово " * 200
    text = filler + r"см. ТЗ\_2024\_015 далее" + " " + filler
    corpus = corpus_of({"a": text})
    result = find_mentions(corpus, ["тз_2024_015"])
    snippet = result.documents[0].first_match.snippet  # type: ignore[union-attr]
    assert r"ТЗ\_2024\_015" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= 210


def test_snippet_skips_repeated_context():
    ctx = "Раздел: акт\n"
    rows = [
        ("d", "Doc", 0, ctx + "вступление", len(ctx), "s"),
        ("d", "Doc", 1, ctx + "подписан акт номер 7", len(ctx), "s"),
    ]
    corpus = build_corpus(rows)
    result = find_mentions(corpus, ["номер"])
    first = result.documents[0].first_match
    assert first is not None and first.chunk_index == 1
    assert "номер 7" in first.snippet


def test_snippet_maps_hit_through_decomposition_and_soft_hyphens():
    filler = unicodedata.normalize("NFD", "Ёжик й ") * 60
    hit = "до\u00adго\u00adвор поставки"
    corpus = corpus_of({"a": filler + hit + " " + filler})
    result = find_mentions(corpus, ["договор поставки"])
    snippet = result.documents[0].first_match.snippet  # type: ignore[union-attr]
    assert hit in snippet
    assert len(snippet) <= 210


def test_agrees_with_a_chunk_by_chunk_scan():
    import random

    rng = random.Random(5)
    vocab = ["акт", "акта", "контакт", "Актов", "x_акт", "2акт", "отчёт", "ОТЧЕТ", "report", "-"]
    rows = []
    for d in range(120):
        title = f"title {rng.choice(vocab)}"
        for c in range(rng.randint(1, 6)):
            text = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 12)))
            rows.append((f"doc{d:03d}", title, c, text, 0, None))
    corpus = build_corpus(rows)
    for terms, match in (
        (["акт"], "all"),
        (['"акт"'], "all"),
        (["акт", "отчет"], "all"),
        (["акт", "report"], "any"),
    ):
        parsed = parse_terms(terms)
        per_doc: dict[str, set[int]] = {}
        has: dict[str, set[int]] = {}
        for source, title, c, text, _, _ in rows:
            for i, t in enumerate(parsed):
                if t.pattern.search(fold(text)):
                    per_doc.setdefault(source, set()).add(c)
                    has.setdefault(source, set()).add(i)
                if t.pattern.search(fold(title)):
                    has.setdefault(source, set()).add(i)
        need = len(parsed) if match == "all" else 1
        expected = {s: len(per_doc.get(s, ())) for s, found in has.items() if len(found) >= need}
        result = find_mentions(corpus, terms, match=match)  # type: ignore[arg-type]
        assert result.matched_documents == len(expected)
        assert result.matched_chunks == sum(expected.values())
        assert {d.source: d.matching_chunks for d in result.documents} == expected
