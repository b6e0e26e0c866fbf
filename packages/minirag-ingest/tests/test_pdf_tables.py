"""A ruled table on a prose PDF page is read as a Markdown table where it stood: its rows keep
their header in every chunk, its page is cited, and no word of the page is lost. PDFs without
such a table convert as markitdown converts them."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pdfminer.high_level
import pytest
from markitdown import StreamInfo
from markitdown.converters import PdfConverter

from minirag_index import ChunkInput
from minirag_ingest.conversion.convert import convert_file
from minirag_ingest.conversion.pdf import read_pdf
from minirag_ingest.document.pipeline import Pipeline
from testsupport.documents import pdf_with_ruled_tables
from testsupport.pdf_check import page_letters, words_not_on

FILES = Path(__file__).parent / "files" / "markitdown"

PROSE = [
    "This agreement is made between the Buyer and the Supplier for the delivery of",
    "twelve centrifugal pumps to the Northern water treatment plant. The Supplier",
    "delivers the pumps in two lots and installs them within thirty days of delivery.",
    "Each instalment is paid by bank transfer against the invoice of the Supplier.",
    "The Buyer pays the price in three instalments as set out in the table below.",
]
CLAUSES = [
    "Late payment bears interest at the rate of the central bank plus two percent.",
    "The Supplier warrants the pumps for twenty four months from their acceptance.",
    "Any defect found during the warranty period is repaired at the Supplier cost.",
    "Disputes are settled by the arbitration court named in clause eleven of it.",
    "This agreement enters into force on the day both parties have signed it.",
    "Signed in two copies, one for each party, both of equal legal force here.",
    "The addresses and bank details of the parties are given in the annex.",
    "Notices are sent in writing to the addresses given in the annex to this.",
    "Neither party may assign this agreement without the consent of the other.",
    "The governing law is the law of the place where the plant stands today.",
    "Force majeure suspends the obligations of a party for as long as it lasts.",
    "The Supplier keeps the Buyer informed of the delivery dates of both lots.",
    "Each party bears its own costs of preparing and signing this agreement.",
    "Changes to this agreement are valid only in writing signed by both parties.",
    "The annex forms part of this agreement and has the same force as its text.",
]
PAYMENTS = [
    ["Payment", "Amount", "Due date"],
    ["Advance", "1 200 000", "15 March 2027"],
    ["Second", "800 000", "30 April 2027"],
    ["Final", "2 000 000", "30 June 2027"],
]
HEADER = "| Payment | Amount | Due date |"


def _contract(
    tmp: Path, pages: list[tuple[list[str], list[list[str]] | None, list[str]]], rotate: int = 0
) -> Path:
    path = tmp / "Supply contract.pdf"
    path.write_bytes(pdf_with_ruled_tables(pages, rotate=rotate))
    return path


def test_a_payment_table_in_prose_becomes_a_markdown_table_where_it_stood(docs):
    path = _contract(docs, [(PROSE, PAYMENTS, CLAUSES)])
    # markitdown alone scatters the cells: the page is mostly prose, so not a form to it
    with path.open("rb") as stream:
        plain = PdfConverter().convert(stream, StreamInfo(extension=".pdf")).markdown
    assert "Advance | 1 200 000" not in plain and "Payment\n\nAmount" in plain

    markdown = convert_file(path, max_file_size=1 << 30).markdown
    table = "\n".join(
        [
            HEADER,
            "| --- | --- | --- |",
            "| Advance | 1 200 000 | 15 March 2027 |",
            "| Second | 800 000 | 30 April 2027 |",
            "| Final | 2 000 000 | 30 June 2027 |",
        ]
    )
    before = "as set out in the table below.\n\n"
    after = "\n\nLate payment bears interest"
    assert before + table + after in markdown
    assert markdown.count("1 200 000") == 1  # the cells are not also left in the prose


def test_every_word_of_the_page_is_still_there(docs):
    path = _contract(docs, [(PROSE, PAYMENTS, CLAUSES)])
    markdown = convert_file(path, max_file_size=1 << 30).markdown

    def words(text: str) -> Counter[str]:
        return Counter(word for word in re.split(r"[\s|]+", text) if word and word != "---")

    assert words(pdfminer.high_level.extract_text(path)) == words(markdown)


def test_table_chunks_carry_the_header_and_the_right_page(
    make_pipeline: Callable[..., Pipeline], docs: Path, token_counter: Callable[[str], int]
):
    path = _contract(
        docs, [(PROSE + CLAUSES, None, CLAUSES), (PROSE, PAYMENTS, CLAUSES), (CLAUSES, None, [])]
    )
    with path.open("rb") as stream:  # page 2 is no form to markitdown: the table is ours
        plain = PdfConverter().convert(stream, StreamInfo(extension=".pdf")).markdown
    assert "Advance | 1 200 000" not in plain
    pipeline = make_pipeline(docs, chunk_token_budget=40)
    prepared = pipeline.prepare_file(path)
    rows = [
        c for c in prepared.chunks if re.search(r"^\| (Advance|Second|Final) \|", _body(c), re.M)
    ]
    assert len(rows) >= 2  # the table is cut between rows
    assert all(HEADER in chunk.text for chunk in rows)
    assert any(HEADER in chunk.text[: chunk.context_chars] for chunk in rows)
    assert all(chunk.pages == "2" for chunk in rows)
    assert all(token_counter(chunk.text) <= 40 for chunk in prepared.chunks)

    letters = page_letters(path)
    with_pages = [c for c in prepared.chunks if c.pages]
    assert len(with_pages) >= 0.9 * len(prepared.chunks)
    for chunk in with_pages:
        assert words_not_on(_body(chunk), chunk.pages, letters) == []
    assert {c.pages for c in with_pages} >= {"1", "2", "3"}


def _body(chunk: ChunkInput) -> str:
    return chunk.text[chunk.context_chars :]


def test_read_file_gives_back_the_converted_table(pipeline, docs):
    path = _contract(docs, [(PROSE, PAYMENTS, CLAUSES)])
    markdown = convert_file(path, max_file_size=1 << 30).markdown
    pipeline.ingest_file(path)
    assert pipeline.index.read_document(str(path)) == markdown.strip()
    found = pipeline.index.find_mentions(["2 000 000"])
    assert [d.source for d in found.documents] == [str(path)]


def test_a_pdf_without_a_table_converts_as_pdfminer_reads_it(docs):
    path = _contract(docs, [(PROSE, None, CLAUSES), (CLAUSES, None, PROSE)])
    text = pdfminer.high_level.extract_text(path)
    with path.open("rb") as stream:
        converted = read_pdf(stream)
    assert converted.text_content == text
    assert converted.pages == text.split("\f")[:2]


@pytest.mark.parametrize(
    "name",
    [
        "REPAIR-2022-INV-001_multipage.pdf",  # ruled tables, on pages markitdown takes for forms
        "SPARSE-2024-INV-1234_borderless_table.pdf",
        "movie-theater-booking-2024.pdf",
    ],
)
def test_form_pdfs_convert_as_markitdown_converts_them(docs, name):
    path = docs / name
    shutil.copy(FILES / name, path)
    with path.open("rb") as stream:
        expected = PdfConverter().convert(stream, StreamInfo(extension=".pdf")).markdown
    with path.open("rb") as stream:
        assert read_pdf(stream).text_content == expected


@pytest.mark.parametrize("rotate", [90, 180])
def test_a_turned_page_with_a_table_converts_as_markitdown_converts_it(docs, rotate):
    # pdfplumber finds the turned table with its rows and columns swapped: it is left alone
    path = _contract(docs, [(PROSE, PAYMENTS, CLAUSES)], rotate=rotate)
    with path.open("rb") as stream:
        expected = PdfConverter().convert(stream, StreamInfo(extension=".pdf")).markdown
    with path.open("rb") as stream:
        assert read_pdf(stream).text_content == expected


def test_a_table_after_a_form_page_is_ours_and_the_form_page_markitdowns(pipeline, docs):
    schedule = [["Lot", "Pump model", "Site"]]
    schedule += [
        [f"Lot {n} of the delivery", f"CP-{n}00 centrifugal", f"Basin {n}"] for n in range(1, 9)
    ]
    path = _contract(docs, [(PROSE[:1], schedule, []), (PROSE, PAYMENTS, CLAUSES)])
    with path.open("rb") as stream:
        plain = PdfConverter().convert(stream, StreamInfo(extension=".pdf")).markdown
    form_page = plain.split(PROSE[0] + "\n")[1].split("\n\n")[0]
    assert form_page.startswith("| Lot")  # page 1 is a form page to markitdown
    assert "Advance | 1 200 000" not in plain  # and page 2's table is scattered

    markdown = convert_file(path, max_file_size=1 << 30).markdown
    assert form_page in markdown  # page 1 as markitdown lays it out
    assert "| Advance | 1 200 000 | 15 March 2027 |" in markdown
    prepared = pipeline.prepare_file(path)
    assert {c.pages for c in prepared.chunks if "Advance" in c.text} == {"2"}
    assert {c.pages for c in prepared.chunks if "Basin 4" in c.text} == {"1"}
