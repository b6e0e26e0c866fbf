"""Files that could not be converted, remembered so that a sync does not read them again.

A file that fails to convert (a scan without the OCR extra, a malformed transcript, a document
that holds no text) fails the same way every time its bytes and the settings that decided it
stay the same. A sync remembers each such failure by the file's identity (size, mtime and
content hash) in ``failed-files.json`` beside the index, and the next sync reports it again,
with the same reason and as failed (so the sync still exits 1), without converting it.

A remembered failure is forgotten, and the file read again, when:

* the file changes: another size or mtime, unless its content hash is still the same (a touch);
* what decided the failure changes: the package versions doing the conversion, the chunking
  scheme, MAX_FILE_SIZE, the OCR engine (the extra installed or removed, another language) or
  RAG_OCR_MIN_CHARS_PER_PAGE, the set of file types scanned, or the conversion workers' limits
  (RAG_CONVERT_MAX_MEMORY, RAG_CONVERT_TIMEOUT);
* the file is gone, or is ingested after all.

Only conversion failures are remembered: a file that could not be read (permissions, a drive
that went away) or stored, whose OCR failed in the engine itself (a model download), whose
conversion ran out of time (the machine may have been busy) or was stopped, is tried again next
time, since nothing says it would fail again.

For an index on object storage the memory is an object beside the table rather than a file in
a local cache: it describes the index, so a sync run from another machine (after a lease
takeover, say) skips the same files; only the lease holder writes it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from minirag_ingest.sync.object_store import SideObjects

log = logging.getLogger(__name__)

FILE_NAME = "failed-files.json"
_FORMAT = 1


@dataclass(frozen=True)
class Failure:
    size: int
    mtime: float
    content_hash: str
    reason: str


def settings_key(
    *,
    max_file_size: int,
    ocr_engine: str,
    ocr_min_chars_per_page: int,
    extensions: Iterable[str],
    scheme: int,
    convert_limits: str = "",
) -> str:
    """One string naming everything that decides whether a file converts."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for package in ("minirag-ingest", "markitdown", "nbformat", "pdfplumber", "pdfminer.six"):
        try:
            versions.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            versions.append(f"{package}=none")
    parts = [
        f"format={_FORMAT}",
        *versions,
        f"scheme={scheme}",
        f"max_file_size={max_file_size}",
        f"ocr={ocr_engine}",
        f"ocr_min_chars_per_page={ocr_min_chars_per_page}",
        "extensions=" + ",".join(sorted(extensions)),
        f"convert_limits={convert_limits}",
    ]
    return ";".join(parts)


class FailureMemory:
    """The remembered failures of one index, under the settings they were made with."""

    def __init__(self, folder: Path | SideObjects, settings: str) -> None:
        """``folder``: the index's folder, or its objects on an object store."""
        if isinstance(folder, Path):
            self.path: Path | str = folder / FILE_NAME
            self._objects = None
        else:
            self.path = folder.location.beside(FILE_NAME)
            self._objects = folder
        self.settings = settings
        self.failures: dict[str, Failure] = {}
        self._dirty = False
        self._load()

    def _load(self) -> None:
        try:
            stored = json.loads(self._read())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable %s (%s): failed files are read again", self.path, exc)
            self._dirty = True
            return
        if not isinstance(stored, dict) or stored.get("settings") != self.settings:
            self._dirty = True  # other settings decided those failures: try every file again
            return
        for source, entry in (stored.get("files") or {}).items():
            try:
                self.failures[source] = Failure(
                    int(entry["size"]),
                    float(entry["mtime"]),
                    str(entry["content_hash"]),
                    str(entry["reason"]),
                )
            except (KeyError, TypeError, ValueError):
                self._dirty = True

    def _read(self) -> str:
        if self._objects is None:
            return Path(self.path).read_text(encoding="utf-8")
        found = self._objects.read(FILE_NAME)
        if found is None:
            raise FileNotFoundError(self.path)
        return found.data.decode("utf-8")

    def recall(
        self, source: str, size: int, mtime: float, content_hash: Callable[[], str | None]
    ) -> str | None:
        """The reason ``source`` failed, if it is still the file that failed; else None.

        ``content_hash`` is called only when size or mtime differ from the remembered ones.
        """
        failure = self.failures.get(source)
        if failure is None:
            return None
        if failure.size == size and failure.mtime == mtime:
            return failure.reason
        if failure.size == size and content_hash() == failure.content_hash:
            self.failures[source] = Failure(size, mtime, failure.content_hash, failure.reason)
            self._dirty = True
            return failure.reason
        self.forget(source)
        return None

    def remember(
        self, source: str, size: int, mtime: float, content_hash: str, reason: str
    ) -> None:
        failure = Failure(size, mtime, content_hash, reason)
        if self.failures.get(source) != failure:
            self.failures[source] = failure
            self._dirty = True

    def forget(self, source: str) -> None:
        if self.failures.pop(source, None) is not None:
            self._dirty = True

    def keep_only(self, present: set[str], covered: Callable[[str], bool]) -> None:
        """Forget the files this sync covers that are no longer on disk."""
        for source in [s for s in self.failures if covered(s) and s not in present]:
            self.forget(source)

    def save(self) -> None:
        """Write the memory if it changed (atomically); a failure to write only costs a read."""
        if not self._dirty:
            return
        payload = {
            "settings": self.settings,
            "files": {source: asdict(f) for source, f in sorted(self.failures.items())},
        }
        text = json.dumps(payload, ensure_ascii=False, indent=1)
        try:
            if self._objects is None:
                _write_atomically(Path(self.path), text)
            else:
                self._objects.write(FILE_NAME, text.encode("utf-8"))
        except Exception as exc:  # OSError, or the object store's own errors
            log.warning("could not write %s: %s", self.path, exc)
            return
        self._dirty = False


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".failed-files.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
