"""Turning a file into Markdown (in worker processes), with its pages, tables and pictures.

Each name is imported from its module on first use, so importing this package loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.conversion.convert import (
        Converted,
        convert_content,
        convert_file,
        visible_chars,
    )
    from minirag_ingest.conversion.limits import PoolLimits, PoolStopped
    from minirag_ingest.conversion.pictures import PictureCounts, pictures_status, read_pictures
    from minirag_ingest.conversion.pool import ConversionPool
    from minirag_ingest.conversion.reading import FileRead, ReadRequest, file_hash
    from minirag_ingest.errors import ConversionError

__all__ = [
    "ConversionError",
    "ConversionPool",
    "Converted",
    "FileRead",
    "PictureCounts",
    "PoolLimits",
    "PoolStopped",
    "ReadRequest",
    "convert_content",
    "convert_file",
    "file_hash",
    "pictures_status",
    "read_pictures",
    "visible_chars",
]

__getattr__ = lazy_exports(__name__, __file__)
