"""Labels through a real index: relabelling from stored chunk text, then filtering.

This is the path a sync takes for a document whose taxonomy changed: nothing is parsed or
embedded again, the labels are resolved from the stored text and written in place.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from minirag_index.search.filters import apply_filter, parse_filter, public_labels
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.labels.resolve import (
    ModelSession,
    needs_relabel,
    relative_path,
    resolve_labels,
)
from minirag_ingest.labels.taxonomy import parse_taxonomy
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
"""


class Model:
    def __init__(self) -> None:
        self.heads: list[str] = []

    def ask(self, question: str, options: Sequence[tuple[str, str]], head: str, name):
        self.heads.append(head)
        if "Subject:" in head:
            return {"mail": 0.9, "minutes": 0.1}
        return {"minutes": 0.55, "mail": 0.45}

    def close(self) -> None:
        pass


class Plugin:
    name = "fake"

    def __init__(self) -> None:
        self.model = Model()

    def probe(self, spec, cache_dir: Path):
        return None

    def load(self, spec, cache_dir: Path):
        return self.model


def test_relabel_from_stored_text_then_filter(
    pipeline: Pipeline, docs: Path, tmp_path: Path, monkeypatch
):
    (docs / "pilots").mkdir()
    (docs / "pilots" / "notes.md").write_text("# Sync\n\nDecisions: ship it. It's done.\n")
    (docs / "mail.md").write_text("Subject: lunch\n\nDate: 2026-08-05\n\nLunch at noon?\n")
    for name in ("pilots/notes.md", "mail.md"):
        pipeline.ingest_file(docs / name)
    taxonomy = parse_taxonomy(TOML)
    plugin = Plugin()
    register(monkeypatch, plugin)
    with ModelSession(taxonomy.model, tmp_path) as session:
        for source, info in pipeline.index.sources().items():
            rel = relative_path(source, pipeline.roots)
            assert needs_relabel(info.labels, taxonomy, rel)
            markdown = pipeline.index.read_document(source) or ""
            outcome = resolve_labels(
                taxonomy,
                rel_path=rel,
                markdown=markdown,
                file_name=Path(source).name,
                session=session,
            )
            pipeline.index.store.update_source_fields(source, {"labels": outcome.to_json()})
    assert any("Decisions: ship it. It's done." in head for head in plugin.model.heads)

    sources = pipeline.index.sources()
    notes, mail = str(docs / "pilots" / "notes.md"), str(docs / "mail.md")
    assert public_labels(sources[notes].labels)["project"]["value"] == "pilots"
    assert public_labels(sources[mail].labels)["type"]["value"] == "mail"
    for source, info in sources.items():
        assert not needs_relabel(info.labels, taxonomy, relative_path(source, pipeline.roots))

    vocabulary = taxonomy.filter_vocabulary()
    mail_only = apply_filter(sources, parse_filter({"type": "mail"}, vocabulary=vocabulary))
    # notes.md is an uncertain "minutes" whose runner-up is "mail": it matches softly
    assert sorted(mail_only.kept) == sorted([notes, mail])
    pilots = apply_filter(sources, parse_filter({"project": "pilots"}, vocabulary=vocabulary))
    assert list(pilots.kept) == [notes]
    dated = apply_filter(sources, parse_filter(None, "2026-08-05", "2026-08-05", vocabulary=None))
    assert mail in dated.kept
