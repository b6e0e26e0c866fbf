"""Where an indexed file stands: the rules a sync acts on and a listing reports, in one place.

:func:`file_state` is what ``list_files`` shows for a file on disk; :mod:`.sync_plan` decides
with the same predicates (:func:`unchanged`, :func:`outdated`, :func:`needs_ocr_again`), so the
listing says what the next sync will do. :func:`unscanned_image` is the one rule for an indexed
image that an install without the [ocr] extra no longer scans.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.conversion.pages import lacks_pages
from minirag_ingest.files.formats import IMAGE_EXTENSIONS
from minirag_ingest.files.names import to_path

if TYPE_CHECKING:
    from minirag_index import SourceInfo
    from minirag_ingest.files.roots import Roots

FileState = Literal[
    "indexed",  # stored as it is on disk, by the current chunking scheme
    "not_indexed",  # on disk, not in the index
    "stale",  # changed on disk, or cut by an older scheme: the next sync reads it again
    "stale_pages",  # a PDF indexed before page numbers: the next sync reads it again
    "unreadable",  # indexed with OCR, and this install has none to read it again
    "missing",  # indexed, gone from disk (or excluded by a rule now)
    "unlisted",  # indexed, under a folder that could not be listed
]


def unchanged(info: SourceInfo, size: int, mtime: float) -> bool:
    """The file has the size and mtime stored with it, exactly: a sync skips it unhashed."""
    return info.size == size and info.mtime == mtime


def outdated(info: SourceInfo) -> bool:
    """Cut by an older chunking scheme: a sync reads it again even when its bytes are the same."""
    return info.scheme < SCHEME_VERSION


def needs_ocr_again(info: SourceInfo, has_ocr: bool) -> bool:
    """Read with OCR, on an install without it: reading it again would lose its scans."""
    return bool(info.ocr_engine) and not has_ocr


def file_state(info: SourceInfo | None, size: int, mtime: float, *, has_ocr: bool) -> FileState:
    """The state of a file on disk of ``size`` bytes and ``mtime``, given its index entry."""
    if info is None:
        return "not_indexed"
    if not unchanged(info, size, mtime):
        return "stale"
    if not outdated(info):
        return "indexed"
    if needs_ocr_again(info, has_ocr):
        return "unreadable"  # sync keeps it: reading it again needs the [ocr] extra
    if lacks_pages(info):
        return "stale_pages"
    return "stale"


def unscanned_image(source: str, roots: Roots, scanned: Collection[str]) -> bool:
    """An indexed image, still on disk, that the scan skips because this install does not read
    images (``scanned`` are the extensions it lists) - rather than one a rule excludes. A sync
    keeps it as unreadable; the listing says so."""
    from minirag_ingest.files.ignore import is_excluded

    suffix = Path(source).suffix.lower()
    path = to_path(source)
    if suffix not in IMAGE_EXTENSIONS or suffix in scanned or not os.path.lexists(path):
        return False
    try:
        return is_excluded(path, roots) is None
    except (OSError, ValueError):
        return True  # cannot tell: keep it
