"""Running markitdown on one file: the shared MarkItDown instance and each format's own
converter (so a corrupt file fails rather than coming back as its raw bytes), with the
encoding of text formats told, undecodable characters named once per file, and a failure
worded for the user. markitdown is imported only when a file is converted."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from minirag_ingest.conversion.no_text import holds_text
from minirag_ingest.errors import ConversionError
from minirag_ingest.files.text_encoding import NotText, detect_encoding

log = logging.getLogger(__name__)

_MARKITDOWN: Any = None
_MARKITDOWN_LOCK = threading.Lock()


def shared_markitdown() -> Any:
    """The one shared MarkItDown instance, built on first use (plug-ins off)."""
    global _MARKITDOWN
    with _MARKITDOWN_LOCK:
        if _MARKITDOWN is None:
            from markitdown import MarkItDown

            _MARKITDOWN = MarkItDown(enable_plugins=False)
        return _MARKITDOWN


def run_markitdown(path: Path, kind: str, *, keep_pictures: bool = False) -> Any:
    """Convert with markitdown; binary formats go straight to their own converter.

    markitdown's own dispatch falls back to other converters when the right one fails, so a
    corrupt .docx or .pdf would come back as its raw bytes read as text (or as a listing of
    the zip). Calling the format's converter directly makes such a file fail instead.
    ``keep_pictures`` asks the converters for embedded pictures inline as data: URIs (their
    ``keep_data_uris`` option) rather than cut short, so that OCR can read them.
    """
    options = {"keep_data_uris": True} if keep_pictures else {}
    from markitdown import StreamInfo

    try:
        with open(path, "rb") as opened:
            stream: BinaryIO = opened
            if kind == "pdf":  # markitdown's conversion, keeping each page's text
                from minirag_ingest.conversion.pdf import read_pdf

                return read_pdf(stream)
            if kind == "ipynb":  # formats before 4 upgraded by nbformat
                from minirag_ingest.conversion.notebooks import as_current_notebook

                stream = as_current_notebook(stream)
            converter = binary_converter(kind)
            if keep_pictures and kind == "xlsx":
                converter = _xlsx_with_pictures()
            charset = None
            if converter is None:
                # Text formats: the extension already says what the file is, so skip
                # markitdown's content sniffing (a neural model, ~40 ms a file) and tell the
                # format's converter the encoding.
                converter = text_converter(kind)
                charset = _text_charset(stream.read())
                stream.seek(0)
            info = StreamInfo(
                extension=f".{kind}", filename=path.name, local_path=str(path), charset=charset
            )
            with _decoding_warnings(path) as decoding:
                if converter is None:
                    result = shared_markitdown().convert_stream(stream, stream_info=info, **options)
                else:
                    result = converter.convert(stream, info, **options)
                decoding.seen = decoding.seen and holds_text(result.text_content or "")
                return result
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from exc
    except NotText as exc:
        raise ConversionError(path, str(exc)) from None
    except Exception as exc:
        if _EMPTY_DOCUMENT.search(str(_converter_error(exc))):
            from markitdown import DocumentConverterResult

            return DocumentConverterResult(markdown="")
        raise ConversionError(path, _failure_reason(exc)) from exc


# An empty document is reported as one, converting to no text (the pipeline's NoText), however
# it is empty: a file of 0 bytes, a Word file with no body (mammoth: "Could not find the body
# element"), or one whose body holds nothing, which reaches the HTML parser as empty bytes -
# and there its "characters could not be decoded" warning, meaningless for no text, is dropped.
_EMPTY_DOCUMENT = re.compile(r"^Could not find the body element")


PASSWORD_PROTECTED = "the PDF is password-protected: save a copy without the password to index it"


class _UndecodedCharacters(logging.Filter):
    """Swallows BeautifulSoup's "could not be decoded" warning for one conversion in this thread,
    remembering that it came: the warning names no file, so it is said again with the name."""

    def __init__(self) -> None:
        super().__init__()
        self.thread = threading.get_ident()
        self.seen = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.thread == self.thread and "could not be decoded" in record.getMessage():
            self.seen = True
            return False
        return True


@contextmanager
def _decoding_warnings(path: Path) -> Iterator[_UndecodedCharacters]:
    """One warning naming ``path`` if its text held bytes no encoding could decode (unless
    the block clears ``seen``: a document with no text has no characters to replace)."""
    logger = logging.getLogger("bs4.dammit")
    watch = _UndecodedCharacters()
    logger.addFilter(watch)
    try:
        yield watch
    finally:
        logger.removeFilter(watch)
        if watch.seen:
            log.warning(
                "%s: some characters could not be decoded and were replaced with U+FFFD; "
                "save the file as UTF-8 to index them as written",
                path,
            )


def _failure_reason(exc: BaseException) -> str:
    """Why conversion failed, in words for the failures a user can act on."""
    if type(_converter_error(exc)).__name__ == "PDFPasswordIncorrect":
        return PASSWORD_PROTECTED
    return f"conversion failed: {describe(exc)}"


_BINARY_CONVERTER_NAMES = {
    "docx": "DocxConverter",
    "pptx": "PptxConverter",
    "xlsx": "XlsxConverter",
    "epub": "EpubConverter",
}
_TEXT_CONVERTER_NAMES = {
    "md": "PlainTextConverter",
    "markdown": "PlainTextConverter",
    "txt": "PlainTextConverter",
    "html": "HtmlConverter",
    "htm": "HtmlConverter",
    "csv": "CsvConverter",
    "ipynb": "IpynbConverter",
}
_BINARY_CONVERTERS: dict[str, Any] = {}


def binary_converter(kind: str) -> Any:
    return _converter(kind, _BINARY_CONVERTER_NAMES.get(kind))


def text_converter(kind: str) -> Any:
    return _converter(kind, _TEXT_CONVERTER_NAMES.get(kind))


def _xlsx_with_pictures() -> Any:
    """The .xlsx converter that also gives each sheet's pictures (for OCR), made once."""
    from minirag_ingest.conversion.pictures import xlsx_converter_with_pictures

    with _MARKITDOWN_LOCK:
        if "xlsx+pictures" not in _BINARY_CONVERTERS:
            _BINARY_CONVERTERS["xlsx+pictures"] = xlsx_converter_with_pictures()
        return _BINARY_CONVERTERS["xlsx+pictures"]


def _text_charset(data: bytes) -> str:
    """The encoding of a text format's bytes; :class:`NotText` for binary content."""
    return detect_encoding(data)


def _converter(kind: str, name: str | None) -> Any:
    """One shared instance of markitdown's converter class ``name``."""
    if name is None:
        return None
    with _MARKITDOWN_LOCK:
        if kind not in _BINARY_CONVERTERS:
            from markitdown import converters

            _BINARY_CONVERTERS[kind] = getattr(converters, name)()
        return _BINARY_CONVERTERS[kind]


def _converter_error(exc: BaseException) -> BaseException:
    """The converter's own error inside markitdown's wrapper, or ``exc`` itself."""
    for attempt in getattr(exc, "attempts", None) or ():
        info = getattr(attempt, "exc_info", None)
        if info and info[1] is not None:
            return info[1]
    return exc


def describe(exc: BaseException) -> str:
    """A short description of an exception, preferring the converter's own error."""
    exc = _converter_error(exc)
    message = str(exc).strip() or type(exc).__name__
    first = message.splitlines()[0]
    return f"{type(exc).__name__}: {first}"[:300]
