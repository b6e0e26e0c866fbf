"""Labels through the pipeline and sync: every ingest path labels, a changed taxonomy re-labels
from stored text, and the choice model lives exactly as long as one job.

The model is a fake plug-in (testsupport.classify), so these tests run in the base session.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from minirag_index.search.filters import decode_labels
from minirag_ingest.labels import resolve
from minirag_ingest.labels.taxonomy import TaxonomyLoader
from minirag_ingest.sync.run import sync
from testsupport.classify import FakePlugin, register

TOML = """
[model]
path = "/nowhere/choice.gguf"
temperature = 1.0

[facets.project]
default = "main"
values.main = { description = "The main product." }
values.pilots = { description = "Pilot projects.", paths = ["pilots"] }

[facets.type]
question = "What kind of document is this?"
values.minutes = { description = "Minutes." }
values.mail = { description = "Mail." }
values.report = { description = "Report." }
"""

DOCS = {
    "2026-08-05 weekly.md": "# Weekly sync\n\nAttendees: Ann, Bob.\n\nDecisions: ship it.\n",
    "pilots/letter.md": "Date: 2026-07-01\n\nFrom: Ann\n\nHello team, a note on the pilot.\n",
    "status.md": "# Status\n\nProgress is fine and on schedule.\n",
}


class FakeModel:
    """Minutes for "Attendees", mail for "From:", otherwise an uncertain report."""

    def __init__(self) -> None:
        self.calls = 0
        self.closed = False

    def ask(
        self,
        question: str,
        options: Sequence[tuple[str, str]],
        document_head: str,
        file_name: str | None,
    ) -> dict[str, float]:
        assert not self.closed, "asked after the job released the model"
        self.calls += 1
        if "Attendees" in document_head:
            return {"minutes": 0.95, "mail": 0.03, "report": 0.02}
        if "From:" in document_head:
            return {"minutes": 0.05, "mail": 0.9, "report": 0.05}
        return {"minutes": 0.35, "mail": 0.05, "report": 0.6}

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def plugin(monkeypatch: pytest.MonkeyPatch) -> FakePlugin:
    found = FakePlugin(FakeModel)
    register(monkeypatch, found)
    return found


@pytest.fixture
def no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    register(monkeypatch, None)


def write_docs(root: Path) -> None:
    for name, text in DOCS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    os.utime(root / "status.md", (1_780_000_000, 1_780_000_000))


def write_taxonomy(root: Path, text: str = TOML) -> Path:
    path = root / ".minirag" / "classify.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def labelled(make_pipeline, docs: Path):
    write_docs(docs)
    write_taxonomy(docs)
    pipeline = make_pipeline(docs)
    pipeline.taxonomy = TaxonomyLoader.for_root(pipeline.roots.first)
    return pipeline


def labels_of(pipeline, source: Path | str) -> dict[str, tuple[str, str]]:
    info = pipeline.index.sources()[str(source)]
    stored = decode_labels(info.labels)
    assert stored is not None, f"{source} has no labels"
    return {name: (label.value, label.source) for name, label in stored.labels.items()}


@pytest.fixture
def embed_calls(monkeypatch: pytest.MonkeyPatch, embedder) -> list[int]:
    calls: list[int] = []
    original = embedder.embed_passages

    def counting(texts):
        calls.append(len(texts))
        return original(texts)

    monkeypatch.setattr(embedder, "embed_passages", counting)
    return calls


def test_sync_labels_and_the_model_lives_for_one_job(labelled, docs, plugin) -> None:
    report = sync(labelled)
    assert report.ingested == 3 and report.failed == 0 and not report.errors
    assert labels_of(labelled, docs / "2026-08-05 weekly.md") == {
        "project": ("main", "default"),
        "type": ("minutes", "model"),
    }
    assert labels_of(labelled, docs / "pilots/letter.md") == {
        "project": ("pilots", "path"),
        "type": ("mail", "model"),
    }
    status = decode_labels(labelled.index.sources()[str(docs / "status.md")].labels)
    assert status.labels["type"].uncertain and status.labels["type"].runner_up == "minutes"
    # Loaded once, by the first document that needed it, and released when the sync ended.
    assert len(plugin.models) == 1 and plugin.models[0].calls == 3
    assert plugin.models[0].closed
    assert resolve.model_state(labelled.labelling().taxonomy, docs)[0] == "on demand"
    # Nothing changed: the next sync neither asks the model nor re-labels.
    again = sync(labelled)
    assert again.relabelled == 0 and again.skipped == 3
    assert len(plugin.models) == 1


def test_a_job_without_model_facets_never_loads_the_model(make_pipeline, docs, plugin) -> None:
    write_docs(docs)
    write_taxonomy(docs, TOML.split("[facets.type]")[0])
    pipeline = make_pipeline(docs)
    pipeline.taxonomy = TaxonomyLoader.for_root(docs)
    assert sync(pipeline).ingested == 3
    assert plugin.models == []
    assert labels_of(pipeline, docs / "status.md") == {"project": ("main", "default")}


def test_changed_taxonomy_relabels_from_stored_text(labelled, docs, plugin, embed_calls) -> None:
    sync(labelled)
    embed_calls.clear()
    write_taxonomy(
        docs,
        TOML.replace('default = "main"', 'default = "core"').replace(
            'values.main = { description = "The main product." }',
            'values.core = { description = "The core product." }',
        ),
    )
    report = sync(labelled)
    assert report.relabelled == 3, report
    assert report.ingested == 0 and report.skipped == 3 and not report.errors
    assert embed_calls == []  # nothing re-embedded
    assert labels_of(labelled, docs / "status.md")["project"] == ("core", "default")
    assert labels_of(labelled, docs / "pilots/letter.md")["project"] == ("pilots", "path")
    assert len(plugin.models) == 2 and plugin.models[1].closed  # one load per sync
    assert sync(labelled).relabelled == 0


def test_a_moved_file_is_relabelled_by_its_new_folder(labelled, docs, plugin, embed_calls) -> None:
    sync(labelled)
    embed_calls.clear()
    shutil.move(docs / "status.md", docs / "pilots" / "status.md")
    report = sync(labelled)
    assert report.moved == 1 and report.relabelled == 1, report
    assert embed_calls == []
    assert labels_of(labelled, docs / "pilots" / "status.md")["project"] == ("pilots", "path")


def test_without_the_extra_labels_wait_and_the_next_sync_fills_them(
    labelled, docs, monkeypatch, embed_calls
) -> None:
    register(monkeypatch, None)
    report = sync(labelled)
    assert report.ingested == 3 and report.failed == 0 and report.ok
    [entry] = report.errors  # one entry for the one reason, however many documents
    assert "[classify] extra" in entry["reason"] and "2 more documents" in entry["reason"]
    assert labels_of(labelled, docs / "status.md") == {"project": ("main", "default")}
    stored = decode_labels(labelled.index.sources()[str(docs / "status.md")].labels)
    assert stored.pending == ("type",)

    # Still no extra: reported again, nothing rewritten.
    again = sync(labelled)
    assert again.relabelled == 0 and again.failed == 0 and len(again.errors) == 1

    plugin = FakePlugin(FakeModel)
    register(monkeypatch, plugin)
    embed_calls.clear()
    fixed = sync(labelled)
    assert fixed.relabelled == 3 and not fixed.errors
    assert embed_calls == []
    assert labels_of(labelled, docs / "status.md")["type"] == ("report", "model")
    assert len(plugin.models) == 1 and plugin.models[0].closed


def test_every_ingest_path_labels(labelled, docs, plugin) -> None:
    result = labelled.ingest_file(docs / "pilots/letter.md")
    assert result.label_problem is None
    assert labels_of(labelled, docs / "pilots/letter.md") == {
        "project": ("pilots", "path"),
        "type": ("mail", "model"),
    }
    data = labelled.ingest_data("memo", "Attendees: Ann.\n\nMinutes of the call.", "text")
    assert data.label_problem is None
    # A text document has no folder: the default cannot place it, only the model answers.
    assert labels_of(labelled, "memo") == {"type": ("minutes", "model")}
    stored = decode_labels(labelled.index.sources()["memo"].labels)
    assert "project" in stored.absent
    # Each single ingest is a job of its own: loaded, then released.
    assert len(plugin.models) == 2 and all(m.closed for m in plugin.models)


def test_one_labelling_job_shares_the_model(labelled, docs, plugin) -> None:
    with labelled.labelling() as job:
        for name in DOCS:
            labelled.ingest_file(docs / name, labels=job)
        assert len(plugin.models) == 1 and not plugin.models[0].closed
    assert plugin.models[0].closed


def test_ingest_without_the_extra_names_the_problem(labelled, docs, no_extra) -> None:
    result = labelled.ingest_file(docs / "status.md")
    assert result.label_problem and "type" in result.label_problem
    assert "[classify] extra" in result.label_problem
    assert labels_of(labelled, docs / "status.md") == {"project": ("main", "default")}


def test_no_taxonomy_file_stores_no_labels(make_pipeline, docs, plugin) -> None:
    write_docs(docs)
    pipeline = make_pipeline(docs)
    pipeline.taxonomy = TaxonomyLoader.for_root(docs)
    report = sync(pipeline)
    assert report.ingested == 3 and report.relabelled == 0 and not report.errors
    assert all(info.labels is None for info in pipeline.index.sources().values())
    assert pipeline.ingest_file(docs / "status.md").label_problem is None
    assert plugin.models == []


def test_a_broken_taxonomy_is_reported_never_fatal(labelled, docs, plugin) -> None:
    write_taxonomy(docs, TOML + "\n[extra]\nkey = 1\n")
    result = labelled.ingest_file(docs / "status.md")
    assert result.label_problem and "stored without labels" in result.label_problem
    report = sync(labelled)
    assert report.failed == 0 and report.ingested == 2
    assert any("labels not updated" in e["reason"] for e in report.errors)
    write_taxonomy(docs)
    assert sync(labelled).relabelled == 3
