"""The files of the corpus: walking the roots, opening them safely, their names and state.

Each name is imported from its module on first use, so importing this package loads nothing.
(``scan`` and ``file_state`` are not re-exported: they are also the names of their modules.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.files.corpus import (
        Corpus,
        CorpusReport,
        ListedFile,
        Listing,
        installed_ocr,
        scanned_extensions,
    )
    from minirag_ingest.files.file_state import FileState
    from minirag_ingest.files.formats import IMAGE_EXTENSIONS, SUPPORTED_EXTENSIONS
    from minirag_ingest.files.ignore import IGNORE_FILE_NAME, IgnoreFileUnreadable, is_excluded
    from minirag_ingest.files.names import id_name, json_safe, safe_text, to_id, to_path
    from minirag_ingest.files.roots import PathOutsideRoots, Roots
    from minirag_ingest.files.scan import ScannedFile, ScanResult, ScopeExcluded, UnlistedFolder

_HOMES = {
    "Corpus": "minirag_ingest.files.corpus",
    "CorpusReport": "minirag_ingest.files.corpus",
    "ListedFile": "minirag_ingest.files.corpus",
    "Listing": "minirag_ingest.files.corpus",
    "installed_ocr": "minirag_ingest.files.corpus",
    "scanned_extensions": "minirag_ingest.files.corpus",
    "FileState": "minirag_ingest.files.file_state",
    "IMAGE_EXTENSIONS": "minirag_ingest.files.formats",
    "SUPPORTED_EXTENSIONS": "minirag_ingest.files.formats",
    "IGNORE_FILE_NAME": "minirag_ingest.files.ignore",
    "IgnoreFileUnreadable": "minirag_ingest.files.ignore",
    "is_excluded": "minirag_ingest.files.ignore",
    "id_name": "minirag_ingest.files.names",
    "json_safe": "minirag_ingest.files.names",
    "safe_text": "minirag_ingest.files.names",
    "to_id": "minirag_ingest.files.names",
    "to_path": "minirag_ingest.files.names",
    "PathOutsideRoots": "minirag_ingest.files.roots",
    "Roots": "minirag_ingest.files.roots",
    "ScanResult": "minirag_ingest.files.scan",
    "ScannedFile": "minirag_ingest.files.scan",
    "ScopeExcluded": "minirag_ingest.files.scan",
    "UnlistedFolder": "minirag_ingest.files.scan",
}

__all__ = [
    "IGNORE_FILE_NAME",
    "IMAGE_EXTENSIONS",
    "SUPPORTED_EXTENSIONS",
    "Corpus",
    "CorpusReport",
    "FileState",
    "IgnoreFileUnreadable",
    "ListedFile",
    "Listing",
    "PathOutsideRoots",
    "Roots",
    "ScanResult",
    "ScannedFile",
    "ScopeExcluded",
    "UnlistedFolder",
    "id_name",
    "installed_ocr",
    "is_excluded",
    "json_safe",
    "safe_text",
    "scanned_extensions",
    "to_id",
    "to_path",
]

__getattr__ = lazy_exports(__name__, _HOMES)
