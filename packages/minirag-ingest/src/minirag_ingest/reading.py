"""Reading one file of the corpus: opened inside the roots, converted, hashed.

This is the unit of work a conversion worker runs (:mod:`minirag_ingest.convert_pool`), and
what a pipeline without workers runs itself. The file is opened once, race-free
(:mod:`minirag_ingest.contained`), and everything - the size and time stored, the hash, the
conversion - reads that one opened file.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from minirag_ingest.contained import NotARegularFile, open_inside, pinned
from minirag_ingest.convert import ConversionError, Converted, convert_file
from minirag_ingest.convert import _check_size as check_size
from minirag_ingest.ocr import DEFAULT_MIN_CHARS_PER_PAGE, OcrEngine
from minirag_ingest.roots import PathOutsideRoots, Roots

_HASH_BLOCK = 1 << 20


@dataclass(frozen=True)
class ReadRequest:
    """One file to read; plain data, so it can be sent to a worker process."""

    path: str  # as the scan or the caller found it (a link's own path for a symlink)
    roots: tuple[str, ...]
    max_file_size: int
    ocr_min_chars_per_page: int = DEFAULT_MIN_CHARS_PER_PAGE
    content_hash: str | None = None  # already known: not computed again


@dataclass(frozen=True)
class FileRead:
    converted: Converted
    size: int
    mtime: float
    content_hash: str


def file_hash(path: str | os.PathLike[str]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def read_contained(request: ReadRequest, ocr: OcrEngine | None = None) -> FileRead:
    """Open ``request.path`` inside its roots, convert it and hash it.

    Every failure is a :class:`~minirag_ingest.convert.ConversionError` naming the file.
    """
    path = request.path
    try:
        fd = open_inside(path, Roots(request.roots))
    except PathOutsideRoots as exc:
        raise ConversionError(path, str(exc)) from None
    except NotARegularFile as exc:
        raise ConversionError(path, f"cannot read it: {exc.strerror}") from None
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if info.st_size > request.max_file_size:
            check_size(Path(path), request.max_file_size)  # before a copy is made of it
        with pinned(fd, Path(path).name) as stable:
            converted = convert_file(
                stable,
                max_file_size=request.max_file_size,
                ocr=ocr,
                ocr_min_chars_per_page=request.ocr_min_chars_per_page,
            )
            digest = request.content_hash or file_hash(stable)
    except ConversionError as exc:
        raise ConversionError(path, exc.reason) from exc.__cause__
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return FileRead(converted, info.st_size, info.st_mtime, digest)
