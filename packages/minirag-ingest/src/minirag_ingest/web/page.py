"""Converting a fetched web page with markitdown's own URL handling.

markitdown picks the converter for a response from its Content-Type, its file name
(Content-Disposition) and the URL's suffix and address: RSS and Atom feeds become their items'
text, Wikipedia pages their article, YouTube pages their title and description, anything else
goes to the format's converter (HTML, PDF, DOCX, ...). The page is fetched by
:func:`minirag_ingest.web.fetch.fetch`, whose transport runs the host guard on every redirect hop
and
bounds the size and time of the download; markitdown is handed that response through
``convert_response`` and never opens a connection of its own.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from minirag_ingest.conversion.convert import Converted, strip_inline_images, tidy
from minirag_ingest.conversion.markitdown_run import describe, shared_markitdown
from minirag_ingest.errors import ConversionError
from minirag_ingest.web.fetch import FetchedPage

if TYPE_CHECKING:
    import requests

# markitdown writes underlined text as <u>…</u>, the one HTML tag it emits on purpose; told to
# strip it, markdownify keeps the text and drops the tag, so no markup reaches the index.
_UNWRAPPED_TAGS = ["u"]


def _response(page: FetchedPage) -> requests.Response:
    """The fetched page as the ``requests.Response`` markitdown expects, body already read."""
    import requests
    from requests.structures import CaseInsensitiveDict

    response = requests.Response()
    response.status_code = 200
    response.url = page.final_url
    response.headers = CaseInsensitiveDict(page.headers)
    response.raw = io.BytesIO(page.content)  # what iter_content reads from
    return response


def convert_page(page: FetchedPage) -> Converted:
    """A fetched page as Markdown, converted by markitdown; URLs never carry page numbers."""
    try:
        result = shared_markitdown().convert_response(_response(page), strip=_UNWRAPPED_TAGS)
    except Exception as exc:
        raise ConversionError(page.url, f"conversion failed: {describe(exc)}") from exc
    markdown = strip_inline_images(tidy(result.markdown or ""))
    title = " ".join((result.title or "").split()) or None
    return Converted(markdown=markdown, metadata_title=title, pages=None, kind="url")
