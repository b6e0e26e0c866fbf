"""Long tables and code blocks, ingested for real: each section a search returns stands on its
own (header rows, fences), and read_file gives back the converted document byte for byte."""

from __future__ import annotations

from pathlib import Path

from minirag_ingest.chunking import SECTION_CHAR_CAP
from minirag_ingest.conversion.convert import convert_file
from minirag_ingest.document.pipeline import Pipeline


def sections_of(pipeline: Pipeline, source: str) -> list[str]:
    """The source's sections as query_documents hands them out in ``parents``, in order."""
    chunks = pipeline.index.source_chunks(source)
    parent_ids = list(dict.fromkeys(c.parent_id for c in chunks))
    found = pipeline.index.sections(parent_ids)
    return [found[pid] for pid in parent_ids]


def converted(path: Path) -> str:
    return convert_file(path, max_file_size=1 << 30).markdown


def assert_every_table_section_has_its_header(sections: list[str], header: str) -> None:
    with_rows = [s for s in sections if "| SKU-" in s or "| row " in s]
    assert len(with_rows) >= 2, "the table must be long enough to be cut"
    for text in with_rows:
        assert len(text) <= SECTION_CHAR_CAP
        start = text.index(header)
        separator = text[start:].split("\n")[1]
        assert separator.replace(" ", "").startswith("|---|")
        assert text.count(header) == 1
        # No data row comes before the header.
        assert "| SKU-" not in text[:start] and "| row " not in text[:start]


def test_a_150_row_sheet_is_cut_with_its_header_in_every_section(pipeline, docs):
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Inventory"
    sheet.append(["SKU", "Item", "Warehouse", "Quantity", "Unit price"])
    for i in range(150):
        part = f"Replacement part number {i} for the pump assembly"
        sheet.append([f"SKU-{i:04d}", part, f"Hall {i % 7}", i * 3, round(i * 1.25, 2)])
    path = docs / "inventory.xlsx"
    book.save(path)

    pipeline.ingest_file(path)
    sections = sections_of(pipeline, str(path))
    header = "| SKU | Item | Warehouse | Quantity | Unit price |"
    assert_every_table_section_has_its_header(sections, header)
    # read_file: the table once, contiguous (no blank line ends it early), as converted.
    document = pipeline.index.read_document(str(path))
    assert document == converted(path).strip()
    assert document.count(header) == 1
    assert "\n\n| SKU-" not in document


def test_a_60_row_markdown_table_is_cut_with_its_header_in_every_section(pipeline, docs):
    rows = "\n".join(
        f"| row {i} | {'a longer description of the measured value ' * 2}| {i * 3.5} |"
        for i in range(60)
    )
    markdown = (
        f"# Results\n\nThe table below.\n\n| Key | Description | Value |\n|---|---|---|\n{rows}\n"
    )
    path = docs / "results.md"
    path.write_text(markdown, encoding="utf-8")

    pipeline.ingest_file(path)
    sections = sections_of(pipeline, str(path))
    assert_every_table_section_has_its_header(sections, "| Key | Description | Value |")
    assert pipeline.index.read_document(str(path)) == markdown.strip()


def test_a_code_block_cut_across_sections_reads_back_byte_for_byte(pipeline, docs):
    functions = "\n\n".join(
        f"def g{i}(values, scale):\n    result = sum(values) * scale + {i}\n    return result"
        for i in range(120)
    )
    markdown = f"# Helpers\n\nAll of them:\n\n```python\n{functions}\n```\n\nEnd of file.\n"
    path = docs / "helpers.md"
    path.write_text(markdown, encoding="utf-8")

    pipeline.ingest_file(path)
    cut = [s for s in sections_of(pipeline, str(path)) if "def g" in s]
    assert len(cut) >= 2
    for text in cut:
        lines = text.split("\n")
        assert lines.count("```python") == 1, "each section opens the block with its info string"
        assert lines.count("```") == 1, "...and closes it"
        assert lines.index("```python") < lines.index("```")
    # The line after every cut keeps its indentation and no blank line is inserted.
    assert pipeline.index.read_document(str(path)) == markdown.strip()
