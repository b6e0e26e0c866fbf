"""Chunker tests with the real test-model tokenizer: examples per rule, then property tests on
generated Markdown (headings, prose, lists, tables, code; English and Russian words)."""

from __future__ import annotations

import re
import textwrap
import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from minirag_index.search.reconstruct import read_seam
from minirag_ingest.chunking import (
    CODE_SPLIT_MARKER,
    SECTION_CHAR_CAP,
    Chunk,
    ChunkedDocument,
    chunk_markdown,
    detect_category,
    rebuild_document,
    rebuild_section,
    timestamp_seconds,
)

Counter = Callable[[str], int]
_WS = re.compile(r"\s+")


def sections(doc: ChunkedDocument) -> dict[int, list[Chunk]]:
    grouped: dict[int, list[Chunk]] = {}
    for chunk in doc.chunks:
        grouped.setdefault(chunk.section, []).append(chunk)
    return grouped


def is_whole_code_block(body: str) -> bool:
    lines = body.strip().split("\n")
    return (
        len(lines) >= 2
        and lines[0].lstrip().startswith(("```", "~~~"))
        and (lines[-1].strip().startswith(("```", "~~~")))
    )


def assert_invariants(markdown: str, doc: ChunkedDocument, count: Counter, budget: int) -> None:
    """Every rule that must hold for any input: order, exact rebuild, budget, no lost text."""
    ordinals = [chunk.section for chunk in doc.chunks]
    assert ordinals == sorted(ordinals), "chunks must come in section order"
    grouped = sections(doc)
    assert list(grouped) == list(range(len(grouped))), "section ordinals are 0..n-1"
    position = 0
    for number, chunks in grouped.items():
        seam = read_seam(chunks[0].joiner)
        framed = rebuild_section(chunks)
        assert framed.startswith(seam.opening) and framed.endswith(seam.closing)
        text = framed[len(seam.opening) : len(framed) - len(seam.closing)]
        assert text and text == text.strip()
        found = markdown.find(text, position)
        assert found >= 0, f"section is not a contiguous piece of the input: {text[:120]!r}"
        assert markdown[position:found] == seam.gap, "the seam holds the exact gap"
        assert bool(seam.gap) == (number > 0)
        position = found + len(text)
        for chunk in chunks:
            assert 0 <= chunk.context_chars <= len(chunk.text)
            if chunk is not chunks[0]:
                assert chunk.joiner.strip() == ""
            assert chunk.body and chunk.body in text
            tokens = count(chunk.text)
            if CODE_SPLIT_MARKER in chunk.context:
                assert tokens <= budget
            elif tokens > budget:
                assert is_whole_code_block(chunk.body), (tokens, chunk.text[:200])
                assert tokens <= 4 * budget
    bodies = "".join(chunk.body for chunk in doc.chunks)
    assert _WS.sub("", bodies) == _WS.sub("", markdown), "text went missing or was duplicated"
    assert rebuild_document(doc.chunks) == markdown.strip(), "the document comes back exactly"


def chunk(markdown: str, count: Counter, budget: int = 110, title: str = "") -> ChunkedDocument:
    doc = chunk_markdown(markdown, count_tokens=count, budget=budget, title=title)
    assert_invariants(markdown, doc, count, budget)
    return doc


PROSE = (
    "The committee reviews every request within ten working days. A request that lacks the "
    "signed form is returned to the sender with a note. Urgent requests may be escalated to the "
    "deputy director, who decides within two days. Decisions are recorded in the register. "
)


# ----- detection ------------------------------------------------------------------------------


def test_detects_each_category() -> None:
    transcript = "**Anna** 00:01\nHello all.\n\n**Boris** 00:09\nHi.\n"
    slides = "<!-- Slide number: 1 -->\n# Intro\nText\n\n<!-- Slide number: 2 -->\nMore\n"
    headings = "# One\ntext\n\n## Two\nmore text\n"
    assert detect_category(transcript) == "transcript"
    assert detect_category(slides) == "slides"
    assert detect_category(headings) == "headings"
    assert detect_category("Just a paragraph.\n\nAnd another.") == "generic"
    assert detect_category("") == "generic"
    assert detect_category("02:15\nA call cut into one long turn.\n") == "transcript"


def test_detection_fails_safe() -> None:
    # One stray time among many lines is not a transcript, and one heading is not a structure.
    doc = "# Minutes\n\nWe met at 10:30.\n\nAnna 10:30\n" + "\n".join(["plain line"] * 10)
    assert detect_category(doc) == "generic"
    # Headings inside a fenced code block do not count.
    assert detect_category("Notes\n\nDone by 10:30") == "generic"
    assert detect_category("```\n# not a heading\n# nor this\n```\n\n# Real\ntext") == "generic"


@pytest.mark.parametrize(
    ("line", "seconds"),
    [
        ("**Anna Smith** 01:02", 62),
        ("Anna Smith 00:01:02", 62),
        ("[00:01:02] Anna: we start", 62),
        ("00:01:02 Anna: we start", 62),
        ("0:05", 5),
        ("[Anna] 1:02:03", 3723),
        ("The meeting starts soon", None),
        ("| 10:30 | room |", None),
        ("Anna 01:75", None),
    ],
)
def test_timestamp_lines(line: str, seconds: int | None) -> None:
    assert timestamp_seconds(line) == seconds


def test_budget_is_validated(token_counter: Counter) -> None:
    with pytest.raises(ValueError):
        chunk_markdown("text", count_tokens=token_counter, budget=8)
    with pytest.raises(ValueError):
        chunk_markdown("text", count_tokens=token_counter, budget=129)


def test_empty_document(token_counter: Counter) -> None:
    assert chunk_markdown("  \n\n ", count_tokens=token_counter).chunks == []


# ----- headings -------------------------------------------------------------------------------


def test_heading_sections_and_breadcrumbs(token_counter: Counter) -> None:
    markdown = (
        "Preamble before any heading.\n\n"
        "# 1 General\n\nIntro of part one.\n\n"
        "## 1.2 Approval\n\n" + PROSE * 3 + "\n\n## 1.3 Storage\n\nShort text.\n"
    )
    doc = chunk(markdown, token_counter)
    assert doc.category == "headings"
    grouped = sections(doc)
    texts = [rebuild_section(chunks) for chunks in grouped.values()]
    assert texts[0] == "Preamble before any heading."
    assert texts[1].startswith("# 1 General") and "## 1.2" not in texts[1]
    approval = grouped[2]
    assert approval[0].body.startswith("## 1.2 Approval")
    assert approval[0].context == "1 General\n"  # the ancestors; its own heading is in the body
    assert len(approval) > 1
    for later in approval[1:]:  # the ancestors, then the heading as it is written
        assert later.context == "1 General\n## 1.2 Approval\n\n"
        assert "## 1.2" not in later.body
    # Every chunk of the section reads the same way up to its own text.
    assert all(c.text.startswith("1 General\n## 1.2 Approval\n\n") for c in approval)
    # Rebuilt, each heading appears once and no context is repeated.
    rebuilt = rebuild_document(doc.chunks)
    assert rebuilt.count("1.2 Approval") == 1
    assert "1 General\n## 1.2" not in rebuilt


def test_breadcrumb_is_elided_in_the_middle(token_counter: Counter) -> None:
    titles = [
        "1 General provisions applying to every department of the organisation",
        "1.3 Procurement of equipment, furniture and consumables",
        "1.3.4 Requests that need approval from more than one budget holder",
        "1.3.4.2 Approval procedure",
    ]
    markdown = "".join(f"{'#' * (n + 1)} {title}\n\n" for n, title in enumerate(titles))
    markdown += PROSE * 4
    doc = chunk(markdown, token_counter)
    later = doc.chunks[-1]
    context = later.context
    assert context.startswith(titles[0] + " > …")
    assert context.rstrip("\n").endswith(titles[-1])
    assert token_counter(context) - token_counter("") <= 110 // 3


@pytest.mark.parametrize("opening", ["# Handbook\n\n", "# Handbook\n\nIntro.\n\n"])
def test_a_paragraph_put_directly_under_a_heading_leaves_the_next_one_as_it_was(
    token_counter: Counter, opening: str
) -> None:
    """The paragraph that opened a heading section and now follows a new one keeps its chunk's
    exact text (so its stored vector), and so does the one that opens the section once the
    first is deleted: the heading reads the same in the body of a section's first chunk and in
    the context of every later one. Part A's section either opens with "# Handbook" (a heading
    with no text of its own) or sits under it."""
    body = numbered_paragraphs(4)
    markdown = opening + "## Part A\n\n" + "\n\n".join(body) + "\n\n## Part B\n\nB text.\n"
    new_paragraph = PROSE.strip()
    inserted = markdown.replace(body[0], f"{new_paragraph}\n\n{body[0]}")
    deleted = markdown.replace(f"{body[0]}\n\n", "")
    before = {c.text for c in chunk(markdown, token_counter).chunks}
    after_insert = {c.text for c in chunk(inserted, token_counter).chunks}
    after_delete = {c.text for c in chunk(deleted, token_counter).chunks}
    assert before <= after_insert  # only the new paragraph's chunks are new
    assert all("signed form" in text for text in after_insert - before)
    assert after_delete <= before  # nothing new to embed


def test_later_chunks_carry_every_pending_heading_as_written(token_counter: Counter) -> None:
    """Headings with no text of their own are carried into the next section: its later chunks
    repeat all of them exactly, after the ancestors' breadcrumb."""
    markdown = "# Handbook\n\nIntro.\n\n## Part A\n\n### A.1 Scope\n\n" + PROSE * 3
    grouped = sections(chunk(markdown, token_counter))
    scope = grouped[1]
    assert scope[0].context == "Handbook\n"
    assert scope[0].body.startswith("## Part A\n\n### A.1 Scope\n\nThe committee")
    assert len(scope) > 1
    for later in scope[1:]:
        assert later.context == "Handbook\n## Part A\n\n### A.1 Scope\n\n"


def test_a_heading_too_long_to_repeat_as_written_falls_back_to_the_breadcrumb(
    token_counter: Counter,
) -> None:
    """The repeated heading takes at most a third of the budget: past it, later chunks carry
    the elided breadcrumb as before, and a short heading in the same document keeps its exact
    form."""
    long_title = " ".join(f"clause{n} on procurement" for n in range(12))
    markdown = (
        "# Handbook\n\nIntro.\n\n## Short\n\n" + PROSE * 3 + f"\n\n## {long_title}\n\n" + PROSE * 3
    )
    grouped = sections(chunk(markdown, token_counter))
    short, long = grouped[1], grouped[2]
    assert {c.context for c in short[1:]} == {"Handbook\n## Short\n\n"}
    assert long[0].context == "Handbook\n" and long[0].body.startswith(f"## {long_title}")
    assert len(long) > 1
    for later in long[1:]:
        assert "##" not in later.context
        assert later.context.startswith("Handbook > ") or later.context.startswith("… > ")
        assert token_counter(later.context) - token_counter("") <= 110 // 3


def test_blank_lines_under_a_heading_are_not_repeated_in_every_chunk(
    token_counter: Counter,
) -> None:
    """Blank lines cost no tokens: a heading followed by thousands of them is repeated as a
    breadcrumb, not as written, so later chunks do not each carry the blank lines (here the
    section cap puts the heading and its text in two sections)."""
    markdown = "# Handbook\n\nIntro.\n\n## Part A" + "\n" * 20_000 + PROSE * 3
    doc = chunk(markdown, token_counter)
    text = [c for c in doc.chunks if "committee" in c.body]
    assert len(text) > 1
    assert {c.context for c in text} == {"Handbook > Part A\n"}


def test_empty_heading_becomes_its_own_chunk(token_counter: Counter) -> None:
    markdown = "# Part A\n\nSome text.\n\n## Lonely heading\n\n## Next heading\n\nMore text.\n"
    doc = chunk(markdown, token_counter)
    lonely = [c for c in doc.chunks if "Lonely heading" in c.body]
    assert len(lonely) == 1 and lonely[0].body == "## Lonely heading"


def test_heading_with_only_nested_headings_joins_the_next_section(token_counter: Counter) -> None:
    markdown = "# Part A\n\n## A.1 Scope\n\nScope text.\n\n# Part B\n\nB text.\n"
    doc = chunk(markdown, token_counter)
    texts = [rebuild_section(chunks) for chunks in sections(doc).values()]
    assert texts == ["# Part A\n\n## A.1 Scope\n\nScope text.", "# Part B\n\nB text."]
    assert doc.chunks[0].context == ""


def test_headings_in_code_do_not_split_sections(token_counter: Counter) -> None:
    markdown = "# Setup\n\n```bash\n# install it\npip install x\n```\n\n# Use\n\nRun it.\n"
    doc = chunk(markdown, token_counter)
    texts = [rebuild_section(chunks) for chunks in sections(doc).values()]
    assert len(texts) == 2 and "# install it" in texts[0]


# ----- tables ---------------------------------------------------------------------------------


def make_table(rows: int, cell: str = "value") -> str:
    lines = ["| Code | Name | Note |", "|---|---|---|"]
    lines += [f"| r{i:03d} | {cell} {i} | remark number {i} |" for i in range(rows)]
    return "\n".join(lines)


def test_table_rows_carry_the_header(token_counter: Counter) -> None:
    markdown = "# Items\n\nSee below.\n\n" + make_table(40) + "\n\n# Other\n\nText.\n"
    doc = chunk(markdown, token_counter)
    table_chunks = [c for c in doc.chunks if "| r0" in c.body]
    assert len(table_chunks) > 1
    for piece in table_chunks[1:]:
        assert piece.context == "# Items\n\n| Code | Name | Note |\n|---|---|---|\n"
        assert piece.body.startswith("| r")
    for i in range(40):  # never split inside a row
        row = f"| r{i:03d} | value {i} | remark number {i} |"
        assert sum(row in c.body for c in doc.chunks) == 1
    rebuilt = rebuild_document(doc.chunks)
    assert rebuilt.count("| Code | Name | Note |") == 1


def test_section_cap_cuts_a_table_at_rows_and_repeats_header(token_counter: Counter) -> None:
    table = make_table(200, cell="a fairly long cell value")
    assert len(table) > 2 * SECTION_CHAR_CAP
    doc = chunk(table, token_counter)
    grouped = sections(doc)
    assert len(grouped) >= 3
    for ordinal, chunks in grouped.items():
        text = rebuild_section(chunks)
        assert len(text) <= SECTION_CHAR_CAP
        # Every section a reader is given starts with the table's header and separator...
        assert text.startswith("| Code | Name | Note |\n|---|---|---|\n| r")
        assert text.count("| Code | Name | Note |") == 1
        if ordinal:
            assert chunks[0].context.startswith("| Code | Name | Note |\n")
    # ...while the document holds them once, and no blank line ends the table early.
    rebuilt = rebuild_document(doc.chunks)
    assert rebuilt == table


def test_header_only_table_is_kept(token_counter: Counter) -> None:
    markdown = "Intro paragraph.\n\n| Only | A | Header |\n|---|---|---|\n\nOutro."
    doc = chunk(markdown, token_counter)
    assert any("| Only | A | Header |" in c.body for c in doc.chunks)


def test_over_budget_row_is_split_at_whitespace_and_rebuilt_whole(token_counter: Counter) -> None:
    long_cell = " ".join(f"word{i}" for i in range(120))
    markdown = f"| Key | Text |\n|---|---|\n| k1 | short |\n| k2 | {long_cell} |\n| k3 | end |"
    doc = chunk(markdown, token_counter, budget=64)
    pieces = [c for c in doc.chunks if "word" in c.body]
    assert len(pieces) > 1
    assert all(c.context.startswith("| Key | Text |") for c in pieces[1:])
    assert f"| k2 | {long_cell} |" in rebuild_document(doc.chunks)


# ----- sections and the cap -------------------------------------------------------------------


def test_generic_sections_are_structural_blocks(token_counter: Counter) -> None:
    markdown = "First paragraph.\n\nSecond paragraph.\n\n" + make_table(3) + "\n\n```\ncode\n```"
    doc = chunk(markdown, token_counter)
    assert doc.category == "generic"
    texts = [rebuild_section(chunks) for chunks in sections(doc).values()]
    assert texts == ["First paragraph.\n\nSecond paragraph.", make_table(3), "```\ncode\n```"]


def test_unbroken_paragraph_over_cap_is_cut_at_sentences(token_counter: Counter) -> None:
    paragraph = PROSE * 30
    doc = chunk(paragraph.strip(), token_counter)
    texts = [rebuild_section(chunks) for chunks in sections(doc).values()]
    assert len(texts) > 1
    assert all(len(text) <= SECTION_CHAR_CAP for text in texts)
    assert all(text.endswith(".") for text in texts)


def numbered_paragraphs(count: int, sentences: int = 6) -> list[str]:
    return [
        " ".join(f"Paragraph {n} says thing {s} about the harbour depot." for s in range(sentences))
        for n in range(count)
    ]


def test_section_cuts_away_from_an_edit_stay_where_they_were(token_counter: Counter) -> None:
    """A long heading-less document is cut into sections where the text says, not into equal
    parts of its length: doubling one early paragraph leaves the later sections as they were."""
    paragraphs = numbered_paragraphs(60)
    before = "\n\n".join(paragraphs)
    paragraphs[3] = paragraphs[3] + " " + paragraphs[3].replace("says", "adds")
    after = "\n\n".join(paragraphs)
    old = [rebuild_section(c) for c in sections(chunk(before, token_counter)).values()]
    new = [rebuild_section(c) for c in sections(chunk(after, token_counter)).values()]
    assert len(old) >= 8 and all(len(text) <= SECTION_CHAR_CAP for text in old + new)
    assert old[-5:] == new[-5:]
    assert len(set(new) - set(old)) <= 2


def test_a_heading_or_title_line_is_never_a_chunk_of_its_own(token_counter: Counter) -> None:
    """Each chunk holds whole paragraphs or a piece of one paragraph, but a heading, a title
    line opening the document and a label line start the chunk of what follows them."""
    long_paragraph = numbered_paragraphs(1, sentences=14)[0]
    parts = ["Harbour_Report", long_paragraph, "Results by depot", long_paragraph, "## Notes"]
    markdown = "\n\n".join([*parts, long_paragraph])
    bodies = [c.body for c in chunk(markdown, token_counter).chunks]
    assert bodies[0].startswith("Harbour_Report\n\nParagraph 0")
    assert any(body.startswith("Results by depot\n\nParagraph 0") for body in bodies)
    assert all(body not in ("Harbour_Report", "Results by depot", "## Notes") for body in bodies)
    end = "thing 13 about the harbour depot."
    for body in bodies:  # no chunk holds the end of one long paragraph and what follows it
        assert end not in body or body.endswith(end)


def test_single_sentence_over_cap_stays_whole(token_counter: Counter) -> None:
    sentence = " ".join(["endless"] * 900) + "."
    doc = chunk(sentence, token_counter)
    assert [rebuild_section(c) for c in sections(doc).values()] == [sentence]


# ----- code -----------------------------------------------------------------------------------


def code_block(lines: int) -> str:
    body = "\n".join(f"    total_{i} = compute(value_{i}, factor={i})" for i in range(lines))
    return f"```python\n{body}\n```"


def test_code_block_is_atomic_up_to_four_budgets(token_counter: Counter) -> None:
    block = code_block(12)
    assert 110 < token_counter(block) <= 440
    doc = chunk(f"Before.\n\n{block}\n\nAfter.", token_counter)
    assert [c.body for c in doc.chunks if "total_" in c.body] == [block]


def test_code_block_over_four_budgets_is_split_and_marked(token_counter: Counter) -> None:
    block = code_block(60)
    assert token_counter(block) > 440
    doc = chunk(f"# Code\n\n{block}\n\n# Next\n\ntext", token_counter)
    pieces = [c for c in doc.chunks if "total_" in c.body]
    assert len(pieces) > 1
    for piece in pieces:
        assert CODE_SPLIT_MARKER in piece.context
        assert token_counter(piece.text) <= 110
    assert block in rebuild_document(doc.chunks)


def test_code_block_over_the_cap_is_closed_and_reopened_in_each_section(
    token_counter: Counter,
) -> None:
    functions = "\n\n".join(
        f"def g{i}(x, y):\n    result = x * {i} + y\n    return result" for i in range(200)
    )
    block = f"~~~~python title=demo.py\n{functions}\n~~~~"
    assert len(block) > 2 * SECTION_CHAR_CAP
    markdown = f"# Module\n\nThe helpers:\n\n{block}\n\nThat is all.\n"
    doc = chunk(markdown, token_counter)
    texts = [rebuild_section(c) for c in sections(doc).values()]
    cut = [t for t in texts if "def g" in t]
    assert len(cut) >= 3
    for text in cut:
        assert len(text) <= SECTION_CHAR_CAP
        lines = text.split("\n")
        opening = lines.index("~~~~python title=demo.py")  # the same fence and info string
        assert lines[opening + 1].startswith(("def g", "    "))  # never an empty block
        assert lines[opening + 1].strip()
        assert text.count("~~~~") == 2  # closed where the section ends, or by its own fence
        closing = len(lines) - 1 - lines[::-1].index("~~~~")
        assert closing > opening + 1
        # Lines inside keep their indentation, even the first line of a section.
        assert all(not line.startswith("result") for line in lines)
    # read_file: the block once, byte for byte, with no blank line added where it was cut.
    assert rebuild_document(doc.chunks) == markdown.strip()


def test_a_cut_never_leaves_a_header_or_fence_alone(token_counter: Counter) -> None:
    # One heading section: prose, then a table or code block, the cap falling on its first lines
    # (these sizes put it right after the table's separator row, and after the opening fence).
    for filler in range(3890, 3970, 4):
        prose = "# A\n\nIntro.\n\n# B\n\n" + "word " * (filler // 5)
        doc = chunk(prose + "\n\n" + make_table(101), token_counter)
        for chunks in sections(doc).values():
            text = rebuild_section(chunks)
            assert not text.endswith("|---|---|---|"), filler
            assert text.count("| Code | Name | Note |") <= 1
        doc = chunk(prose + "\n\n" + code_block(150), token_counter)
        for chunks in sections(doc).values():
            assert "```python\n```" not in rebuild_section(chunks), filler


def test_unclosed_fence_is_ordinary_text(token_counter: Counter) -> None:
    markdown = "Intro.\n\n```\n" + (PROSE * 6)
    doc = chunk(markdown, token_counter)
    assert len(doc.chunks) > 2
    assert all(token_counter(c.text) <= 110 for c in doc.chunks)


# ----- slides ---------------------------------------------------------------------------------


def test_one_section_per_slide(token_counter: Counter) -> None:
    markdown = (
        "<!-- Slide number: 1 -->\n# Welcome\n\nAgenda for today.\n\n"
        "<!-- Slide number: 2 -->\n# Numbers\n\n" + PROSE * 3 + "\n\n"
        "<!-- Slide number: 3 -->\nThanks.\n"
    )
    doc = chunk(markdown, token_counter)
    assert doc.category == "slides"
    grouped = sections(doc)
    assert len(grouped) == 3
    assert len(grouped[0]) == 1 and len(grouped[2]) == 1
    assert len(grouped[1]) > 1
    assert all(c.context == "Slide 2: Numbers\n" for c in grouped[1][1:])


# ----- transcripts ----------------------------------------------------------------------------


def test_transcript_windows_and_labels(token_counter: Counter) -> None:
    turns = [("Anna", "00:10"), ("Boris", "01:50"), ("Anna", "02:05"), ("Carl", "05:00")]
    markdown = "\n\n".join(f"**{who}** {at}\nI said something at {at}." for who, at in turns)
    doc = chunk(markdown, token_counter, title="Weekly sync")
    assert doc.category == "transcript"
    grouped = sections(doc)
    labels = [chunks[0].context for chunks in grouped.values()]
    assert labels == [
        "[00:00–02:00] Weekly sync\n",
        "[02:00–04:00] Weekly sync\n",
        "[04:00–06:00] Weekly sync\n",
    ]
    assert rebuild_section(grouped[0]).startswith("**Anna** 00:10")
    assert "**Boris** 01:50" in rebuild_section(grouped[0])


def test_transcript_packs_turns_and_splits_long_ones(token_counter: Counter) -> None:
    long_turn = PROSE * 4
    markdown = (
        "**Anna** 00:01\nShort opening.\n\n**Boris** 00:05\nShort reply.\n\n"
        f"**Anna** 00:20\n{long_turn}\n\n**Boris** 01:00\nOkay."
    )
    doc = chunk(markdown, token_counter, budget=64)
    assert doc.chunks[0].body.startswith("**Anna** 00:01\nShort opening.\n\n**Boris** 00:05")
    continued = [c for c in doc.chunks if c.body.startswith(("A request", "Urgent", "Decisions"))]
    assert continued and all("**Anna** 00:20" in c.context for c in continued)


def test_transcript_hour_labels(token_counter: Counter) -> None:
    markdown = "Anna 1:00:05\nHello.\n\nBoris 1:02:30\nBye."
    doc = chunk(markdown, token_counter)
    assert [c.context for c in doc.chunks] == ["[1:00:00–1:02:00]\n", "[1:02:00–1:04:00]\n"]


# ----- nothing lost ---------------------------------------------------------------------------


def test_hard_wrapped_text_loses_nothing(token_counter: Counter) -> None:
    paragraphs = [
        PROSE,
        "Tiny.",
        "Two short\nlines.",
        PROSE * 5,
        "x",
        "Список покупок: молоко, хлеб, яйца и немного сыра для бутербродов.",
    ]
    text = "\n\n".join(textwrap.fill(p, 40) for p in paragraphs)
    doc = chunk(text, token_counter, budget=32)
    bodies = " ".join(c.body for c in doc.chunks)
    assert bodies.split() == text.split()


def test_a_megabyte_document_is_chunked_whole(token_counter: Counter) -> None:
    unit = "# Title\n\n" + PROSE * 3 + "\n\n" + make_table(10) + "\n\n" + textwrap.fill(PROSE, 60)
    markdown = "\n\n".join([unit] * (1_000_000 // len(unit) + 1))
    doc = chunk_markdown(markdown, count_tokens=token_counter)
    assert doc.chunks
    assert max(token_counter(c.text) for c in doc.chunks) <= 110


def test_a_listing_of_many_short_lines_is_chunked_in_little_more_memory_than_its_text() -> None:
    """An 18 MB listing of 3 million lines once took 570 MB to chunk: a record for each line.
    The chunker's own allocations are measured, with a stand-in counter (not the tokenizer's)."""
    markdown = "# Code\n\n```python\n" + "x = 1\n" * 100_000  # a fence never closed
    tracemalloc.start()
    try:
        doc = chunk_markdown(markdown, count_tokens=lambda text: len(text) // 3 + 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rebuild_document(doc.chunks) == markdown.strip()
    assert peak < 8 * len(markdown), f"{peak / len(markdown):.1f} bytes held per byte of text"


# ----- properties ---------------------------------------------------------------------------

ENGLISH = [
    "the", "approval", "procedure", "general", "provisions", "budget", "river", "engine",
    "window", "meeting", "quartz", "kettle", "of", "and", "request", "storage", "table",
]  # fmt: skip
RUSSIAN = [
    "общие", "положения", "порядок", "утверждения", "раздел", "таблица", "документ",
    "совещание", "река", "окно", "и", "в", "бюджет", "хранение",
]  # fmt: skip

words = st.one_of(
    st.sampled_from(ENGLISH + RUSSIAN),
    st.text(alphabet="abcxyzабвгдеж0123456789-", min_size=1, max_size=14),
)
sentences = st.lists(words, min_size=1, max_size=30).map(lambda w: " ".join(w).capitalize() + ".")


@st.composite
def paragraphs(draw: st.DrawFn) -> str:
    drawn = draw(st.lists(sentences, min_size=1, max_size=6))
    repeat = draw(st.sampled_from([1, 1, 1, 2, 30]))  # 30: one unbroken paragraph over the cap
    text = " ".join(drawn * repeat)
    if draw(st.booleans()):
        text = textwrap.fill(text, draw(st.integers(15, 80)))
    return text


@st.composite
def headings(draw: st.DrawFn) -> str:
    level = draw(st.integers(1, 4))
    title = " ".join(draw(st.lists(words, min_size=0, max_size=12)))
    return "#" * level + (" " + title if title else "")


@st.composite
def lists(draw: st.DrawFn) -> str:
    items = draw(st.lists(sentences, min_size=1, max_size=8))
    marker = draw(st.sampled_from(["- ", "* ", "1. "]))
    return "\n".join(marker + item for item in items)


@st.composite
def tables(draw: st.DrawFn) -> str:
    table_id = "@id@"  # numbered per document by documents()
    columns = draw(st.integers(1, 5))
    header = "| " + " | ".join(f"h{table_id}c{c}" for c in range(columns)) + " |"
    separator = "|" + "---|" * columns
    sizes = st.sampled_from([2, 5, 10, 80])  # 80 words: a row over any budget
    cells = draw(st.lists(st.lists(words, min_size=1, max_size=draw(sizes)), min_size=1))
    rows = []
    for index in range(draw(st.sampled_from([0, 1, 3, 8, 15, 120]))):  # 120: over the cap
        picked = [" ".join(cells[(index + c) % len(cells)]) for c in range(columns - 1)]
        rows.append("| " + " | ".join([f"r{table_id}x{index}", *picked]) + " |")
    return "\n".join([header, separator, *rows])


@st.composite
def code_blocks(draw: st.DrawFn) -> str:
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    lines = draw(
        st.lists(
            st.one_of(
                st.lists(words, min_size=1, max_size=10).map(" ".join),
                st.sampled_from(["# not a heading", "| not | a row |", "", "    indented()"]),
            ),
            min_size=1,
            max_size=80,
        )
    )
    closed = draw(st.integers(0, 9)) > 0
    return "\n".join([fence + draw(st.sampled_from(["", "python"])), *lines] + [fence] * closed)


blocks = st.one_of(paragraphs(), headings(), lists(), tables(), code_blocks())
heading_first = st.tuples(headings(), blocks).map("\n\n".join)  # makes heading documents likely


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, list[str]]:
    parts = draw(st.lists(st.one_of(blocks, heading_first), min_size=1, max_size=10))
    tables_seen = 0
    for index, part in enumerate(parts):
        if "| h@id@" in part:
            parts[index] = part.replace("@id@", f"T{tables_seen}T")
            tables_seen += 1
    markdown = ""
    for index, part in enumerate(parts):
        if index:
            markdown += draw(st.sampled_from(["\n\n", "\n\n\n", "\n"])) if index else ""
        markdown += part
    table_parts = [p[p.index("| hT") :] for p in parts if "| hT" in p]
    if draw(st.sampled_from([False, False, False, True])):  # Windows line endings
        markdown = markdown.replace("\n", "\r\n")
    return markdown, table_parts


budgets = st.sampled_from([16, 24, 48, 110, 128])
PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@PROPERTY_SETTINGS
@given(doc=documents(), budget=budgets)
def test_generated_documents_keep_every_invariant(
    token_counter: Counter, doc: tuple[str, list[str]], budget: int
) -> None:
    markdown, _ = doc
    result = chunk_markdown(markdown, count_tokens=token_counter, budget=budget)
    # order, exact section rebuild, bodies inside their sections, budget (code excepted), no loss
    assert_invariants(markdown, result, token_counter, budget)
    event(f"category: {result.category}")
    if any(CODE_SPLIT_MARKER in chunk.context for chunk in result.chunks):
        event("a code block was split")
    if any(len(rebuild_section(c)) > 3000 for c in sections(result).values()):
        event("a section came close to the cap")


@PROPERTY_SETTINGS
@given(doc=documents(), budget=budgets)
def test_tables_survive_whole(
    token_counter: Counter, doc: tuple[str, list[str]], budget: int
) -> None:
    markdown, table_parts = doc
    result = chunk_markdown(markdown, count_tokens=token_counter, budget=budget)
    rebuilt = rebuild_document(result.chunks)
    for table in table_parts:
        header, _, *rows = table.split("\n")
        # each table once, with exactly one header row and every row once
        assert rebuilt.count(header) == 1
        for row in rows:
            assert rebuilt.count(row) == 1
        for row in rows:
            whole = any(row in chunk.body for chunk in result.chunks)
            in_split_code = any(
                CODE_SPLIT_MARKER in c.context and c.body in row for c in result.chunks
            )
            # only a row too big for a chunk of its own may be cut (or a table line caught
            # inside a code block that had to be split)
            assert whole or in_split_code or token_counter(row) > budget // 3, row


@PROPERTY_SETTINGS
@given(doc=documents(), budget=budgets)
def test_each_chunk_rebuilds_inside_its_section(
    token_counter: Counter, doc: tuple[str, list[str]], budget: int
) -> None:
    markdown, _ = doc
    result = chunk_markdown(markdown, count_tokens=token_counter, budget=budget)
    for chunks in sections(result).values():
        text = rebuild_section(chunks)
        seam = read_seam(chunks[0].joiner)
        offset = len(seam.opening)
        for chunk in chunks:  # bodies follow one another in the section, joiners between them
            joiner = "" if chunk is chunks[0] else chunk.joiner
            assert text.startswith(joiner + chunk.body, offset)
            offset += len(joiner) + len(chunk.body)
        assert offset + len(seam.closing) == len(text)
