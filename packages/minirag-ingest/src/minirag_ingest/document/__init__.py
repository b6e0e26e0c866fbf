"""A converted document's title and date, and the pipeline that stores its chunks.

Each name is imported from its module on first use, so importing this package loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.document.dates import document_date
    from minirag_ingest.document.pipeline import (
        ContentFormat,
        IngestRefused,
        IngestResult,
        Pipeline,
        Prepared,
    )
    from minirag_ingest.document.titles import choose_title

__all__ = [
    "ContentFormat",
    "IngestRefused",
    "IngestResult",
    "Pipeline",
    "Prepared",
    "choose_title",
    "document_date",
]

__getattr__ = lazy_exports(__name__, __file__)
