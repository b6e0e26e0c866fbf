"""A storage error is never an answer about the content.

When the store holding the index cannot be reached (an object-store endpoint down, refused,
timing out), every reader and the writer's plan raise :class:`StoreUnavailableError` instead
of reading "no table": an outage must never look like an empty index.

The object-store layers (LanceDB's Rust ``object_store``, obstore) put a multi-line Rust debug
dump into their exception text. :func:`brief` keeps the first meaningful line of it for the
user; the whole text goes to the log at DEBUG level only.
"""

from __future__ import annotations

import logging
import re

__all__ = ["MiniragError", "StoreUnavailableError", "brief", "looks_like_store_error"]

log = logging.getLogger(__name__)

_LONGEST = 300  # characters of a cause shown to a user
# Words of the object-store layers' errors: an I/O error there is the store, not the content.
_STORE_WORDS = (
    "object_store",
    "objectstore",
    "generic s3 error",
    "generic gcs error",
    "generic microsoftazure error",
    "s3 error",
    "error performing",
    "error sending request",
    "failed to connect to namespace",
    "retryerror",
    "lanceerror(io)",
)
_RETRY = re.compile(
    r"method: (?P<method>[A-Z]+), uri: Some\((?P<uri>[^)\s]+)\), retries: (?P<retries>\d+)"
)
_INNER = re.compile(r"(?:hyper::Error|ErrorKind::|kind: )\(?(?P<kind>[A-Za-z]+)")
_NOISE = (
    re.compile(r",?\s*/\S+\.rs:\d+(?::\d+)?"),  # source positions in Rust files
    re.compile(r",?\s*location: Location \{.*"),
    re.compile(r"\s*\(?backtrace: .*"),
)


def brief(cause: BaseException | str) -> str:
    """The first meaningful line of an error text: no Rust debug dump, source positions or
    repeated wrapper names, at most a few hundred characters."""
    text = str(cause).strip()
    if not text:
        return type(cause).__name__ if isinstance(cause, BaseException) else ""
    head = text.split("Debug source:", 1)[0].strip()
    retry = _RETRY.search(head)
    if retry and "{" in head:  # a Debug-formatted RetryError: say what it holds, plainly
        kinds = _INNER.findall(head[retry.end() :])
        reason = f" ({kinds[-1]})" if kinds else ""  # the innermost cause
        line = (
            f"{retry.group('method')} {retry.group('uri')} failed after "
            f"{retry.group('retries')} retries{reason}"
        )
    else:
        line = head.splitlines()[0] if head else text.splitlines()[0]
        for noise in _NOISE:
            line = noise.sub("", line)
        # "lance error: LanceError(IO): Generic N/A error: LanceError(IO): Generic S3 error: X"
        # says X; keep the last wrapper's message.
        for marker in ("Generic S3 error: ", "Generic GCS error: ", "Generic N/A error: "):
            if marker in line:
                line = line.rsplit(marker, 1)[1]
        line = re.sub(r",? ?max_retries: \d+, retry_timeout: \S+", "", line)
        line = re.sub(r"\s+-\s+", " - ", line).strip(" ,")
    if len(line) > _LONGEST:
        line = line[: _LONGEST - 1].rstrip() + "…"
    return line


def looks_like_store_error(exc: BaseException) -> bool:
    """Whether ``exc`` came from reaching the store (an object-store request that failed),
    judged from its type and text: those layers raise plain ValueError/RuntimeError/OSError."""
    if isinstance(exc, StoreUnavailableError):
        return True
    module = type(exc).__module__
    if module.startswith("obstore"):
        return True
    try:
        text = str(exc).lower()
    except Exception:  # an exception whose message itself fails is not the store's
        return False
    return any(word in text for word in _STORE_WORDS)


class MiniragError(Exception):
    """The root of every error our packages raise on purpose.

    Each package's own errors derive from it (minirag-ingest's from ``IngestError``, the
    server's from ``ServerError``), so a caller catches one class, and the server words every
    one of them for the user the same way: by its message, which names the file or setting and
    the fix. Many also keep a standard base (``ValueError``, ``OSError``...) for callers that
    already catch those.
    """


class StoreUnavailableError(MiniragError, RuntimeError):
    """The store holding the index could not be reached or read: not an answer about what the
    index holds. ``store`` is the location as status shows it (never a secret), ``cause`` the
    first line of the underlying error; the whole of it is logged at DEBUG level."""

    def __init__(self, store: object, cause: BaseException | str) -> None:
        self.store = str(store)
        self.cause = brief(cause)
        log.debug("the index store %s could not be read: %s", self.store, cause)
        verb = "reached" if "://" in self.store else "read"  # an object store, or a folder
        super().__init__(f"the index store {self.store} could not be {verb}: {self.cause}")
