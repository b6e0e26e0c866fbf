"""Fetching a web page safely for ingest_url, and converting it.

Each name is imported from its module on first use, so importing this package loads nothing.
(``fetch`` is not re-exported: it is also the name of its module.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.web.fetch import (
        FetchedPage,
        FetchError,
        RefusedHost,
        UnsupportedScheme,
        UrlError,
        check_scheme,
    )
    from minirag_ingest.web.page import convert_page

__all__ = [
    "FetchError",
    "FetchedPage",
    "RefusedHost",
    "UnsupportedScheme",
    "UrlError",
    "check_scheme",
    "convert_page",
]

__getattr__ = lazy_exports(__name__, __file__)
