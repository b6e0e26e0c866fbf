"""The bearer tokens ``serve --http`` accepts, each with the name requests are attributed to.

``MINIRAG_TOKEN`` is one shared token (named ``MINIRAG_TOKEN``). Otherwise ``MINIRAG_TOKEN_FILE``
names a file, or a folder of files, holding them: one token a line, as ``name:token`` or a bare
token (named after its file); blank lines and lines starting with ``#`` are skipped. In a
folder every file whose name does not start with ``.`` or end with ``~`` is read. A file holding
a single bare token - the form of earlier versions - is still one valid shared token.

The file is looked at again at most once a second and re-read when it (or the folder's list of
files, or one of them) changed, so adding or removing a line takes effect without a restart. At
start a bad line is a configuration error naming the file, the line and the fix; once running,
a bad line is skipped with a warning, and a file that cannot be read accepts no token at all
(a botched edit locks everyone out rather than keeping a revoked token valid).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from minirag_index.settings import ConfigError

log = logging.getLogger(__name__)

MIN_TOKEN_CHARS = 16
MAKE_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'
RECHECK_SECONDS = 1.0
NAME = re.compile(r"[A-Za-z0-9._@+-]{1,64}")
SHARED_NAME = "MINIRAG_TOKEN"


@dataclass(frozen=True)
class Token:
    name: str
    digest: bytes  # SHA-256 of the token: compared at one length whatever is sent


def digest(secret: bytes) -> bytes:
    return hashlib.sha256(secret).digest()


@dataclass(frozen=True)
class TokenSet:
    tokens: tuple[Token, ...]

    def name_of(self, given: bytes) -> str | None:
        """The name of the token ``given`` is, or None. Every token is compared, each with
        :func:`hmac.compare_digest`, so the time taken says nothing of which one (nearly)
        matched."""
        sent = digest(given)
        found = None
        for token in self.tokens:
            if hmac.compare_digest(sent, token.digest):
                found = token.name
        return found


def parse_tokens(text: str, source: Path) -> tuple[list[Token], list[str]]:
    """The tokens in one file's ``text``, and a sentence per line that is not one."""
    tokens: list[Token] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, colon, secret = line.partition(":")
        if not colon:
            name, secret = source.name, line
        where = f"MINIRAG_TOKEN_FILE {source} line {number}"
        if not NAME.fullmatch(name.strip()):
            problems.append(
                f"{where}: the name before ':' must be 1 to 64 letters, digits or . _ @ + -"
            )
        elif len(secret.strip()) < MIN_TOKEN_CHARS or any(c.isspace() for c in secret.strip()):
            problems.append(
                f"{where}: a token must be at least {MIN_TOKEN_CHARS} characters without spaces;"
                f" make one with: {MAKE_TOKEN}"
            )
        else:
            tokens.append(Token(name.strip(), digest(secret.strip().encode())))
    return tokens, problems


def token_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    return sorted(
        p
        for p in path.iterdir()
        if not p.name.startswith(".") and not p.name.endswith("~") and p.is_file()
    )


def read_tokens(path: Path) -> tuple[list[Token], list[str]]:
    """Every token under ``path`` (a file or a folder of files), and every problem found."""
    tokens: list[Token] = []
    problems: list[str] = []
    try:
        files = token_files(path)
    except OSError as exc:
        return [], [f"MINIRAG_TOKEN_FILE {path} could not be read: {exc.strerror or exc}"]
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            problems.append(f"MINIRAG_TOKEN_FILE {file} could not be read: {reason}")
            continue
        found, bad = parse_tokens(text, file)
        tokens.extend(found)
        problems.extend(bad)
    seen: set[str] = set()
    unique = []
    for token in tokens:
        if token.name in seen:
            problems.append(f"MINIRAG_TOKEN_FILE {path}: the name {token.name!r} is used twice")
        else:
            seen.add(token.name)
            unique.append(token)
    if len({t.digest for t in unique}) < len(unique):
        problems.append(f"MINIRAG_TOKEN_FILE {path}: one token is listed under two names")
        unique = []
    return unique, problems


def signature(path: Path) -> tuple[tuple[str, int, int, int], ...]:
    """What changes when the file, the folder's list of files or one of them changes."""
    found = []
    try:
        paths = [path, *token_files(path)] if path.is_dir() else [path]
    except OSError:
        return ()
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        found.append((str(p), st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(found)


@dataclass
class TokenSource:
    """The tokens now in force. ``path`` None: a fixed set (MINIRAG_TOKEN)."""

    current: TokenSet
    path: Path | None = None
    clock: Callable[[], float] = time.monotonic
    _checked: float = 0.0
    _signature: tuple[tuple[str, int, int, int], ...] = ()
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tokens(self) -> TokenSet:
        """The tokens, re-read first when the file changed (looked at once a second at most)."""
        if self.path is None:
            return self.current
        now = self.clock()
        with self._lock:
            if now - self._checked < RECHECK_SECONDS:
                return self.current
            self._checked = now
            seen = signature(self.path)
            if seen == self._signature:
                return self.current
            self._signature = seen
            tokens, problems = read_tokens(self.path)
            for problem in problems:
                log.warning("%s (skipped)", problem)
            names = ", ".join(t.name for t in tokens) or "none: every request gets 401"
            log.warning("MINIRAG_TOKEN_FILE %s re-read; tokens now accepted: %s", self.path, names)
            self.current = TokenSet(tuple(tokens))
            return self.current


def load_tokens(
    token: str | None, token_file: Path | None, clock: Callable[[], float] = time.monotonic
) -> TokenSource:
    """The tokens from MINIRAG_TOKEN (``token``), else from MINIRAG_TOKEN_FILE. Raises
    :class:`ConfigError` naming the variable, the file and line, and how to make a token."""
    token = (token or "").strip()
    if token:
        if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
            raise ConfigError(
                f"the token from MINIRAG_TOKEN must be at least {MIN_TOKEN_CHARS} characters "
                f"without spaces; make one with: {MAKE_TOKEN}",
                variable="MINIRAG_TOKEN",
            )
        return TokenSource(TokenSet((Token(SHARED_NAME, digest(token.encode())),)))
    if token_file is None:
        raise ConfigError(
            "serving over HTTP needs a bearer token: set MINIRAG_TOKEN, or MINIRAG_TOKEN_FILE "
            f"to a file holding it (or name:token lines); make one with: {MAKE_TOKEN}",
            variable="MINIRAG_TOKEN",
        )
    path = Path(os.path.expanduser(token_file))
    seen = signature(path)  # before reading: a change while it is read is read again
    tokens, problems = read_tokens(path)
    if not problems and not tokens:
        problems = [f"MINIRAG_TOKEN_FILE {path} holds no token; make one with: {MAKE_TOKEN}"]
    if problems:
        raise ConfigError("; ".join(problems), variable="MINIRAG_TOKEN_FILE")
    return TokenSource(
        TokenSet(tuple(tokens)), path=path, clock=clock, _checked=clock(), _signature=seen
    )
