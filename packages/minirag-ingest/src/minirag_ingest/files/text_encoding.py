"""Telling the encoding of a file in a text format, and refusing one that is not text at all.

Order: a byte-order mark; then NUL bytes, which text in UTF-8 or a legacy 8-bit encoding never
holds: UTF-16 and UTF-32 without a BOM show them in a fixed pattern (every other byte, or
three of every four, for Latin text), anything else holding them is binary; then strict UTF-8;
then charset-normalizer's best guess, and UTF-8 when it has none (the converter then replaces
what does not decode, and says so). Whatever the encoding, the decoded text must read as text:
a file whose characters are more than :data:`MAX_CONTROL_SHARE` control characters is refused,
so 5,000 NUL bytes named ``.txt`` are an error naming the file, not a document. Bytes that no
encoding explains are not refused for that alone: that is damaged text, not binary data.
"""

from __future__ import annotations

import codecs
import unicodedata

from minirag_ingest.errors import IngestError

SAMPLE_BYTES = 1 << 16  # how much of a file the NUL pattern and the text check look at
MAX_CONTROL_SHARE = 0.01
# UTF-16 of Latin text has a NUL in every other byte; of Cyrillic or Greek, one per space,
# digit or punctuation mark. Below this share of the expected half, it is not that pattern.
MIN_NUL_SHARE = 0.05
# ...and the other half may hold NULs only where a character's low byte is 0 (U+0100, U+0400).
MAX_STRAY_NUL_SHARE = 0.01

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE, whose BOM it starts with
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v\x1b")
_FIX = "if it is text, save it as UTF-8 and sync again"


class NotText(IngestError, ValueError):
    """Bytes in a text format that are not text; ``str()`` says why and what to do."""


def detect_encoding(data: bytes) -> str:
    """The codec name to decode ``data`` with; :class:`NotText` when it is binary."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            _require_text(data, encoding, "its byte-order mark")
            return encoding
    sample = data[:SAMPLE_BYTES]
    if b"\x00" in sample or b"\x00" in data:
        wide = _wide_encoding(sample)
        if wide is None:
            raise NotText(f"it holds NUL bytes, so it is binary data, not text ({_FIX})")
        _require_text(data, wide, "the pattern of its NUL bytes")
        return wide
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        encoding = _guess(data)
    else:
        encoding = "utf-8"
    _require_text(data, encoding, "its bytes")
    return encoding


def _wide_encoding(sample: bytes) -> str | None:
    """UTF-32 or UTF-16 (either byte order) when the NULs fall in that encoding's pattern.

    Each candidate names the byte of a character that is always 0 (UTF-32's top byte), the
    one that is 0 for Latin text and punctuation, and the low byte, which is almost never 0.
    """
    for encoding, width, always_zero, often_zero, low in (
        ("utf-32-le", 4, 3, 2, 0),
        ("utf-32-be", 4, 0, 1, 3),
        ("utf-16-le", 2, None, 1, 0),
        ("utf-16-be", 2, None, 0, 1),
    ):
        usable = sample[: len(sample) - len(sample) % width]
        if not usable:
            continue
        column = [usable[offset::width] for offset in range(width)]
        if always_zero is not None and column[always_zero].count(0) != len(column[always_zero]):
            continue
        if column[often_zero].count(0) < len(column[often_zero]) * MIN_NUL_SHARE:
            continue
        if column[low].count(0) > len(column[low]) * MAX_STRAY_NUL_SHARE:
            continue
        if _decodes(usable, encoding):
            return encoding
    return None


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _guess(data: bytes) -> str:
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return best.encoding if best is not None else "utf-8"


def _require_text(data: bytes, encoding: str, told_by: str) -> None:
    """Refuse ``data`` when its start, decoded, is mostly control characters."""
    head = data[:SAMPLE_BYTES]
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=False)
    if not text:
        return
    controls = sum(
        1 for char in text if char not in _ALLOWED_CONTROLS and unicodedata.category(char) == "Cc"
    )
    if controls > len(text) * MAX_CONTROL_SHARE:
        raise NotText(
            f"it is binary data, not text: read as {encoding} (told by {told_by}), "
            f"{controls} of its first {len(text)} characters are control characters ({_FIX})"
        )
