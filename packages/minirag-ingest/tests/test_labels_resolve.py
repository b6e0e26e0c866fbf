"""Per-facet resolution: within → longest path rule → default → model, and the model seam."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from minirag_index.search.filters import decode_labels
from minirag_ingest.extras.plugins import CLASSIFY, missing_extra
from minirag_ingest.labels.resolve import (
    ABSENT_NO_PATH,
    ABSENT_WITHIN,
    ModelSession,
    model_state,
    needs_relabel,
    relative_path,
    resolve_labels,
)
from minirag_ingest.labels.taxonomy import ModelSpec, Taxonomy, parse_taxonomy
from testsupport.classify import register

TOML = """
[model]
path = "/models/choice.gguf"
temperature = 2.0
uncertain_below = 0.7

[facets.project]
default = "main"
values.main = { description = "The main product." }
values.pilots = { description = "Pilot projects.", paths = ["pilots"] }
values.special = { description = "A special pilot.", paths = ["pilots/special"] }
values.cafe = { description = "Café notes.", paths = ["Café"] }

[facets.type]
override_at = 0.9
values.minutes = { description = "Minutes." }
values.mail = { description = "Mail." }
values.report = { description = "Report." }
values.transcript = { description = "Transcript.", paths = ["recordings"] }

[facets.area]
within = ["work"]
default = "general"
values.general = { description = "General." }
values.hr = { description = "HR.", paths = ["work/hr"] }
"""


class FakeModel:
    """Answers from a table: file name → distribution over the option ids."""

    def __init__(self, answers: dict[str, dict[str, float]]):
        self.answers = answers
        self.calls: list[tuple[str, tuple[str, ...], str, str | None]] = []
        self.closed = False

    def ask(
        self,
        question: str,
        options: Sequence[tuple[str, str]],
        document_head: str,
        file_name: str | None,
    ) -> dict[str, float]:
        ids = tuple(option_id for option_id, _ in options)
        self.calls.append((question, ids, document_head, file_name))
        answer = self.answers.get(file_name or "", {})
        return {i: answer.get(i, 0.0) for i in ids} if answer else dict.fromkeys(ids, 1.0)

    def close(self) -> None:
        self.closed = True


class FakePlugin:
    name = "fake"

    def __init__(self, model: FakeModel | None = None, error: str | None = None):
        self.model = model
        self.error = error
        self.loads = 0

    def probe(self, spec: ModelSpec, cache_dir: Path) -> str | None:
        return self.error

    def load(self, spec: ModelSpec, cache_dir: Path) -> FakeModel:
        self.loads += 1
        if self.error:
            raise RuntimeError(self.error)
        assert self.model is not None
        return self.model


@pytest.fixture
def taxonomy() -> Taxonomy:
    return parse_taxonomy(TOML)


@pytest.fixture
def session_with(monkeypatch: pytest.MonkeyPatch) -> Callable[..., ModelSession]:
    """A job's session with ``plugin`` as the installed classify plug-in (None: no extra)."""

    def make(plugin: FakePlugin | None, taxonomy: Taxonomy, cache_dir: Path) -> ModelSession:
        register(monkeypatch, plugin)
        return ModelSession(taxonomy.model, cache_dir)

    return make


def labels_of(outcome) -> dict[str, tuple[str, str] | str | None]:
    result = {}
    for f in outcome.facets:
        if f.label is not None:
            result[f.facet] = (f.label.value, f.label.source)
        else:
            result[f.facet] = f.absent
    return result


def resolve(taxonomy, session, rel_path, file_name=None, markdown="# Notes\n\nSome text."):
    name = file_name if file_name is not None else (rel_path or "").rsplit("/", 1)[-1] or None
    return resolve_labels(
        taxonomy, rel_path=rel_path, markdown=markdown, file_name=name, session=session
    )


def test_default_path_and_within(session_with, taxonomy: Taxonomy, tmp_path: Path):
    model = FakeModel({"a.md": {"minutes": 0.95, "mail": 0.05}})
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    outcome = resolve(taxonomy, session, "notes/a.md")
    assert labels_of(outcome) == {
        "project": ("main", "default"),
        "type": ("minutes", "model"),
        "area": ABSENT_WITHIN,
    }
    outcome = resolve(taxonomy, session, "work/hr/a.md")
    assert labels_of(outcome)["area"] == ("hr", "path")
    outcome = resolve(taxonomy, session, "work/other/a.md")
    assert labels_of(outcome)["area"] == ("general", "default")
    # "work" matches whole folders only
    assert labels_of(resolve(taxonomy, session, "workshop/a.md"))["area"] == ABSENT_WITHIN


def test_longest_prefix_wins(session_with, taxonomy: Taxonomy, tmp_path: Path):
    session = session_with(FakePlugin(FakeModel({})), taxonomy, tmp_path)
    assert labels_of(resolve(taxonomy, session, "pilots/x.md"))["project"] == ("pilots", "path")
    deep = resolve(taxonomy, session, "pilots/special/deeper/x.md")
    assert labels_of(deep)["project"] == ("special", "path")
    label = deep.facets[0].label
    assert label is not None and label.confidence == 1.0 and label.runner_up is None
    # a folder named like a rule's prefix is not under it
    assert labels_of(resolve(taxonomy, session, "pilotsx/x.md"))["project"] == ("main", "default")


def test_nfc_and_nfd_names_match(session_with, taxonomy: Taxonomy, tmp_path: Path):
    session = session_with(FakePlugin(FakeModel({})), taxonomy, tmp_path)
    decomposed = unicodedata.normalize("NFD", "Café/menu.md")
    assert decomposed != "Café/menu.md"
    assert labels_of(resolve(taxonomy, session, decomposed))["project"] == ("cafe", "path")
    # a rule typed decomposed matches a composed path too
    text = TOML.replace(
        'paths = ["Café"]', 'paths = ["' + unicodedata.normalize("NFD", "Café") + '"]'
    )
    nfd_rules = parse_taxonomy(text)
    outcome = resolve(nfd_rules, session, "Café/menu.md")
    assert labels_of(outcome)["project"] == ("cafe", "path")


def test_relative_path_prefers_first_root(tmp_path: Path):
    first, second = tmp_path / "a", tmp_path / "b"
    assert relative_path(first / "x" / "y.md", [first, second]) == "x/y.md"
    assert relative_path(second / "y.md", [first, second]) == "y.md"
    assert relative_path(tmp_path / "c" / "y.md", [first, second]) is None
    nested = first / "inner"
    assert relative_path(nested / "y.md", [first, nested]) == "inner/y.md"


def test_override_at_below_threshold_keeps_path(session_with, taxonomy: Taxonomy, tmp_path: Path):
    model = FakeModel({"call.md": {"minutes": 0.85, "transcript": 0.15}})
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    outcome = resolve(taxonomy, session, "recordings/call.md")
    facet = outcome.facets[1]
    assert facet.asked and facet.distribution is not None
    assert facet.label is not None
    assert (facet.label.value, facet.label.source, facet.label.confidence) == (
        "transcript",
        "path",
        1.0,
    )
    assert len(model.calls) == 1


def test_override_at_at_or_above_threshold_replaces_path(
    session_with, taxonomy: Taxonomy, tmp_path: Path
):
    model = FakeModel(
        {"call.md": {"minutes": 0.9, "transcript": 0.1}, "b.md": {"mail": 0.97, "report": 0.03}}
    )
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    facet = resolve(taxonomy, session, "recordings/call.md").facets[1]
    assert facet.label is not None
    assert (facet.label.value, facet.label.source) == ("minutes", "model")
    assert facet.label.confidence == pytest.approx(0.9)
    assert facet.label.runner_up == "transcript"
    facet = resolve(taxonomy, session, "recordings/b.md").facets[1]
    assert facet.label is not None and facet.label.value == "mail"


def test_default_never_asks_the_model(session_with, tmp_path: Path):
    taxonomy = parse_taxonomy(
        '[facets.p]\ndefault = "a"\nvalues.a = { description = "A." }\n'
        'values.b = { description = "B.", paths = ["b"] }\n'
    )
    plugin = FakePlugin(FakeModel({}))
    session = session_with(plugin, taxonomy, tmp_path)
    assert labels_of(resolve(taxonomy, session, "x/y.md")) == {"p": ("a", "default")}
    assert labels_of(resolve(taxonomy, session, "b/y.md")) == {"p": ("b", "path")}
    assert plugin.loads == 0 and not session.loaded


def test_uncertain_label_keeps_runner_up(session_with, taxonomy: Taxonomy, tmp_path: Path):
    model = FakeModel({"x.md": {"minutes": 0.5, "report": 0.3, "mail": 0.2}})
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    outcome = resolve(taxonomy, session, "x.md")
    label = outcome.facets[1].label
    assert label is not None
    assert (label.value, label.runner_up, label.uncertain) == ("minutes", "report", True)
    confident = FakeModel({"x.md": {"minutes": 0.7, "report": 0.3}})
    label = resolve(taxonomy, session_with(FakePlugin(confident), taxonomy, tmp_path), "x.md")
    assert label.facets[1].label is not None and label.facets[1].label.uncertain is False


def test_model_sees_question_options_head_and_name(
    session_with, taxonomy: Taxonomy, tmp_path: Path
):
    model = FakeModel({})
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    resolve(taxonomy, session, "a/2026-08-05 sync.md", markdown="\n\n" + "x" * 5000)
    [(question, ids, head, name)] = model.calls
    assert question == "What kind of document is this?"
    assert ids == ("minutes", "mail", "report", "transcript")
    assert name == "2026-08-05 sync.md"
    assert head == "x" * 2000


def test_text_documents_get_only_model_facets(session_with, taxonomy: Taxonomy, tmp_path: Path):
    model = FakeModel({"": {"mail": 1.0}})
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    outcome = resolve_labels(
        taxonomy, rel_path=None, markdown="Hello", file_name=None, session=session
    )
    assert labels_of(outcome) == {
        "project": ABSENT_NO_PATH,
        "type": ("mail", "model"),
        "area": ABSENT_WITHIN,
    }
    assert outcome.label_problem is None


def test_session_loads_once_and_releases(session_with, taxonomy: Taxonomy, tmp_path: Path):
    model = FakeModel({})
    plugin = FakePlugin(model)
    with session_with(plugin, taxonomy, tmp_path) as session:
        assert not session.loaded  # nothing loaded before a document needs it
        assert model_state(taxonomy, tmp_path) == ("on demand", None)
        for name in ("a.md", "b.md", "c.md"):
            resolve(taxonomy, session, name)
        assert plugin.loads == 1 and session.loaded
        assert model_state(taxonomy, tmp_path)[0] == "loaded"
    assert model.closed and not session.loaded
    assert model_state(taxonomy, tmp_path)[0] == "on demand"


def test_without_the_extra(session_with, taxonomy: Taxonomy, tmp_path: Path):
    session = session_with(None, taxonomy, tmp_path)
    outcome = resolve(taxonomy, session, "pilots/notes.md")
    labels = labels_of(outcome)
    assert labels["project"] == ("pilots", "path")  # path facets still work
    assert labels["area"] == ABSENT_WITHIN
    # type: no path rule, no default: left unset, with the reason
    assert labels["type"] is None
    problem = outcome.label_problem
    assert problem is not None and "type" in problem and "[classify]" in problem
    stored = decode_labels(outcome.to_json())
    assert stored is not None and stored.pending == ("type",)
    assert "[classify]" in stored.unset["type"]
    state, hint = model_state(taxonomy, tmp_path)
    assert state == "unavailable" and hint is not None and "[classify]" in hint


def test_without_the_extra_path_rule_with_override_is_kept(
    session_with, taxonomy: Taxonomy, tmp_path: Path
):
    session = session_with(None, taxonomy, tmp_path)
    outcome = resolve(taxonomy, session, "recordings/call.md")
    facet = outcome.facets[1]
    assert facet.label is not None and facet.label.value == "transcript"
    assert facet.problem is not None
    assert "kept the path label of type" in (outcome.label_problem or "")


def test_load_failure_is_remembered_for_the_job(session_with, taxonomy: Taxonomy, tmp_path: Path):
    plugin = FakePlugin(error="download failed: HTTP 404")
    session = session_with(plugin, taxonomy, tmp_path)
    first = resolve(taxonomy, session, "a.md")
    second = resolve(taxonomy, session, "b.md")
    assert plugin.loads == 1
    for outcome in (first, second):
        assert "HTTP 404" in (outcome.label_problem or "")
    assert model_state(taxonomy, tmp_path) == (
        "unavailable",
        "download failed: HTTP 404",
    )


def test_stored_json_round_trip_and_relabel(session_with, taxonomy: Taxonomy, tmp_path: Path):
    model = FakeModel({"x.md": {"minutes": 0.6, "report": 0.4}})
    session = session_with(FakePlugin(model), taxonomy, tmp_path)
    outcome = resolve(taxonomy, session, "notes/x.md")
    text = outcome.to_json()
    stored = decode_labels(text)
    assert stored is not None
    assert stored.labels["type"].value == "minutes"
    assert stored.labels["type"].runner_up == "report"
    assert stored.labels["type"].uncertain is True
    assert stored.labels["project"].source == "default"
    assert stored.absent == {"area": ABSENT_WITHIN}
    assert stored.public()["type"] == {
        "value": "minutes",
        "confidence": 0.6,
        "source": "model",
        "runnerUp": "report",
        "uncertain": True,
    }
    assert not needs_relabel(text, taxonomy, "notes/x.md")
    assert needs_relabel(text, taxonomy, "pilots/x.md")  # moved: path rules may differ
    assert needs_relabel(None, taxonomy, "notes/x.md")
    edited = parse_taxonomy(TOML.replace("Minutes.", "Minutes of a meeting."))
    assert needs_relabel(text, edited, "notes/x.md")
    pending = resolve(taxonomy, session_with(None, taxonomy, tmp_path), "notes/x.md")
    assert needs_relabel(pending.to_json(), taxonomy, "notes/x.md")


def test_filter_notice(taxonomy: Taxonomy):
    from minirag_ingest.labels.resolve import filter_notice

    assert filter_notice(taxonomy, ["type"], "on demand", None) is None
    assert filter_notice(taxonomy, ["project"], "unavailable", missing_extra(CLASSIFY)) is None
    notice = filter_notice(taxonomy, ["project", "type"], "unavailable", missing_extra(CLASSIFY))
    assert notice is not None and "type" in notice and "[classify]" in notice
