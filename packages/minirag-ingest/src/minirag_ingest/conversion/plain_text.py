"""Plain text and Markdown files, read in the process that syncs rather than in a worker.

markitdown's converter for these formats, told the encoding, only decodes the bytes
(``PlainTextConverter.convert``: ``file_stream.read().decode(stream_info.charset)``), and
decoding a file no larger than ``RAG_MAX_FILE_SIZE`` can neither run away with memory nor hang,
which is what the worker processes guard against (:mod:`minirag_ingest.conversion.pool`). So
these files are decoded here, with the encoding :func:`detect_encoding` tells, as markitdown
would decode them: a folder of notes then needs no converter process at all. Measured on the
240 XQuAD paragraphs through the MCP server (bench/peer_query.py): the fork server and the two
workers it started held 171 MB of the sync's 687 MB peak. A test pins that markitdown's
converter gives the same text for the same bytes
(packages/minirag-ingest/tests/test_plain_text.py).

A file that holds embedded pictures (``![...](data:...)``) while an OCR engine is set still
goes to a worker: reading pictures is the converter work the workers are there for. So does a
text file larger than :data:`PLAIN_TEXT_HERE_MAX`: the workers' memory ceiling then bounds its
copies while it is decoded and tidied (a hostile 50 MB single line, bench/hostile.py), as before.
"""

from __future__ import annotations

from pathlib import Path

from minirag_ingest.conversion.markitdown_run import describe
from minirag_ingest.errors import ConversionError, IngestError
from minirag_ingest.files.text_encoding import NotText, detect_encoding

#: The kinds (extensions without the dot) whose conversion is decoding their bytes.
PLAIN_TEXT_KINDS = frozenset({"txt", "md", "markdown"})
#: Larger text files are decoded in a worker, under its memory ceiling.
PLAIN_TEXT_HERE_MAX = 1 << 20


class NotPlainText(IngestError):
    """The file needs a converter (or OCR of its pictures), not only decoding: a worker's job."""


def read_plain_text(path: Path) -> str:
    """The text of a plain text or Markdown file, decoded strictly with its detected encoding;
    a :class:`ConversionError` naming ``path`` for binary content or unreadable bytes."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        charset = detect_encoding(data)
    except NotText as exc:
        raise ConversionError(path, str(exc)) from None
    try:
        return data.decode(charset)
    except UnicodeDecodeError as exc:
        raise ConversionError(path, f"conversion failed: {describe(exc)}") from exc
