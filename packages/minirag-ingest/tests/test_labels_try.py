"""classify try: one file labelled as an ingest would, with the date, nothing stored."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from minirag_index.search.filters import Label
from minirag_ingest.labels.resolve import ModelSession
from minirag_ingest.labels.taxonomy import ModelSpec, parse_taxonomy
from minirag_ingest.labels.try_file import classify_try
from testsupport.classify import register

TOML = """
[model]
path = "/models/choice.gguf"
temperature = 2.0

[facets.project]
default = "main"
values.main = { description = "Main." }
values.pilots = { description = "Pilots.", paths = ["pilots"] }

[facets.type]
values.minutes = { description = "Minutes." }
values.mail = { description = "Mail." }
values.report = { description = "Report." }

[facets.area]
within = ["work"]
default = "general"
values.general = { description = "General." }
"""


class Model:
    def ask(self, question: str, options: Sequence[tuple[str, str]], head: str, name):
        assert name == "2026-08-05 weekly.md" and "Weekly" in head
        return {"minutes": 0.6, "mail": 0.1, "report": 0.3}

    def close(self) -> None:
        pass


class Plugin:
    name = "fake"

    def probe(self, spec: ModelSpec, cache_dir: Path):
        return None

    def load(self, spec: ModelSpec, cache_dir: Path):
        return Model()


def write_doc(root: Path) -> Path:
    path = root / "pilots" / "2026-08-05 weekly.md"
    path.parent.mkdir(parents=True)
    path.write_text("# Weekly\n\nAttendees: Ann, Bob.\n")
    os.utime(path, (0, 0))
    return path


def test_try_with_the_model(tmp_path: Path, monkeypatch):
    taxonomy = parse_taxonomy(TOML)
    path = write_doc(tmp_path)
    register(monkeypatch, Plugin())
    with ModelSession(taxonomy.model, tmp_path) as session:
        result = classify_try(path, taxonomy, session, roots=[tmp_path])
    assert result.path == "pilots/2026-08-05 weekly.md"
    project, kind, area = result.facets
    assert project.label == Label("pilots", 1.0, "path")
    assert kind.label is not None
    assert (kind.label.value, kind.label.source, kind.label.uncertain) == ("minutes", "model", True)
    assert kind.label.runner_up == "report"
    assert list(kind.distribution.items()) == [("minutes", 0.6), ("mail", 0.1), ("report", 0.3)]
    assert area.label is None and area.not_set == "outside within"
    assert (result.date, result.date_source) == ("2026-08-05", "name")
    assert result.problems == []


def test_try_without_the_extra_reports_the_problem(tmp_path: Path, monkeypatch):
    taxonomy = parse_taxonomy(TOML)
    path = write_doc(tmp_path)
    register(monkeypatch, None)
    session = ModelSession(taxonomy.model, tmp_path)
    result = classify_try(path, taxonomy, session, roots=[tmp_path])
    project, kind, _ = result.facets
    assert project.label is not None and project.label.value == "pilots"
    assert kind.label is None and "[classify]" in (kind.not_set or "")
    assert len(result.problems) == 1 and result.problems[0].startswith("type: ")
    assert result.date == "2026-08-05"  # dates need no model
