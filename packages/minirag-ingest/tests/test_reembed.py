"""A sync embeds only what changed: an edited paragraph's chunks, nothing for a second copy."""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from minirag_ingest.chunking import chunk_markdown
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.sync.run import sync
from testsupport.edits import EDITS, sentences
from testsupport.embedding import count_passages

WORDS = (
    "harbour depot relay crate shelf ledger invoice tariff freight convoy signal beacon "
    "valve turbine boiler furnace gasket piston rotor spindle gauge meter sensor cable "
    "archive register permit licence audit survey census quarry mill forge kiln"
)


def paragraphs(count: int, seed: int = 7) -> list[str]:
    """Paragraphs of made-up facts, five to ten sentences each (one or two chunks)."""
    pick = random.Random(seed)
    words = WORDS.split(" ")
    body = []
    for n in range(count):
        sentences = [
            f"The {pick.choice(words)} of unit {n}-{s} reports {pick.randint(2, 999)} "
            f"{pick.choice(words)}s to the {pick.choice(words)} {pick.choice(words)} office."
            for s in range(pick.randint(5, 10))
        ]
        body.append(" ".join(sentences))
    return body


def render(body: list[str], areas: list[int], layout: str) -> str:
    """``headings``: a title, and a heading over each area's paragraphs; ``plain``: the
    paragraphs alone, one long run of prose."""
    parts = [] if layout == "plain" else ["# Quarterly plant report"]
    shown = None
    for area, paragraph in zip(areas, body, strict=True):
        if layout == "headings" and area != shown:
            parts.append(f"## Area {area}")
        shown = area
        parts.append(paragraph)
    return "\n\n".join(parts) + "\n"


def document(count: int) -> tuple[str, list[str]]:
    """A Markdown report: a title, a heading every four paragraphs (a paragraph is one or two
    chunks)."""
    body = paragraphs(count)
    return render(body, [n // 4 for n in range(count)], "headings"), body


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


def edited(body: list[str], areas: list[int], kind: str, at: int, spare: str):
    """The paragraphs and their areas after one edit; a paragraph put in joins the area of the
    one it is put before."""
    changed = EDITS[kind](body, at, spare)
    areas = list(areas)
    if len(changed) < len(areas):
        del areas[at]
    elif len(changed) > len(areas):
        areas.insert(at, areas[at])
    return changed, areas


def prepared_texts(pipeline: Pipeline, path: Path, text: str) -> list[str]:
    """The texts a sync of ``path`` holding ``text`` hands to the model (title line included)."""
    path.write_text(text, encoding="utf-8")
    return [chunk.text for chunk in pipeline.prepare_file(path).chunks]


@pytest.mark.parametrize("layout", ["headings", "plain"])
def test_every_kind_of_one_paragraph_edit_re_embeds_at_most_three_chunks(
    pipeline: Pipeline, docs: Path, layout: str
) -> None:
    """Counted over the texts a sync embeds (the test above shows a sync embeds exactly the
    new ones), at positions spread over a 100-chunk document, with and without headings."""
    body = paragraphs(66)
    spare = paragraphs(70, seed=11)[-1]
    areas = [n // 4 for n in range(len(body))]
    path = docs / "report.md"
    before = prepared_texts(pipeline, path, render(body, areas, layout))
    assert len(before) >= 100
    if layout == "plain":
        assert len({chunk.section for chunk in pipeline.prepare_file(path).chunks}) >= 8
    known = set(before)
    over: dict[str, list[int]] = {}
    for kind in EDITS:
        for at in (1, 9, 20, 33, 46, 58, 65):
            changed, changed_areas = edited(body, areas, kind, at, spare)
            after = prepared_texts(pipeline, path, render(changed, changed_areas, layout))
            new = [text for text in after if text not in known]
            if kind != "deleted":
                assert new, (kind, at)  # the edit shows in the index
            if len(new) > 3:
                over.setdefault(kind, []).append(len(new))
    assert over == {}


@pytest.mark.parametrize("kind", ["inserted", "deleted"])
def test_an_edit_right_under_a_heading_leaves_the_paragraph_after_it_as_it_was(
    pipeline: Pipeline, docs: Path, kind: str
) -> None:
    """A paragraph put in right under a heading, or the one there deleted: the paragraph that
    opened the section and now follows the new one (or opens it now) keeps its exact text, so
    only the new paragraph's chunks are embedded."""
    body = paragraphs(16)
    spare = paragraphs(70, seed=11)[-1]
    areas = [n // 4 for n in range(len(body))]
    path = docs / "report.md"
    before = prepared_texts(pipeline, path, render(body, areas, "headings"))
    for at in (4, 8, 12):  # the first paragraph of an area, right under its heading
        changed, changed_areas = edited(body, areas, kind, at, spare)
        after = prepared_texts(pipeline, path, render(changed, changed_areas, "headings"))
        if kind == "inserted":
            assert set(before) <= set(after), at
            new = [text for text in after if text not in before]
            assert new and all(any(s in text for s in sentences(spare)) for text in new)
        else:
            assert set(after) <= set(before), at


def test_a_document_gives_the_same_chunks_in_an_empty_index_and_a_populated_one(
    pipeline: Pipeline,
    make_pipeline: Callable[..., Pipeline],
    report,
    embedded: list[str],
    docs: Path,
    tmp_path: Path,
) -> None:
    """Chunking depends on the document and the settings alone: a grown version of the report,
    prepared against the index that holds the old version, is cut exactly as it is against an
    empty index. Vectors are still reused by content (a cache): a copy embeds nothing."""
    path, body = report
    text = path.read_text(encoding="utf-8")
    count = pipeline.index.embedder.token_counter()
    before = chunk_texts(pipeline, path)
    spare = paragraphs(70, seed=11)[-1]
    for target in body:  # a paragraph whose stored last chunk the grown text cuts otherwise
        grown = text.replace(target, EDITS["doubled"]([target], 0, spare)[0])
        old = [t for t in before if sentences(target)[-1] in t]
        cut = [c.text for c in chunk_markdown(grown, count_tokens=count).chunks]
        half_full = all(2 * count(t) >= pipeline.settings.chunk_token_budget for t in old)
        if len(old) == 1 and sentences(target)[0] not in old[0] and half_full and old[0] not in cut:
            break
    else:
        pytest.fail("no paragraph of the report shows the case")
    path.write_text(grown, encoding="utf-8")
    in_populated = [chunk.text for chunk in pipeline.prepare_file(path).chunks]

    empty = make_pipeline(docs, db_path=tmp_path / "empty-db")
    assert empty.index.store.count_rows() == 0
    in_empty = [chunk.text for chunk in empty.prepare_file(path).chunks]
    assert in_populated == in_empty
    assert old[0] not in in_populated  # the stored chunk did not draw the cut

    assert sync(pipeline).ingested == 1
    embedded.clear()
    (docs / "archive").mkdir()
    shutil.copy(path, docs / "archive" / "report (grown copy).md")
    assert sync(pipeline).ingested == 1
    assert embedded == []
