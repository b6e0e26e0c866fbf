"""Label and date filters: validation against the taxonomy, soft matching, filterCounts."""

from __future__ import annotations

import datetime as dt

import pytest

from minirag_index import SourceInfo
from minirag_index.search.filters import (
    DocFilter,
    Label,
    StoredLabels,
    apply_filter,
    decode_labels,
    judge,
    label_stats,
    parse_filter,
    public_labels,
    sort_by_date,
    sources_filter_sql,
)

VOCABULARY = {"type": ["minutes", "mail", "report"], "project": ["main", "pilots"]}


def labels(**facets: Label | str) -> str:
    """Stored labels text: a Label, or "absent" / "unset" for a facet without one."""
    stored = StoredLabels(
        labels={k: v for k, v in facets.items() if isinstance(v, Label)},
        absent={k: "outside within" for k, v in facets.items() if v == "absent"},
        unset={k: "model unavailable" for k, v in facets.items() if v == "unset"},
        pending=tuple(k for k, v in facets.items() if v == "unset"),
        taxonomy="t1",
        at="x",
    )
    return stored.to_json()


def model(value: str, p: float = 0.95, runner_up: str | None = None) -> Label:
    return Label(value, p, "model", runner_up=runner_up, uncertain=p < 0.7)


def doc(name: str, label_text: str | None, date: str | None = "2026-08-05") -> SourceInfo:
    return SourceInfo(source=f"/docs/{name}", labels=label_text, doc_date=date)


# -- parsing --------------------------------------------------------------------------------


def test_parse_single_and_list_values():
    flt = parse_filter({"type": "minutes", "project": ["main", "pilots"]}, vocabulary=VOCABULARY)
    assert flt.labels == {"type": {"minutes"}, "project": {"main", "pilots"}}
    assert flt.active and not flt.dated


def test_unknown_facet_lists_what_is_valid():
    with pytest.raises(ValueError) as caught:
        parse_filter({"kind": "minutes"}, vocabulary=VOCABULARY)
    message = str(caught.value)
    assert "'kind'" in message and "type" in message and "project" in message
    assert "minutes, mail, report" in message


def test_unknown_value_lists_valid_values():
    with pytest.raises(ValueError) as caught:
        parse_filter({"type": ["minutes", "memo"]}, vocabulary=VOCABULARY)
    message = str(caught.value)
    assert "'memo'" in message and "minutes, mail, report" in message


def test_empty_value_list_refused():
    with pytest.raises(ValueError, match="minutes, mail, report"):
        parse_filter({"type": []}, vocabulary=VOCABULARY)


def test_wrong_value_type_refused():
    with pytest.raises(ValueError, match=r"labels\.type"):
        parse_filter({"type": 3}, vocabulary=VOCABULARY)


def test_label_filter_without_taxonomy_refused():
    with pytest.raises(ValueError, match="taxonomy"):
        parse_filter({"type": "minutes"}, vocabulary=None)


@pytest.mark.parametrize("raw", ["2026-8-5", "05.08.2026", "2026-02-30", "yesterday", "20260805"])
def test_malformed_dates(raw: str):
    with pytest.raises(ValueError, match=r"dateFrom.*YYYY-MM-DD"):
        parse_filter(None, raw, vocabulary=VOCABULARY)


def test_dates_parse_and_order():
    flt = parse_filter(None, "2026-08-01", "2026-08-31", vocabulary=VOCABULARY)
    assert (flt.date_from, flt.date_to) == (dt.date(2026, 8, 1), dt.date(2026, 8, 31))
    assert flt.dated and flt.active
    with pytest.raises(ValueError, match="after"):
        parse_filter(None, "2026-09-01", "2026-08-01", vocabulary=VOCABULARY)
    assert not parse_filter(None, None, "", vocabulary=VOCABULARY).active


def test_cli_flag_names_in_messages():
    with pytest.raises(ValueError, match="--date-to"):
        parse_filter(
            None, None, "x", vocabulary=VOCABULARY, date_names=("--date-from", "--date-to")
        )


# -- matching ------------------------------------------------------------------------------


def test_confident_label_matches_only_its_value():
    flt = DocFilter(labels={"type": frozenset({"minutes"})})
    assert judge(labels(type=model("minutes")), None, flt) == "match"
    assert judge(labels(type=model("mail", runner_up="minutes")), None, flt) == "excluded"


def test_uncertain_label_matches_its_runner_up_too():
    flt = DocFilter(labels={"type": frozenset({"report"})})
    uncertain = labels(type=model("minutes", 0.55, runner_up="report"))
    assert judge(uncertain, None, flt) == "match"
    assert judge(uncertain, None, DocFilter(labels={"type": frozenset({"minutes"})})) == "match"
    assert judge(uncertain, None, DocFilter(labels={"type": frozenset({"mail"})})) == "excluded"


def test_path_and_default_labels_match():
    flt = DocFilter(labels={"project": frozenset({"pilots"})})
    assert judge(labels(project=Label("pilots", 1.0, "path")), None, flt) == "match"
    assert judge(labels(project=Label("main", 1.0, "default")), None, flt) == "excluded"


def test_values_of_one_facet_are_alternatives_and_facets_combine():
    flt = parse_filter({"type": ["minutes", "mail"], "project": "main"}, vocabulary=VOCABULARY)
    both = labels(type=model("mail"), project=Label("main", 1.0, "default"))
    wrong_project = labels(type=model("mail"), project=Label("pilots", 1.0, "path"))
    assert judge(both, None, flt) == "match"
    assert judge(wrong_project, None, flt) == "excluded"


def test_filter_counts_unlabelled_and_undated():
    flt = parse_filter({"type": "minutes"}, "2026-08-01", "2026-08-31", vocabulary=VOCABULARY)
    sources = {
        "match": doc("match", labels(type=model("minutes"))),
        "other": doc("other", labels(type=model("mail"))),  # legitimately out
        "late": doc("late", labels(type=model("minutes")), "2026-09-03"),  # out of range
        "unset": doc("unset", labels(type="unset")),  # model unavailable
        "never": doc("never", None),  # not labelled yet
        "older": doc("older", labels(project=Label("main", 1.0, "default"))),  # no such facet
        "absent": doc("absent", labels(type="absent")),  # outside within: not counted
        "undated": doc("undated", labels(type=model("minutes")), None),
        "both": doc("both", None, None),
        "mixed": doc("mixed", labels(type=model("mail")), None),  # wrong label: not counted
        "unset_late": doc("unset_late", labels(type="unset"), "2025-01-01"),  # out by date
    }
    sources = {info.source: info for info in sources.values()}
    result = apply_filter(sources, flt)
    assert sorted(result.kept) == ["/docs/match"]
    assert result.counts == {"unlabelled": 4, "undated": 2}


def test_date_bounds_are_inclusive():
    flt = parse_filter(None, "2026-08-05", "2026-08-05", vocabulary=VOCABULARY)
    assert judge(None, "2026-08-05", flt) == "match"
    assert judge(None, "2026-08-04", flt) == "excluded"
    assert judge(None, "2026-08-06", flt) == "excluded"
    assert judge(None, None, flt) == "undated"


def test_no_filter_keeps_everything():
    sources = {"/a": doc("a", None, None)}
    result = apply_filter(sources, DocFilter())
    assert list(result.kept) == ["/a"] and result.counts == {"unlabelled": 0, "undated": 0}


# -- stored form, stats, sorting ------------------------------------------------------------


def test_decode_tolerates_garbage():
    assert decode_labels(None) is None
    assert decode_labels("") is None
    assert decode_labels("not json") is None
    assert decode_labels('{"facets": 3}') is None
    assert public_labels('["x"]') == {}


def test_public_labels():
    text = labels(type=model("minutes", 0.55, runner_up="report"), project="absent")
    assert public_labels(text) == {
        "type": {
            "value": "minutes",
            "confidence": 0.55,
            "source": "model",
            "runnerUp": "report",
            "uncertain": True,
        }
    }


def test_label_stats():
    docs = [
        doc("a", labels(type=model("minutes")), None),
        doc("b", labels(type=model("minutes", 0.5, runner_up="mail"))),
        doc("c", labels(type="unset")),
        doc("d", labels(type="absent")),
        doc("e", None),
    ]
    stats, undated = label_stats(docs, {"type": ["minutes", "mail", "report"]})
    facet = stats["type"]
    assert facet.values == {"minutes": 2, "mail": 0, "report": 0}
    assert (facet.unlabelled, facet.uncertain, undated) == (2, 1, 1)


def test_sort_by_date_newest_first_undated_last():
    docs = [doc("a", None, "2026-01-01"), doc("b", None, None), doc("c", None, "2026-08-05")]
    assert [d.source for d in sort_by_date(docs)] == ["/docs/c", "/docs/a", "/docs/b"]


def test_sources_filter_sql():
    assert sources_filter_sql([]) == "false"
    assert sources_filter_sql(["/d/b", "/d/it's"]) == "source IN ('/d/b', '/d/it''s')"
