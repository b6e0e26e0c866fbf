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

__getattr__ = lazy_exports(__name__, __file__)
