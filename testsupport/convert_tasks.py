"""Stand-in conversion tasks for the worker-pool tests, chosen by the file's name.

They run inside real worker processes (so they must be module-level functions of a module the
workers can import); each misbehaves the way a hostile document makes a converter misbehave.
"""

from __future__ import annotations

import mmap
import os
import signal
import time
from pathlib import Path

from minirag_ingest.conversion.convert import ConversionError, Converted
from minirag_ingest.conversion.reading import FileRead, ReadRequest

HOG_STEP = 16 << 20
HOLD_STEP_MB = 8
HOLD_STEP_SECONDS = 0.02
_KEPT: list[bytearray | mmap.mmap] = []


def scripted(request: ReadRequest, ocr: object = None) -> FileRead:
    """``sleep-N``: sleeps N seconds; ``hold-N``: holds N MB for 2 s; ``keep-N[-S]``: holds N
    MB and keeps it after the file (spending S seconds on it), as a converter's fragmented heap
    does; ``reserve-N``: keeps N MB mapped but untouched, as a freed heap left mapped is;
    ``need-N``: allocates N MB at once; ``hog``: allocates until stopped; ``crash``: dies of
    SIGSEGV; ``broken``: a conversion error; every file that converts answers with the
    worker's pid."""
    name = Path(request.path).stem
    if name.startswith("sleep-"):
        time.sleep(float(name.removeprefix("sleep-")))
    elif name.startswith("hold-"):
        # Grown a step at a time, as a converter's memory grows while it parses (400 MB/s), so
        # the pool's check of what the workers hold together (every GATE_SECONDS) sees it grow.
        # One bytearray of the whole size at once would be a burst that only RLIMIT_DATA stops.
        held = []
        for _ in range(int(name.removeprefix("hold-").split("-")[0]) // HOLD_STEP_MB):
            block = bytearray(HOLD_STEP_MB << 20)
            block[::4096] = b"x" * len(block[::4096])  # touch every page
            held.append(block)
            time.sleep(HOLD_STEP_SECONDS)
        time.sleep(2.0)
    elif name.startswith("keep-"):
        size, _, pause = name.removeprefix("keep-").partition("-")
        kept = bytearray(int(size) << 20)
        kept[::4096] = b"x" * len(kept[::4096])
        _KEPT.append(kept)
        time.sleep(float(pause or 0))
    elif name.startswith("reserve-"):  # mapped, never touched: data memory, not resident
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
        _KEPT.append(mmap.mmap(-1, int(name.removeprefix("reserve-")) << 20, flags=flags))
    elif name.startswith("need-"):  # all at once, as an OCR model's buffers are
        needed = bytearray(int(name.removeprefix("need-")) << 20)
        del needed
    elif name == "hog":
        hoard = []
        while True:
            block = bytearray(HOG_STEP)
            block[::4096] = b"x" * len(block[::4096])  # touch every page
            hoard.append(block)
    elif name == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif name == "broken":
        raise ConversionError(request.path, "this one is broken")
    converted = Converted(markdown=str(os.getpid()), metadata_title=None, pages=None, kind="txt")
    return FileRead(converted, size=0, mtime=0.0, content_hash="-")


WORKER_REFUSAL = "sent to a conversion worker"


def refused(request: ReadRequest, ocr: object = None) -> FileRead:
    """Fails every file it is given, so a sync's errors list the files sent to a worker."""
    raise ConversionError(request.path, WORKER_REFUSAL)


class UnusedOcr:
    """An OCR engine for tests where none may be asked to read anything (it pickles, so a pool
    can hand it to its workers)."""

    name = "unused"
    image_extensions: frozenset[str] = frozenset()

    def recognise_image(self, path: Path) -> list[str]:
        raise AssertionError(f"OCR was asked to read {path}")

    def recognise_pdf_pages(self, path: Path, page_numbers: object) -> dict[int, str]:
        raise AssertionError(f"OCR was asked to read {path}")
