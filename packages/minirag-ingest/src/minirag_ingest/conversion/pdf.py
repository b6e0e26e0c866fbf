"""A PDF's Markdown and the text of each of its pages, from one conversion.

Page numbers are given only where a chunk's text is found on a page word for word
(:mod:`minirag_ingest.conversion.pages`), so the page texts must hold the words in the order the
Markdown
does. markitdown converts a PDF with tables or forms page by page with pdfplumber, laying table
rows out cell by cell; pdfminer's text layer of the same page has the words in another order,
and a table chunk was never found in it. This module runs markitdown's own conversion one page
at a time, with markitdown's own page functions, and keeps each page's result: the Markdown is
what markitdown would have made, and every page text is exactly that page's part of it.

A PDF without tables or forms is converted by pdfminer as a whole, as markitdown does, and its
pages are pdfminer's pages (it ends each one with a form feed). Should markitdown no longer
have the page functions used here, its converter runs as usual and pdfminer gives the pages.

markitdown takes a page for a form only when a fifth of its lines are aligned in columns, so a
prose page with a small ruled table is read by pdfminer, which scatters the table's cells. Such
a page (one that is not a form page) gets its tables from pdfplumber's table finder instead
(:mod:`minirag_ingest.conversion.pdf_tables`): its text is pdfminer's with each table as a Markdown
table
where it stood. Every other page, and every PDF without such a table, converts as before.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, BinaryIO

from minirag_ingest.conversion.pdf_tables import (
    PageFrame,
    PageTable,
    find_tables,
    frame_of,
    table_pages_text,
)


@dataclass(frozen=True)
class PdfText:
    """What markitdown's PdfConverter would return (``text_content``), with ``pages``: the
    text of each page in order (index 0 is page 1)."""

    text_content: str
    pages: list[str]
    title: str | None = None


def read_pdf(stream: BinaryIO) -> PdfText:
    from markitdown.converters import _pdf_converter as markitdown_pdf

    data = io.BytesIO(stream.read())
    form_page = getattr(markitdown_pdf, "_extract_form_content_from_words", None)
    merge_numbering = getattr(markitdown_pdf, "_merge_partial_numbering_lines", None)
    if form_page is None or merge_numbering is None:
        return _markitdown_then_pdfminer_pages(data)
    plumbed = _pages_by_pdfplumber(data, form_page)
    if plumbed is None:  # pdfplumber failed: pdfminer reads it, as in markitdown
        return _pdfminer(data, merge_numbering)
    if plumbed.tables:
        with_tables = _with_tables(data, plumbed, merge_numbering)
        if with_tables is not None:
            return with_tables
    if not plumbed.forms:  # no page holds a table or form: pdfminer reads it
        return _pdfminer(data, merge_numbering)
    pages = plumbed.pages
    markdown = "\n\n".join(text for text in pages if text.strip()).strip()
    if not markdown:
        return _pdfminer(data, merge_numbering)
    return PdfText(merge_numbering(markdown), pages)


@dataclass
class _Plumbed:
    """pdfplumber's pass over the pages: each page's text as markitdown renders it, how many
    are form pages, and the ruled tables of the other pages (by 0-based page number)."""

    pages: list[str]
    forms: int
    tables: dict[int, list[PageTable]]
    frames: dict[int, PageFrame]


def _pages_by_pdfplumber(data: io.BytesIO, form_page: Any) -> _Plumbed | None:
    """Each page as markitdown renders it: a table or form page laid out from its words, any
    other page as pdfplumber's text, and its ruled tables noted. None when pdfplumber fails."""
    import pdfplumber

    plumbed = _Plumbed([], 0, {}, {})
    try:
        with pdfplumber.open(data) as pdf:
            for number, page in enumerate(pdf.pages):
                content = form_page(page)
                if content is not None:
                    plumbed.forms += 1
                    plumbed.pages.append(content)
                else:
                    plumbed.pages.append((page.extract_text() or "").strip())
                    tables = find_tables(page)
                    if tables:
                        plumbed.tables[number] = tables
                        plumbed.frames[number] = frame_of(page)
                page.close()  # frees pdfplumber's cached objects page by page
    except Exception:  # markitdown falls back to pdfminer here too
        return None
    return plumbed


def _with_tables(data: io.BytesIO, plumbed: _Plumbed, merge_numbering: Any) -> PdfText | None:
    """The conversion markitdown would make, with each page that holds a ruled table (and is
    not a form page, which markitdown already lays out as tables) in pdfminer's text with its
    tables as Markdown tables. None when no page is rendered so, or pdfminer's pages do not
    line up with pdfplumber's."""
    import pdfminer.high_level

    try:
        rendered = table_pages_text(data, plumbed.tables, plumbed.frames)
    except Exception:
        return None
    if not rendered:
        return None
    if plumbed.forms:
        pages = [rendered.get(number, text) for number, text in enumerate(plumbed.pages)]
        markdown = "\n\n".join(text.strip() for text in pages if text.strip())
        return PdfText(merge_numbering(markdown), pages)
    data.seek(0)
    pages = _split_pages(pdfminer.high_level.extract_text(data))
    if len(pages) != len(plumbed.pages):
        return None
    pages = [rendered.get(number, text) for number, text in enumerate(pages)]
    return PdfText(merge_numbering("".join(text + "\f" for text in pages)), pages)


def _pdfminer(data: io.BytesIO, merge_numbering: Any) -> PdfText:
    import pdfminer.high_level

    data.seek(0)
    text = pdfminer.high_level.extract_text(data)
    return PdfText(merge_numbering(text), _split_pages(text))


def _markitdown_then_pdfminer_pages(data: io.BytesIO) -> PdfText:
    import pdfminer.high_level
    from markitdown import StreamInfo
    from markitdown.converters import PdfConverter

    result = PdfConverter().convert(data, StreamInfo(extension=".pdf"))
    data.seek(0)
    return PdfText(result.markdown or "", _split_pages(pdfminer.high_level.extract_text(data)))


def _split_pages(text: str) -> list[str]:
    """pdfminer's text cut at its form feeds, one entry per page."""
    pages = text.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()
    return pages
