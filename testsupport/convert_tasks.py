"""Stand-in conversion tasks for the worker-pool tests, chosen by the file's name.

They run inside real worker processes (so they must be module-level functions of a module the
workers can import); each misbehaves the way a hostile document makes a converter misbehave.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from minirag_ingest.convert import ConversionError, Converted
from minirag_ingest.reading import FileRead, ReadRequest

HOG_STEP = 16 << 20
_KEPT: list[bytearray] = []


def scripted(request: ReadRequest, ocr: object = None) -> FileRead:
    """``sleep-N``: sleeps N seconds; ``hold-N``: holds N MB for 2 s; ``keep-N``: holds N MB
    and keeps it after the file, as a converter's fragmented heap does; ``hog``: allocates
    until stopped; ``crash``: dies of SIGSEGV; ``broken``: a conversion error; every file that
    converts answers with the worker's pid."""
    name = Path(request.path).stem
    if name.startswith("sleep-"):
        time.sleep(float(name.removeprefix("sleep-")))
    elif name.startswith("hold-"):
        held = bytearray(int(name.removeprefix("hold-").split("-")[0]) << 20)
        held[::4096] = b"x" * len(held[::4096])  # touch every page
        time.sleep(2.0)
    elif name.startswith("keep-"):
        kept = bytearray(int(name.removeprefix("keep-")) << 20)
        kept[::4096] = b"x" * len(kept[::4096])
        _KEPT.append(kept)
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
