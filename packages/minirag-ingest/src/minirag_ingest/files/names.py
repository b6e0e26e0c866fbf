"""File names as data: a path from the disk as a source id (valid text), and back.

A POSIX file name is bytes, and any bytes but ``/`` and NUL are allowed. Python hands a name
that is not valid UTF-8 over as text holding each undecodable byte as a lone surrogate
(U+DC80-U+DCFF, the "surrogateescape" convention). Such text cannot be written to JSON or to
the index, so a source id spells each of those bytes as ``\\xNN`` (two lower-case hex digits).
For the escape to be lossless, a backslash that would otherwise read as the start of one - a
backslash followed by another backslash, by ``x`` and a hex byte of 80-ff, or by an escaped
byte - is written twice. Every other name is its own id: all valid UTF-8 names without that
pattern, which is to say nearly all names, are unchanged.

On Windows names are UTF-16 and the backslash is the separator, so ids are the paths as they
are; :func:`json_safe` still keeps a payload serialisable whatever it holds.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

_POSIX = os.name != "nt"
# What :func:`to_id` rewrites: an undecodable byte, or a backslash that would read as an escape.
_NEEDS_ESCAPE = re.compile(r"[\udc80-\udcff]|\\(?=\\|x[89a-fA-F][0-9a-fA-F]|[\udc80-\udcff])")
_ESCAPED = re.compile(r"\\\\|\\x([89a-fA-F][0-9a-fA-F])")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    return f"\\x{ord(char) - 0xDC00:02x}"


def _unescape(match: re.Match[str]) -> str:
    if match.group(1) is None:
        return "\\"
    return chr(0xDC00 + int(match.group(1), 16))


def to_id(path: str | os.PathLike[str]) -> str:
    """The source id of a path as the filesystem gave it (see the module doc for the escape)."""
    text = os.fspath(path)
    if not _POSIX or (text.isascii() and "\\" not in text):
        return text
    return _NEEDS_ESCAPE.sub(_escape, text)


def to_path(source: str) -> str:
    """The filesystem path a source id names: the inverse of :func:`to_id`."""
    if not _POSIX or "\\" not in source:
        return source
    return _ESCAPED.sub(_unescape, source)


def id_name(path: str | os.PathLike[str]) -> str:
    """The last component of a path, as it appears in its source id."""
    return Path(to_id(path)).name


def safe_text(text: str) -> str:
    """``text`` unchanged when it is valid Unicode; otherwise with every undecodable byte and
    lone surrogate spelled out, so it can be written as UTF-8 JSON."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    text = _NEEDS_ESCAPE.sub(_escape, text) if _POSIX else text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_safe(value: Any) -> Any:
    """A payload (dicts, lists, strings…) with every string made :func:`safe_text`."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value
