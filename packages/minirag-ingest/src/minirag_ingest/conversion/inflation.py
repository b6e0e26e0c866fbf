"""Refusing files whose structure promises far more work than their size, before converting.

MAX_FILE_SIZE bounds a file on disk, not what a converter makes of it. A .docx, .pptx, .xlsx or
.epub is a zip archive, and a few megabytes of zip can declare gigabytes of contents (a zip
bomb). Python's zipfile never inflates an entry past its declared size, so the sum of declared
sizes bounds what any of those converters can unpack: it must stay within
:data:`INFLATION_FACTOR` times MAX_FILE_SIZE, and the number of entries within
:data:`MAX_ZIP_ENTRIES`. A PDF whose page tree leads back to itself, or that holds more than
:data:`MAX_PDF_PAGE_NODES` pages and page groups, is refused as well.

A file these checks cannot parse is left to its converter, which reports it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from minirag_ingest.errors import IngestError
from minirag_ingest.settings import describe_bytes

ZIP_KINDS = frozenset({"docx", "pptx", "xlsx", "epub"})
INFLATION_FACTOR = 20
MAX_ZIP_ENTRIES = 10_000
MAX_PDF_PAGE_NODES = 100_000


class TooMuchInflation(IngestError, ValueError):
    """The file's structure is refused; ``str()`` is the reason, with the setting to raise."""


def check_inflation(path: Path, kind: str, max_file_size: int) -> None:
    """Raise :class:`TooMuchInflation` for a zip bomb or a looping PDF page tree."""
    if kind in ZIP_KINDS:
        check_zip(path, max_file_size)
    elif kind == "pdf":
        check_pdf_pages(path)


def check_zip(path: Path, max_file_size: int) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return  # not a readable zip: the converter says what is wrong with it
    if len(entries) > MAX_ZIP_ENTRIES:
        raise TooMuchInflation(
            f"it is a zip archive of {len(entries):,} entries, more than the "
            f"{MAX_ZIP_ENTRIES:,} a document has; refused as a likely zip bomb"
        )
    declared = sum(entry.file_size for entry in entries)
    bound = INFLATION_FACTOR * max_file_size
    if declared > bound:
        raise TooMuchInflation(
            f"it unpacks to {describe_bytes(declared)}, more than {INFLATION_FACTOR} x "
            f"MAX_FILE_SIZE ({describe_bytes(bound)}); refused as a likely zip bomb (raise "
            "MAX_FILE_SIZE if the document is genuine)"
        )


def check_pdf_pages(path: Path) -> None:
    try:
        from pdfminer.pdfdocument import PDFDocument
        from pdfminer.pdfparser import PDFParser
    except ImportError:
        return
    try:
        with open(path, "rb") as stream:
            document = PDFDocument(PDFParser(stream))
            walk_page_tree(document.catalog.get("Pages"))
    except TooMuchInflation:
        raise
    except Exception:
        return  # damaged or encrypted: the converter reports it


def walk_page_tree(root: Any) -> int:
    """Count the nodes of a PDF page tree; refuse one that visits a node twice (a loop, or a
    page shared by two parents) or that is absurdly large."""
    from pdfminer.pdftypes import PDFObjRef, resolve1

    seen: set[object] = set()
    stack: list[Any] = [root]
    while stack:
        ref = stack.pop()
        node = resolve1(ref)
        if not isinstance(node, dict):
            continue
        key = ("ref", ref.objid) if isinstance(ref, PDFObjRef) else ("obj", id(node))
        if key in seen:
            raise TooMuchInflation(
                "its page tree leads back to a page or page group it already holds (a "
                "damaged or hostile PDF); refused"
            )
        seen.add(key)
        if len(seen) > MAX_PDF_PAGE_NODES:
            raise TooMuchInflation(
                f"its page tree holds more than {MAX_PDF_PAGE_NODES:,} pages; refused"
            )
        kids = resolve1(node.get("Kids"))
        if isinstance(kids, list):
            stack.extend(kids)
    return len(seen)
