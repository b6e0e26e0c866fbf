"""Turn a supported file (or handed-in content) into Markdown.

Everything except WebVTT, plain text and Markdown goes through markitdown
(:mod:`minirag_ingest.conversion.markitdown_run`); transcripts use our own reader in
:mod:`minirag_ingest.conversion.vtt`, and text files are decoded as markitdown would decode them
(:mod:`minirag_ingest.conversion.plain_text`). markitdown and pdfminer are imported only when a
file is actually converted, because importing them costs noticeable start-up time.
"""

from __future__ import annotations

import io
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from minirag_ingest.conversion.inflation import TooMuchInflation, check_inflation
from minirag_ingest.conversion.markitdown_run import describe, run_markitdown, shared_markitdown
from minirag_ingest.conversion.pictures import (
    PictureCounts,
    holds_inline_pictures,
    replace_inline_images,
)
from minirag_ingest.conversion.plain_text import (
    PLAIN_TEXT_HERE_MAX,
    PLAIN_TEXT_KINDS,
    NotPlainText,
    read_plain_text,
)
from minirag_ingest.errors import ConversionError
from minirag_ingest.extras.ocr import OcrError
from minirag_ingest.extras.plugins import OcrEngine
from minirag_ingest.files.formats import IMAGE_EXTENSIONS, SUPPORTED_EXTENSIONS
from minirag_ingest.settings import DEFAULT_MIN_CHARS_PER_PAGE

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "ConversionError",
    "Converted",
    "convert_content",
    "convert_file",
]

# Formats whose converter reports a title taken from document metadata rather than the body.
_METADATA_TITLE_KINDS = frozenset({"html", "htm", "epub"})

ContentFormat = Literal["text", "markdown", "html"]
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Converted:
    """The Markdown of one document plus what the converter knew about it.

    ``pages`` holds the text of each PDF page (index 0 is page 1) for citing page numbers; a
    page read by OCR holds its recognised text too. ``ocr_engine`` names the engine whose text
    is part of ``markdown`` ("" when none is). ``pictures`` counts the embedded pictures
    when an OCR engine read them (None without one, or for a document that held none).
    """

    markdown: str
    metadata_title: str | None
    pages: list[str] | None
    kind: str
    ocr_engine: str = ""
    pictures: PictureCounts | None = None


def convert_file(
    path: Path,
    *,
    max_file_size: int,
    ocr: OcrEngine | None = None,
    ocr_min_chars_per_page: int = DEFAULT_MIN_CHARS_PER_PAGE,
    plain_only: bool = False,
) -> Converted:
    """Convert one file on disk, refusing oversized files before reading them.

    ``plain_only``: raise :class:`NotPlainText` instead of converting a file that needs more
    than decoding (any format but plain text and Markdown, or pictures for ``ocr`` to read), or
    a text file larger than :data:`PLAIN_TEXT_HERE_MAX`.

    With an OCR engine (the ``[ocr]`` extra), each PDF page whose text layer holds fewer than
    ``ocr_min_chars_per_page`` characters (0: none) is recognised and its text appended after
    the converted document, and image files are read. Without one, a PDF with no text at all
    fails with the install command.
    """
    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    image = ocr is not None and f".{kind}" in ocr.image_extensions
    if plain_only and kind not in PLAIN_TEXT_KINDS:
        raise NotPlainText(path)
    if f".{kind}" not in SUPPORTED_EXTENSIONS and not image:
        if f".{kind}" in IMAGE_EXTENSIONS:
            raise ConversionError(
                path, f"image files need OCR support; install it with: {_ocr_command()}"
            )
        raise ConversionError(path, f"unsupported file type {path.suffix or '(none)'!r}")
    size = check_size(path, max_file_size)
    if plain_only and size > PLAIN_TEXT_HERE_MAX:
        raise NotPlainText(path)
    if size == 0:  # whatever its kind: see markitdown_run
        return Converted(markdown="", metadata_title=None, pages=None, kind=kind)
    try:
        check_inflation(path, kind, max_file_size)
    except TooMuchInflation as exc:
        raise ConversionError(path, str(exc)) from None
    if image:
        assert ocr is not None
        return _convert_image(path, kind, ocr)
    if kind == "vtt":
        return _convert_vtt(path)
    if kind in PLAIN_TEXT_KINDS:
        text = read_plain_text(path)
        if plain_only and ocr is not None and holds_inline_pictures(text):
            raise NotPlainText(path)
        markdown, pictures, engine = _pictures(path, tidy(text), ocr)
        return Converted(markdown, None, None, kind, engine, pictures)
    return _convert_with_markitdown(path, kind, ocr, ocr_min_chars_per_page)


def _convert_with_markitdown(
    path: Path, kind: str, ocr: OcrEngine | None, ocr_min_chars_per_page: int
) -> Converted:
    """Every format but images, WebVTT and plain text: markitdown, then OCR where set."""
    result = run_markitdown(path, kind, keep_pictures=ocr is not None)
    markdown, pictures, engine = _pictures(path, tidy(result.text_content or ""), ocr)
    pages = None
    if kind == "pdf":
        if not markdown.strip() and ocr is None:
            raise ConversionError(path, _scan_reason())
        pages = result.pages
        if ocr is not None and ocr_min_chars_per_page > 0:
            markdown, pages, pdf_engine = _ocr_pdf_pages(
                path, markdown, pages, ocr, ocr_min_chars_per_page
            )
            engine = engine or pdf_engine
        if not markdown.strip():
            raise ConversionError(path, _empty_pdf_reason(ocr, ocr_min_chars_per_page))
    title = _clean_title(result.title) if kind in _METADATA_TITLE_KINDS else None
    if kind == "ipynb":
        title = _notebook_metadata_title(path)
    return Converted(
        markdown=markdown,
        metadata_title=title,
        pages=pages,
        kind=kind,
        ocr_engine=engine,
        pictures=pictures,
    )


def _pictures(
    path: Path, markdown: str, ocr: OcrEngine | None
) -> tuple[str, PictureCounts | None, str]:
    """The Markdown with its embedded pictures replaced: by their alt text, and with an OCR
    engine by the text it reads in them too; their counts (None without OCR or pictures);
    the engine's name when its text was added."""
    if ocr is None:
        return strip_inline_images(markdown), None, ""
    from minirag_ingest.conversion.pictures import read_pictures

    try:
        markdown, counts, added = read_pictures(markdown, ocr)
    except OcrError as exc:
        raise ConversionError(path, f"OCR of an embedded picture failed: {exc}") from exc
    return tidy(markdown), counts if counts.held else None, ocr.name if added else ""


def convert_content(content: str, fmt: ContentFormat) -> Converted:
    """Convert content handed in directly (no file): text and Markdown pass through."""
    if fmt == "text":
        return Converted(markdown=content, metadata_title=None, pages=None, kind="text")
    if fmt == "markdown":
        markdown = strip_inline_images(content)
        return Converted(markdown=markdown, metadata_title=None, pages=None, kind="markdown")
    if fmt != "html":
        raise ConversionError(None, f"unknown content format {fmt!r} (use text, markdown or html)")
    from markitdown import StreamInfo

    stream = io.BytesIO(content.encode("utf-8"))
    info = StreamInfo(extension=".html", mimetype="text/html", charset="utf-8")
    try:
        result = shared_markitdown().convert_stream(stream, stream_info=info)
    except Exception as exc:
        raise ConversionError(
            None, f"HTML content could not be converted: {describe(exc)}"
        ) from exc
    markdown = strip_inline_images(tidy(result.text_content or ""))
    return Converted(
        markdown=markdown, metadata_title=_clean_title(result.title), pages=None, kind="html"
    )


# --- inline images -------------------------------------------------------------------------


def strip_inline_images(markdown: str) -> str:
    """Replace ``![alt](data:...)`` pictures with their alt text, outside fenced code only.

    Without OCR an embedded picture carries no searchable text; links to a path or URL are left
    as written. With OCR, :func:`minirag_ingest.conversion.pictures.read_pictures` reads them
    instead.
    """
    return replace_inline_images(markdown, _alt_text)


def _alt_text(alt: str, uri: str, line: str) -> str:
    return alt


# --- helpers ---------------------------------------------------------------------------------


def check_size(path: Path, max_file_size: int) -> int:
    """The size of the file at ``path``, refused when over ``max_file_size``."""
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from exc
    if size > max_file_size:
        raise ConversionError(
            path,
            f"file too large: {size} bytes exceeds MAX_FILE_SIZE={max_file_size} bytes; "
            "raise MAX_FILE_SIZE to index it",
        )
    return size


def _convert_vtt(path: Path) -> Converted:
    from minirag_ingest.conversion.vtt import vtt_to_markdown

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from exc
    markdown = vtt_to_markdown(data, source=path)
    return Converted(markdown=markdown, metadata_title=None, pages=None, kind="vtt")


def _notebook_metadata_title(path: Path) -> str | None:
    """A notebook's own ``metadata.title``; markitdown would otherwise report its first H1."""
    import json

    try:
        meta = json.loads(path.read_bytes()).get("metadata", {})
    except (OSError, ValueError, AttributeError):
        return None
    title = meta.get("title") if isinstance(meta, dict) else None
    return _clean_title(title) if isinstance(title, str) else None


def _scan_reason() -> str:
    return (
        "the PDF has no text layer and looks like a scan; "
        f"install OCR support with: {_ocr_command()}"
    )


def _ocr_command() -> str:
    from minirag_ingest.extras.install import install_hint

    return install_hint("ocr")


def _empty_pdf_reason(ocr: OcrEngine | None, min_chars: int) -> str:
    if ocr is None:
        return _scan_reason()
    if min_chars <= 0:
        return (
            "the PDF has no text layer and RAG_OCR_MIN_CHARS_PER_PAGE=0 turns OCR of PDF pages "
            "off; set it above 0 to read scanned pages"
        )
    return f"the PDF has no text layer and OCR ({ocr.name}) found no text on its pages"


# --- OCR -------------------------------------------------------------------------------------


def visible_chars(text: str) -> int:
    """Characters of ``text`` that are not whitespace."""
    return sum(1 for ch in text if not ch.isspace())


def _ocr_pdf_pages(
    path: Path, markdown: str, pages: list[str], ocr: OcrEngine, min_chars: int
) -> tuple[str, list[str], str]:
    """Recognise the pages whose text layer is short; their text goes after the document.

    Appending rather than weaving it into page order keeps the converted pages' tables and
    headings intact. Each recognised text also joins its page in ``pages``, so chunks of it
    get that page number.
    """
    scanned = [number for number, text in enumerate(pages, 1) if visible_chars(text) < min_chars]
    if not scanned:
        return markdown, pages, ""
    try:
        recognised = ocr.recognise_pdf_pages(path, scanned)
    except OcrError as exc:
        raise ConversionError(path, f"OCR failed: {exc}") from exc
    pages = list(pages)
    blocks: list[str] = []
    for number in scanned:
        text = (recognised.get(number) or "").strip()
        if not text:
            continue
        blocks.append(text)
        pages[number - 1] = f"{pages[number - 1]}\n{text}" if pages[number - 1].strip() else text
    if not blocks:
        return markdown, pages, ""
    body = markdown.rstrip("\n")
    joined = "\n\n".join(blocks)
    return tidy(f"{body}\n\n{joined}" if body else joined), pages, ocr.name


def _convert_image(path: Path, kind: str, ocr: OcrEngine) -> Converted:
    """An image file read by OCR, every page of a multi-page TIFF in order; no page numbers."""
    try:
        texts = ocr.recognise_image(path)
    except OcrError as exc:
        raise ConversionError(path, f"OCR failed: {exc}") from exc
    markdown = tidy("\n\n".join(text.strip() for text in texts if text.strip()))
    return Converted(
        markdown=markdown, metadata_title=None, pages=None, kind=kind, ocr_engine=ocr.name
    )


def tidy(markdown: str) -> str:
    """Trailing spaces off, page breaks and runs of blank lines down to one blank line."""
    lines = [line.rstrip() for line in markdown.replace("\f", "\n").splitlines()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    return text + "\n" if text else ""


def _clean_title(title: object) -> str | None:
    if not isinstance(title, str):
        return None
    title = " ".join(title.split())
    return title or None
