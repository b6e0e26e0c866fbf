"""A sync embeds only what changed: an edited paragraph's chunks, nothing for a second copy."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from minirag_ingest.pipeline import Pipeline
from minirag_ingest.sync import sync
from testsupport.embedding import count_passages

WORDS = (
    "harbour depot relay crate shelf ledger invoice tariff freight convoy signal beacon "
    "valve turbine boiler furnace gasket piston rotor spindle gauge meter sensor cable "
    "archive register permit licence audit survey census quarry mill forge kiln"
)


def document(paragraphs: int) -> tuple[str, list[str]]:
    """A Markdown report: a title, a heading every four paragraphs, sentences of made-up
    facts (a paragraph is one or two chunks)."""
    pick = random.Random(7)
    words = WORDS.split(" ")
    body = []
    for n in range(paragraphs):
        sentences = [
            f"The {pick.choice(words)} of unit {n}-{s} reports {pick.randint(2, 999)} "
            f"{pick.choice(words)}s to the {pick.choice(words)} {pick.choice(words)} office."
            for s in range(pick.randint(5, 10))
        ]
        body.append(" ".join(sentences))
    parts = ["# Quarterly plant report"]
    for n, paragraph in enumerate(body):
        if n % 4 == 0:
            parts.append(f"## Area {n // 4}")
        parts.append(paragraph)
    return "\n\n".join(parts) + "\n", body


@pytest.fixture
def embedded(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the pipeline's model embeds as a passage."""
    return count_passages(pipeline.index.embedder, monkeypatch)


@pytest.fixture
def report(pipeline: Pipeline, docs: Path, embedded: list[str]) -> tuple[Path, list[str]]:
    """A synced 100-chunk document and its paragraphs."""
    text, paragraphs = document(66)
    path = docs / "report.md"
    path.write_text(text, encoding="utf-8")
    assert sync(pipeline).ingested == 1
    assert len(pipeline.index.source_chunks(str(path))) >= 100
    embedded.clear()
    return path, paragraphs


def chunk_texts(pipeline: Pipeline, path: Path) -> list[str]:
    return [chunk.text for chunk in pipeline.index.source_chunks(str(path))]


@pytest.mark.parametrize("where", [0.1, 0.3, 0.5, 0.7, 0.95])
def test_editing_one_paragraph_embeds_at_most_three_chunks(
    pipeline: Pipeline, report, embedded: list[str], where: float
) -> None:
    path, paragraphs = report
    before = chunk_texts(pipeline, path)
    target = paragraphs[int(where * len(paragraphs))]
    edited = target.replace(" reports ", " reports, says the xylophonist, ", 1)
    path.write_text(path.read_text(encoding="utf-8").replace(target, edited), encoding="utf-8")

    result = sync(pipeline)
    assert result.ingested == 1
    after = chunk_texts(pipeline, path)
    new = [text for text in after if text not in before]
    assert 1 <= len(embedded) <= 3
    assert sorted(embedded) == sorted(new)  # exactly the chunks whose text is new
    assert any("xylophonist" in text for text in embedded)
    hits = pipeline.index.search("xylophonist", top_k=1).hits
    assert hits and "xylophonist" in hits[0].text


def test_a_second_copy_under_another_name_embeds_nothing(
    pipeline: Pipeline, report, embedded: list[str], docs: Path
) -> None:
    path, _ = report
    (docs / "archive").mkdir()
    copy = docs / "archive" / "report (copy).md"
    shutil.copy(path, copy)

    result = sync(pipeline)
    assert result.ingested == 1
    assert embedded == []
    assert chunk_texts(pipeline, copy) == chunk_texts(pipeline, path)
    assert set(pipeline.index.sources()) == {str(path), str(copy)}


def test_a_chunking_scheme_change_reembeds_only_chunks_whose_text_changed(
    pipeline: Pipeline, report, embedded: list[str]
) -> None:
    """A document read again for another reason (here: stored by an older chunking scheme)
    keeps the vectors of the chunks that came out the same."""
    path, _ = report
    pipeline.index.store.update_source_fields(str(path), {"scheme": 1})
    result = sync(pipeline)
    assert result.ingested == 1
    assert embedded == []
