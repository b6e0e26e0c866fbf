from __future__ import annotations

from minirag_ingest.conversion.pages import PageIndex, chunk_pages, normalize_for_pages

PAGES = [
    "Warehouse stock policy\n\n1. Scope\nThis policy covers all ware-\nhouses of the company.\n",
    "2. Counting\nStock is counted every month by two employees.\nThe count sheet is signed\n",
    "by the manager and filed.\n\nName Qty Unit\nBolts 100 pcs\nNuts 200 pcs\n",
]


def test_chunk_on_one_page() -> None:
    assert chunk_pages("Stock is counted every month by two employees.", PAGES) == "2"
    assert chunk_pages("# Warehouse stock policy\n\n1\\. Scope", PAGES) == "1"


def test_chunk_across_a_page_break() -> None:
    chunk = "The count sheet is signed by the manager and filed."
    assert chunk_pages(chunk, PAGES) == "2-3"


def test_markdown_markup_and_whitespace_differences() -> None:
    table = "| Name | Qty | Unit |\n|---|---|---|\n| Bolts | 100 | pcs |"
    assert chunk_pages(table, PAGES) == "3"
    assert chunk_pages("This **policy** covers all\nware-\nhouses", PAGES) == "1"


def test_text_not_in_document_gets_no_page() -> None:
    assert chunk_pages("Something the PDF never says.", PAGES) is None
    assert chunk_pages("", PAGES) is None
    assert chunk_pages("---", PAGES) is None
    assert chunk_pages("anything", []) is None


def test_repeated_text_on_different_pages_gets_no_page() -> None:
    pages = [f"ACME Corp confidential\nPage body {i}\n" for i in range(1, 4)]
    assert chunk_pages("ACME Corp confidential", pages) is None
    assert chunk_pages("Page body 2", pages) == "2"
    rows = ["| x | 1 |\n| x | 1 |\n", "| x | 1 |\n"]
    assert chunk_pages("| x | 1 |", rows) is None


def test_repeats_on_the_same_page_still_count() -> None:
    pages = ["intro\n", "total total\n", "end\n"]
    assert chunk_pages("total", pages) == "2"


def test_empty_pages_are_skipped_in_numbering() -> None:
    pages = ["first page text", "", "third page text"]
    assert chunk_pages("third page text", pages) == "3"
    assert chunk_pages("first page text", pages) == "1"


def test_normalization() -> None:
    assert normalize_for_pages("Ｆｕｌｌ ﬁle_name\\*") == "fullfilename"
    assert normalize_for_pages("Привет, Мир!") == "приветмир"


def test_pages_for_a_long_document() -> None:
    pages = [
        " ".join(f"page{p}word{w}" for w in range(400)) for p in range(300)
    ]  # 300 pages, ~120k words
    chunks = [" ".join(f"page{p}word{w}" for w in range(s, s + 60)) for p in range(0, 300, 3)
              for s in range(0, 340, 17)]  # fmt: skip
    assert len(chunks) == 2000
    index = PageIndex(pages)
    results = [index.pages_for(chunk) for chunk in chunks]
    via_function = [chunk_pages(chunk, pages) for chunk in chunks[:200]]
    assert results[0] == "1"
    assert via_function == results[:200]


# ----- by position, when the Markdown is the pages in order -------------------------------------


def test_a_header_repeated_on_every_page_gets_the_page_of_its_copy() -> None:
    pages = [f"ACME Corp invoice\nLine item {i}\n" for i in range(1, 4)]
    markdown = "\n\n".join(f"# ACME Corp invoice\n\n| Line item {i} |" for i in range(1, 4))
    index = PageIndex(pages, markdown)
    assert index.aligned
    bodies = [part for i in range(1, 4) for part in ("# ACME Corp invoice", f"| Line item {i} |")]
    assert index.pages_for_chunks(bodies) == ["1", "1", "2", "2", "3", "3"]
    # Searched instead, the header is on three pages: left out.
    assert index.pages_for("# ACME Corp invoice") is None


def test_without_alignment_pages_are_searched_as_before() -> None:
    pages = [f"ACME Corp invoice\nLine item {i}\n" for i in range(1, 4)]
    markdown = "# ACME Corp invoice\n\nLine item 1\n\nrecognised text appended by OCR"
    index = PageIndex(pages, markdown)
    assert not index.aligned
    assert index.pages_for_chunks(["# ACME Corp invoice", "Line item 1"]) == [None, "1"]


def test_a_chunk_across_a_page_break_by_position() -> None:
    pages = ["alpha beta", "gamma delta"]
    index = PageIndex(pages, "alpha\n\nbeta gamma\n\ndelta")
    assert index.pages_for_chunks(["alpha", "beta gamma", "delta"]) == ["1", "1-2", "2"]
