"""Ruled tables on PDF pages, kept as Markdown tables where they stood on the page.

pdfminer reads a table's cells as separate text boxes, so a prose PDF with a payment table
comes out as "Payment / Advance / Final / Amount / ..." and no chunk ties an amount to its row.
pdfplumber's table finder (its default strategy: cells framed by ruling lines) finds such
tables; :func:`find_tables` keeps those of at least two rows and two columns holding text.

:func:`render_page` then writes the page as pdfminer would (the same layout analysis and text
boxes, so every other word keeps pdfminer's spacing and order) except for the characters that
fall in a table's cells: those are left out, and the table's Markdown, its first row the header,
stands where pdfminer met the table's first character. A character belongs to a cell when its
centre lies inside it, the rule pdfplumber uses to fill the cells, so what leaves the prose is
what the table holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Above this many ruling lines and rectangles a page is a drawing, not a document page with a
# table, and pdfplumber's finder (every horizontal edge against every vertical one) is skipped.
MAX_RULINGS = 4000

Box = tuple[float, float, float, float]  # pdfplumber's (x0, top, x1, bottom)


@dataclass(frozen=True)
class PageTable:
    """One table of a page: its cells' boxes in pdfplumber's coordinates and its Markdown."""

    bbox: Box
    cells: tuple[Box, ...]
    markdown: str


@dataclass(frozen=True)
class PageFrame:
    """What maps pdfminer's coordinates (origin bottom left) to pdfplumber's (top left)."""

    height: float
    x_offset: float
    top_offset: float


def find_tables(page: Any) -> list[PageTable]:
    """The ruled tables pdfplumber finds on ``page`` with two rows and two columns or more and
    some text; none when the page is a drawing or the finder fails."""
    try:
        if page.rotation % 360 or len(page.lines) + len(page.rects) > MAX_RULINGS:
            return []  # a turned page reads its tables turned too
        found = page.find_tables()
        tables = [_page_table(table) for table in found if _upright(page, table)]
    except Exception:  # a page the finder cannot read converts as it did without tables
        return []
    return [table for table in tables if table is not None]


def _upright(page: Any, table: Any) -> bool:
    """No character in the table runs vertically (a turned table reads column by column)."""
    return all(char["upright"] for char in page.within_bbox(table.bbox).chars)


def _page_table(table: Any) -> PageTable | None:
    rows = [[_cell_text(cell) for cell in row] for row in table.extract()]
    rows = [row for row in rows if any(row)]
    if len(rows) < 2 or max(len(row) for row in rows) < 2:
        return None
    cells = tuple(tuple(cell) for row in table.rows for cell in row.cells if cell is not None)
    bbox = tuple(table.bbox)
    return PageTable(bbox, cells, markdown_table(rows))


def _cell_text(cell: str | None) -> str:
    return " ".join((cell or "").split()).replace("|", "\\|")


def markdown_table(rows: list[list[str]]) -> str:
    """``rows`` as a Markdown table, the first row its header."""
    width = max(len(row) for row in rows)
    lines = []
    for index, row in enumerate(rows):
        cells = row + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if index == 0:
            lines.append("|" + " --- |" * width)
    return "\n".join(lines)


def frame_of(page: Any) -> PageFrame:
    """The mapping pdfplumber applies to the objects of ``page`` (``Page.process_object``)."""
    x_offset, top_offset = page.mediabox[:2]
    return PageFrame(float(page.height), float(x_offset), float(top_offset))


def render_page(ltpage: Any, tables: list[PageTable], frame: PageFrame) -> str:
    """pdfminer's text of one laid-out page (as ``extract_text`` writes it, without the form
    feed) with each table's characters replaced by the table's Markdown."""
    from pdfminer.layout import LTContainer, LTText, LTTextBox, LTTextLine

    out: list[str] = []
    placed: set[int] = set()

    def render(item: Any) -> None:
        if isinstance(item, LTTextLine):
            _render_line(item, tables, frame, placed, out)
        elif isinstance(item, LTContainer):
            written = len(out)
            for child in item:
                render(child)
            if isinstance(item, LTTextBox) and (len(out) > written or not len(item)):
                out.append("\n")  # a box all in a table leaves no blank line behind
        elif isinstance(item, LTText):
            table = _table_of(item, tables, frame)
            if table is None:
                out.append(item.get_text())
            elif table not in placed:
                placed.add(table)
                out.append(_block(tables[table]))

    render(ltpage)
    return "".join(out)


def _render_line(
    line: Any, tables: list[PageTable], frame: PageFrame, placed: set[int], out: list[str]
) -> None:
    """One text line: verbatim when no character of it is in a table; else its other text,
    whitespace collapsed, around the Markdown of a table met here for the first time."""
    owners = [_table_of(child, tables, frame) for child in line]
    if all(owner is None for owner in owners):
        out.append(line.get_text())
        return
    segment: list[str] = []
    for child, owner in zip(line, owners, strict=True):
        if owner is None:
            segment.append(child.get_text())
            continue
        if owner not in placed:
            placed.add(owner)
            _flush(segment, out)
            out.append(_block(tables[owner]))
    _flush(segment, out)


def _flush(segment: list[str], out: list[str]) -> None:
    text = " ".join("".join(segment).split())
    if text:
        out.append(text + "\n")
    segment.clear()


def _block(table: PageTable) -> str:
    return "\n\n" + table.markdown + "\n\n"


def _table_of(item: Any, tables: list[PageTable], frame: PageFrame) -> int | None:
    """The index of the table whose cell holds the centre of a character, else None."""
    if not tables or not hasattr(item, "bbox") or not item.get_text().strip():
        return None
    x0, y0, x1, y1 = item.bbox
    x = (x0 + x1) / 2 + frame.x_offset
    top = frame.height - (y0 + y1) / 2 + frame.top_offset
    for index, table in enumerate(tables):
        if _inside(x, top, table.bbox) and any(_inside(x, top, cell) for cell in table.cells):
            return index
    return None


def _inside(x: float, top: float, cell: Box) -> bool:
    left, cell_top, right, bottom = cell
    return left <= x < right and cell_top <= top < bottom


def table_pages_text(
    data: Any, tables: dict[int, list[PageTable]], frames: dict[int, PageFrame]
) -> dict[int, str]:
    """The rendered text of each page (0-based) that holds tables, for the pages whose
    letters and digits are exactly pdfminer's own text of that page, reordered: a page where
    the tables would lose or repeat a character is left out (and keeps its text)."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams

    data.seek(0)
    wanted = sorted(tables)
    rendered: dict[int, str] = {}
    pages: Iterable[Any] = extract_pages(data, page_numbers=wanted, laparams=LAParams())
    for number, ltpage in zip(wanted, pages, strict=False):
        text = render_page(ltpage, tables[number], frames[number])
        if _same_characters(text, render_page(ltpage, [], frames[number])):
            rendered[number] = text
    return rendered


def _same_characters(text: str, reference: str) -> bool:
    from minirag_ingest.conversion.pages import normalize_for_pages

    return Counter(normalize_for_pages(text)) == Counter(normalize_for_pages(reference))
