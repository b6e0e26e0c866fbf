"""classify try: one file labelled as an ingest would, with the date, nothing stored."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from minirag_ingest.labels.resolve import ModelSession, classify_hint
from minirag_ingest.labels.taxonomy import ModelSpec, parse_taxonomy
from minirag_ingest.labels.try_file import classify_try, try_lines

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


def test_try_with_the_model(tmp_path: Path):
    taxonomy = parse_taxonomy(TOML)
    path = write_doc(tmp_path)
    with ModelSession(taxonomy.model, tmp_path, finder=lambda: (Plugin(), None)) as session:
        result = classify_try(path, taxonomy, session, roots=[tmp_path])
    assert result["path"] == "pilots/2026-08-05 weekly.md"
    assert result["facets"]["project"] == {
        "value": "pilots",
        "confidence": 1.0,
        "source": "path",
        "uncertain": False,
    }
    kind = result["facets"]["type"]
    assert (kind["value"], kind["source"], kind["uncertain"], kind["runnerUp"]) == (
        "minutes",
        "model",
        True,
        "report",
    )
    assert kind["distribution"] == {"minutes": 0.6, "mail": 0.1, "report": 0.3}
    assert result["facets"]["area"]["value"] is None
    assert (result["date"], result["dateSource"]) == ("2026-08-05", "name")
    assert result["problems"] == []
    lines = try_lines(result)
    assert "  project: pilots  1.00 path" in lines
    assert any(line.startswith("  type: minutes  0.60 model  uncertain") for line in lines)
    assert "    minutes 0.60  report 0.30  mail 0.10" in lines
    assert any("area: not set (outside within)" in line for line in lines)
    assert lines[-1] == "  date: 2026-08-05 (name)"


def test_try_without_the_extra_reports_the_problem(tmp_path: Path):
    taxonomy = parse_taxonomy(TOML)
    path = write_doc(tmp_path)
    session = ModelSession(taxonomy.model, tmp_path, finder=lambda: (None, classify_hint()))
    result = classify_try(path, taxonomy, session, roots=[tmp_path])
    assert result["facets"]["project"]["value"] == "pilots"
    assert result["facets"]["type"]["value"] is None
    assert "[classify]" in result["facets"]["type"]["notSet"]
    assert len(result["problems"]) == 1 and result["problems"][0].startswith("type: ")
    assert result["date"] == "2026-08-05"  # dates need no model
