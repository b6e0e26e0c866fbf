"""Reading one file of the corpus: opened inside the roots, converted, hashed.

This is the unit of work a conversion worker runs (:mod:`minirag_ingest.conversion.pool`), and
what a pipeline without workers runs itself. The file is opened once, race-free
(:mod:`minirag_ingest.files.contained`), and everything - the size and time stored, the hash, the
conversion - reads that one opened file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from minirag_ingest.conversion.convert import Converted, check_size, convert_file
from minirag_ingest.errors import ConversionError
from minirag_ingest.extras.plugins import OcrEngine
from minirag_ingest.files.contained import NotARegularFile, open_inside, pinned
from minirag_ingest.files.roots import PathOutsideRoots, Roots
from minirag_ingest.settings import DEFAULT_MIN_CHARS_PER_PAGE

_HASH_BLOCK = 1 << 20
# Loggers whose warnings about a file are handed back with its FileRead, naming the file as the
# caller knows it (not the pinned path the converter saw): a worker's own log goes nowhere.
RELAYED_LOGGERS = ("minirag_ingest.conversion.convert", "minirag_ingest.conversion.markitdown_run")


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
    warnings: tuple[str, ...] = ()  # what converting it warned about, to be logged by the caller


def file_hash(path: str | os.PathLike[str]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def read_contained(
    request: ReadRequest, ocr: OcrEngine | None = None, *, plain_only: bool = False
) -> FileRead:
    """Open ``request.path`` inside its roots, convert it and hash it.

    ``plain_only``: raise :class:`~minirag_ingest.conversion.plain_text.NotPlainText` for a
    file whose conversion is more than decoding text (it is not read then).

    Every failure is a :class:`~minirag_ingest.conversion.convert.ConversionError` naming the file.
    """
    path = request.path
    try:
        fd = open_inside(path, Roots(request.roots))
    except PathOutsideRoots as exc:
        raise ConversionError(path, str(exc)) from None
    except NotARegularFile as exc:
        raise ConversionError(path, f"cannot read it: {exc.strerror}") from exc
    except OSError as exc:  # the cause tells a failure memory that this may pass next time
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if info.st_size > request.max_file_size:
            check_size(Path(path), request.max_file_size)  # before a copy is made of it
        with pinned(fd, Path(path).name) as stable, _warnings(str(stable), path) as warnings:
            converted = convert_file(
                stable,
                max_file_size=request.max_file_size,
                ocr=ocr,
                ocr_min_chars_per_page=request.ocr_min_chars_per_page,
                plain_only=plain_only,
            )
            digest = request.content_hash or file_hash(stable)
    except ConversionError as exc:
        raise ConversionError(path, exc.reason) from exc.__cause__
    except OSError as exc:
        raise ConversionError(path, f"cannot read file: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    return FileRead(converted, info.st_size, info.st_mtime, digest, tuple(warnings))


class _Relay(logging.Filter):
    """Takes this thread's warnings off a logger, with one path respelled."""

    def __init__(self, seen: str, meant: str) -> None:
        super().__init__()
        self.thread = threading.get_ident()
        self.seen, self.meant = seen, meant
        self.messages: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.thread != self.thread or record.levelno < logging.WARNING:
            return True
        self.messages.append(record.getMessage().replace(self.seen, self.meant))
        return False


@contextmanager
def _warnings(seen: str, meant: str) -> Iterator[list[str]]:
    relay = _Relay(seen, meant)
    loggers = [logging.getLogger(name) for name in RELAYED_LOGGERS]
    for logger in loggers:
        logger.addFilter(relay)
    try:
        yield relay.messages
    finally:
        for logger in loggers:
            logger.removeFilter(relay)
