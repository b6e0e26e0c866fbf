"""A PDF's Markdown and the text of each of its pages, from one conversion.

Page numbers are given only where a chunk's text is found on a page word for word
(:mod:`minirag_ingest.pages`), so the page texts must hold the words in the order the Markdown
does. markitdown converts a PDF with tables or forms page by page with pdfplumber, laying table
rows out cell by cell; pdfminer's text layer of the same page has the words in another order,
and a table chunk was never found in it. This module runs markitdown's own conversion one page
at a time, with markitdown's own page functions, and keeps each page's result: the Markdown is
what markitdown would have made, and every page text is exactly that page's part of it.

A PDF without tables or forms is converted by pdfminer as a whole, as markitdown does, and its
pages are pdfminer's pages (it ends each one with a form feed). Should markitdown no longer
have the page functions used here, its converter runs as usual and pdfminer gives the pages.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, BinaryIO


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
    pages = _pages_by_pdfplumber(data, form_page)
    if pages is None:  # no page holds a table or form, or pdfplumber failed: pdfminer reads it
        return _pdfminer(data, merge_numbering)
    markdown = "\n\n".join(text for text in pages if text.strip()).strip()
    if not markdown:
        return _pdfminer(data, merge_numbering)
    return PdfText(merge_numbering(markdown), pages)


def _pages_by_pdfplumber(data: io.BytesIO, form_page: Any) -> list[str] | None:
    """Each page as markitdown renders it: a table or form page laid out from its words, any
    other page as pdfplumber's text. None when no page is a table or form page."""
    import pdfplumber

    pages: list[str] = []
    forms = 0
    try:
        with pdfplumber.open(data) as pdf:
            for page in pdf.pages:
                content = form_page(page)
                if content is not None:
                    forms += 1
                    pages.append(content)
                else:
                    pages.append((page.extract_text() or "").strip())
                page.close()  # frees pdfplumber's cached objects page by page
    except Exception:  # markitdown falls back to pdfminer here too
        return None
    return pages if forms else None


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
