"""Text inside the pictures a document embeds, read by the OCR engine of the ``[ocr]`` extra.

markitdown inlines a picture of a .docx, .pptx or .html (and of an .xlsx, through
:func:`xlsx_converter_with_pictures`) as ``![alt](data:image/...;base64,...)``
when asked to keep data URIs. Without an OCR engine the picture is replaced by its alt text
(:func:`minirag_ingest.conversion.convert.strip_inline_images`); with one, :func:`read_pictures`
also
recognises it with the engine's ``recognise_image`` and puts the text where the picture stood::

    alt text of the picture

    > [picture text]
    > FORM-4821 Customer code

In a table row the block would break the table, so there the text follows the alt text in
brackets on the same line: ``alt [picture text: FORM-4821 / Customer code]``.

The cost is bounded per document. Pictures too small or too thin to hold a line of text
(icons, rules, bullets: :func:`too_small`) are not recognised, nor are pictures Pillow cannot
decode (SVG, EMF). At most :data:`MAX_PICTURES` pictures are recognised, and none after
:data:`PICTURE_SECONDS` of recognition (none that would likely end past it, judged by the
slowest picture so far); the rest are counted as skipped. A picture repeated in
the same document (a logo on every slide) is recognised once and its text put only where it
first stood. A picture that recognises to nothing, or to fewer than :data:`MIN_TEXT_CHARS`
letters and digits, adds nothing.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from minirag_ingest.extras.plugins import OcrEngine

__all__ = [
    "MAX_PICTURES",
    "PICTURE_SECONDS",
    "PictureCounts",
    "pictures_status",
    "read_pictures",
    "replace_inline_images",
    "too_small",
    "xlsx_converter_with_pictures",
]

#: Pictures recognised per document at most; the rest are counted as skipped.
MAX_PICTURES = 50
#: Seconds of recognition per document after which the remaining pictures are skipped, well
#: inside the default conversion time limit (RAG_CONVERT_TIMEOUT=120).
PICTURE_SECONDS = 40.0
#: A picture whose shorter side is below this many pixels cannot hold a readable line of text
#: (measured: 10-pixel letters in a 16-pixel strip came back garbled, 12-pixel ones read).
MIN_SIDE = 18
#: A picture no larger than this on both sides is an icon or a bullet.
ICON_SIDE = 64
#: A picture longer than this many times its width (or the reverse) is a rule or a border.
MAX_ASPECT = 30

#: Recognised text with fewer letters and digits than this is noise, not text (a logo's
#: shapes read as "7"): the picture adds nothing.
MIN_TEXT_CHARS = 3

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_DATA_IMAGE = re.compile(
    r"!\[((?:[^\]\\\n]|\\.)*)\]\(\s*(data:[^)\s]*)(?:\s+\"[^\"\n]*\")?\s*\)", re.I
)
_BASE64_IMAGE = re.compile(r"data:image/[\w.+-]+;base64,([A-Za-z0-9+/=]+)$", re.I)


@dataclass(frozen=True)
class PictureCounts:
    """The pictures one document embedded: how many, how many were recognised, and how many
    were not (too small, not decodable, a repeat, or past the per-document budget)."""

    held: int = 0
    read: int = 0
    skipped: int = 0

    def __add__(self, other: PictureCounts) -> PictureCounts:
        return PictureCounts(
            self.held + other.held, self.read + other.read, self.skipped + other.skipped
        )


def pictures_status(engine: str | None) -> str:
    """What status says of embedded pictures: the engine that reads them, or the command that
    installs one."""
    if engine:
        return f"read by {engine}"
    from minirag_ingest.extras.install import install_hint

    return f"not read; to read them install the [ocr] extra: {install_hint('ocr')}"


def too_small(width: int, height: int) -> bool:
    """A picture that cannot hold text worth reading: an icon, a bullet, a rule or a border."""
    short, long = sorted((width, height))
    if short < MIN_SIDE:
        return True
    if long <= ICON_SIDE:
        return True
    return long > MAX_ASPECT * short


def replace_inline_images(markdown: str, replace: Callable[[str, str, str], str]) -> str:
    """Each ``![alt](data:...)`` outside fenced code becomes ``replace(alt, uri, line)``;
    ``line`` is the line it stands on. Links to a path or URL are left as written."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
            elif "data:" in line.lower():
                line = _DATA_IMAGE.sub(partial(_one_image, replace, line), line)
        elif _closes(match, fence, line):
            fence = None
        out.append(line)
    return "".join(out)


def holds_inline_pictures(markdown: str) -> bool:
    """Whether ``markdown`` holds an embedded ``![...](data:...)`` picture (fenced code too)."""
    return _DATA_IMAGE.search(markdown) is not None


def _one_image(replace: Callable[[str, str, str], str], line: str, match: re.Match[str]) -> str:
    return replace(match.group(1).strip(), match.group(2), line)


def _closes(match: re.Match[str] | None, fence: str, line: str) -> bool:
    """A closing fence: the same character, at least as long, nothing after it."""
    if match is None or match.group(1)[0] != fence[0] or len(match.group(1)) < len(fence):
        return False
    return not line.strip()[len(match.group(1)) :].strip()


def read_pictures(
    markdown: str,
    ocr: OcrEngine,
    *,
    max_pictures: int = MAX_PICTURES,
    seconds: float = PICTURE_SECONDS,
) -> tuple[str, PictureCounts, bool]:
    """``markdown`` with each embedded picture replaced by its alt text and the text ``ocr``
    recognises in it; the counts; and whether any recognised text was added.

    Raises :class:`~minirag_ingest.extras.ocr.OcrError` when the engine itself fails (a model that
    cannot be loaded): the document fails as a scanned one would, rather than being indexed
    without its pictures' text."""
    with tempfile.TemporaryDirectory(prefix="minirag-picture-") as folder:
        reader = _Reader(ocr, Path(folder) / "picture", max_pictures, time.monotonic() + seconds)
        text = replace_inline_images(markdown, reader.replace)
    counts = PictureCounts(reader.held, reader.read, reader.held - reader.read)
    return drop_empty_sheet_headings(text), counts, reader.added


class _Reader:
    """One document's pictures: the budget left, what was seen, the counts."""

    def __init__(self, ocr: OcrEngine, scratch: Path, max_pictures: int, deadline: float):
        self.ocr, self.scratch = ocr, scratch
        self.max_pictures, self.deadline = max_pictures, deadline
        self.held = self.read = 0
        self.added = False
        self.seen: set[bytes] = set()
        self.longest = 0.0  # seconds the slowest picture so far took

    def replace(self, alt: str, uri: str, line: str) -> str:
        self.held += 1
        lines = self.recognise(uri)
        if not lines:
            return alt
        self.added = True
        if line.lstrip().startswith("|"):  # a table row: keep the row whole
            return f"{alt} [picture text: {' / '.join(lines)}]".strip()
        quoted = "\n".join(f"> {text}" if text else ">" for text in lines)
        return f"{alt}\n\n> [picture text]\n{quoted}\n\n"

    def recognise(self, uri: str) -> list[str]:
        """The recognised lines of the picture ``uri`` (blank lines between paragraphs); none
        for a picture skipped, a repeat, or one without text."""
        data = _picture_bytes(uri)
        if data is None:
            return []
        digest = hashlib.blake2b(data, digest_size=16).digest()
        if digest in self.seen:
            return []
        self.seen.add(digest)
        # No time for one more picture as long as the longest one so far took: stop here.
        if self.read >= self.max_pictures or time.monotonic() + self.longest >= self.deadline:
            return []
        if not _decodes_with_text_room(data):
            return []
        self.scratch.write_bytes(data)
        self.read += 1
        started = time.monotonic()
        texts = self.ocr.recognise_image(self.scratch)
        self.longest = max(self.longest, time.monotonic() - started)
        joined = "\n\n".join(text.strip() for text in texts if text.strip())
        if sum(ch.isalnum() for ch in joined) < MIN_TEXT_CHARS:
            return []
        return [line.strip() for line in joined.splitlines()]


def xlsx_converter_with_pictures() -> Any:
    """markitdown's .xlsx converter, giving each sheet's pictures as data: URIs after its table.

    markitdown leaves a workbook's pictures out unless a subclass renders them through the
    ``_image_to_html`` hook its converter documents for that; this one renders each as an
    ``<img>`` with a data: URI, which the converter's own HTML step turns into
    ``![](data:...)`` (with ``keep_data_uris``) for :func:`read_pictures`."""
    from markitdown.converters import XlsxConverter

    class PicturesXlsxConverter(XlsxConverter):
        def _image_to_html(self, image_stream: Any, stream_info: Any, **kwargs: Any) -> Any:
            mimetype = getattr(stream_info, "mimetype", None) or "image/png"
            if not mimetype.startswith("image/"):
                return None
            data = base64.b64encode(image_stream.read()).decode("ascii")
            return f'<p><img alt="" src="data:{mimetype};base64,{data}"></p>'

    return PicturesXlsxConverter()  # type: ignore[no-untyped-call]


# The heading markitdown puts before a sheet's pictures; alone it says nothing.
_EMPTY_SHEET_PICTURES = re.compile(r"^### Images in this sheet:\n+(?=#|\Z)", re.M)


def drop_empty_sheet_headings(markdown: str) -> str:
    """A workbook whose pictures held no text keeps no "Images in this sheet:" heading."""
    return _EMPTY_SHEET_PICTURES.sub("", markdown)


def _picture_bytes(uri: str) -> bytes | None:
    """The bytes of a base64 ``data:image/...`` URI, or None for anything else."""
    match = _BASE64_IMAGE.match(uri)
    if match is None:
        return None
    try:
        return base64.b64decode(match.group(1), validate=True)
    except (binascii.Error, ValueError):
        return None


def _decodes_with_text_room(data: bytes) -> bool:
    """Pillow decodes the picture whole, and it is large enough to hold text."""
    import io
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                if too_small(*image.size):
                    return False
                image.load()
    except MemoryError:
        raise
    except Exception:  # not a picture Pillow reads (SVG, EMF), truncated, or a bomb
        return False
    return True
