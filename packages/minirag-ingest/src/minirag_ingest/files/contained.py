"""Opening a file inside the document roots in a way a swapped symlink cannot redirect.

Checking a path (resolve it, see that a root holds it) and then opening it by name leaves a gap:
a symlink swapped in between - as the last component or as any folder on the way - sends the
open somewhere else. So the file is opened first and the check is made on what was opened:

* the resolved path is opened with ``O_NOFOLLOW``, so a last component that became a symlink
  is refused, and ``O_NONBLOCK``, so a FIFO cannot hang the open;
* the descriptor must be a regular file;
* where the descriptor really points is read back from the kernel (``/proc/self/fd`` on
  Linux, ``F_GETPATH`` on macOS) and must lie inside a root; elsewhere its device and inode
  must match the checked path's.

Converters read by path, so :func:`pinned` gives them a path that names the opened file and
nothing else: a symlink in a private folder to ``/proc/<pid>/fd/<n>`` on Linux, a private copy
elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat as stat_module
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from minirag_ingest.errors import IngestError
from minirag_ingest.files.roots import PathOutsideRoots, Roots

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_PROC_FD = Path("/proc/self/fd")


class NotARegularFile(IngestError, OSError):
    """The path names a FIFO, a device, a folder or a symlink swapped in while opening."""


def open_inside(path: str | os.PathLike[str], roots: Roots) -> int:
    """A read-only descriptor of the regular file ``path`` names, opened inside ``roots``.

    Raises :class:`~minirag_ingest.files.roots.PathOutsideRoots` when the file (as resolved, or as
    actually opened) lies outside every root, :class:`NotARegularFile` for anything but a
    regular file, and ``OSError`` when it cannot be opened.
    """
    real = roots.contain(path)
    try:
        fd = os.open(real, _FLAGS)
    except OSError as exc:
        if _is_link_refusal(exc, real):
            message = "it was replaced by a symbolic link while opening"
            raise NotARegularFile(exc.errno, message) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat_module.S_ISREG(info.st_mode):
            raise NotARegularFile(0, "it is not a regular file (a FIFO, device or folder)")
        opened = opened_path(fd)
        if opened is not None:
            if not roots.roots_above(Path(opened)):
                roots.contain(opened)  # another spelling of a root (bind mount, case), or raise
        else:
            checked = os.stat(real, follow_symlinks=False)
            if (checked.st_dev, checked.st_ino) != (info.st_dev, info.st_ino):
                raise PathOutsideRoots(path, roots)
    except BaseException:
        os.close(fd)
        raise
    return fd


def opened_path(fd: int) -> str | None:
    """Where the kernel says ``fd`` points now, or None where it cannot say."""
    if _PROC_FD.is_dir():
        try:
            target = os.readlink(_PROC_FD / str(fd))
        except OSError:
            return None
        return target if target.startswith("/") else None
    if sys.platform != "darwin":
        return None
    import fcntl

    try:
        raw = fcntl.fcntl(fd, fcntl.F_GETPATH, bytes(1024))
    except OSError:
        return None
    return os.fsdecode(raw.split(b"\0", 1)[0])


def _is_link_refusal(exc: OSError, real: Path) -> bool:
    """``O_NOFOLLOW`` met a symlink (ELOOP, or EMLINK/EFTYPE on the BSDs)."""
    try:
        return stat_module.S_ISLNK(os.lstat(real).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def pinned(fd: int, name: str) -> Iterator[Path]:
    """A path called ``name`` that opens the file behind ``fd`` and nothing else.

    The folder holding it is private to this process and removed on exit; ``fd`` stays open
    (and owned by the caller) for as long as the path is used.
    """
    folder = Path(tempfile.mkdtemp(prefix="minirag-read-"))
    path = folder / name
    try:
        proc = Path(f"/proc/{os.getpid()}/fd/{fd}")
        if proc.exists():
            os.symlink(proc, path)
        else:
            with os.fdopen(os.dup(fd), "rb") as source, open(path, "xb") as copy:
                shutil.copyfileobj(source, copy)
        yield path
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()
