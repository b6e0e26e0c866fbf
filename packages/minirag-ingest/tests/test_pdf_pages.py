"""Page numbers on real table and form PDFs (markitdown's own test files): nearly every chunk
carries one, and each one is checked against the characters on that page of the PDF."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from testsupport.pdf_check import page_letters, words_not_on

FILES = Path(__file__).parent / "files" / "markitdown"


@pytest.mark.parametrize(
    ("name", "page_count"),
    [
        ("REPAIR-2022-INV-001_multipage.pdf", 3),
        ("SPARSE-2024-INV-1234_borderless_table.pdf", 2),
        ("movie-theater-booking-2024.pdf", 1),
    ],
)
def test_table_pdfs_carry_right_pages_on_nearly_every_chunk(pipeline, docs, name, page_count):
    path = docs / name
    shutil.copy(FILES / name, path)
    prepared = pipeline.prepare_file(path)
    letters = page_letters(path)
    assert len(letters) == page_count
    with_pages = [c for c in prepared.chunks if c.pages]
    assert len(with_pages) >= 0.9 * len(prepared.chunks)
    for chunk in with_pages:
        assert words_not_on(chunk.text[chunk.context_chars :], chunk.pages, letters) == []
    if page_count > 1:
        assert {c.pages for c in with_pages} >= {str(n) for n in range(1, page_count + 1)}


def test_headings_repeated_on_each_page_are_cited_with_their_own_page(pipeline, docs):
    path = docs / "REPAIR-2022-INV-001_multipage.pdf"
    shutil.copy(FILES / path.name, path)
    prepared = pipeline.prepare_file(path)
    bodies = [(c.text[c.context_chars :], c.pages) for c in prepared.chunks]
    # Both estimate pages have their own "Estimate Totals" and "Supplies" blocks, and the
    # disclaimer that closes page 1 is printed again on page 3.
    assert [pages for body, pages in bodies if body == "Estimate Totals"] == ["1", "2"]
    assert [pages for body, pages in bodies if body == "Supplies"] == ["1", "2"]
    disclaimer = [pages for body, pages in bodies if body.startswith("This is a preliminary")]
    assert disclaimer == ["1", "3"]
