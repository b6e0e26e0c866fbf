"""The stdio front: answers ``initialize`` and the first ``tools/list`` from the record while
the MCP framework is still being imported, then stays a plain relay.

Layout: the real stdin and stdout are kept on private descriptors; fds 0 and 1 become two
pipes, so the fastmcp server reads and writes them unchanged. A reader thread takes the
client's lines from the real stdin and forwards them to the server in order, except that

- an ``initialize`` is answered from the record (when the fingerprint matches) and still
  forwarded, so the real session starts with the client's own capabilities; the server's
  response to it is then dropped;
- the first ``tools/list`` after an early ``initialize`` is answered from the record and not
  forwarded.

A writer thread copies the server's lines to the real stdout (whole lines, under the lock the
early answers take too), leaving out the responses the front asked for itself. Once the real
server has answered ``initialize``, the front asks it for ``tools/list`` under a private id and
(re)writes the record when there was none or its answers differ (warning on stderr in that
case, since the client got the old ones). End of the real stdin closes the server's stdin, so
the server stops as it always has; :func:`serving_early` then waits for every line to be
written before returning.

The threads read and write the descriptors with ``os.read``/``os.write``, never through
Python's buffered file objects: a daemon thread still blocked inside one of those when the
interpreter shuts down holds its lock, and Python then aborts the process (SIGABRT) instead of
exiting 0.

The rules (what is answered, the fingerprint, the record) are in :mod:`early_answers`; this
module and that one import nothing of the framework.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from typing import TYPE_CHECKING

from minirag_mcp import early_answers as rules

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any

DRAIN_WAIT = 10.0  # seconds the writer gets to copy the server's last lines at the end
CHECK_WAIT = 10.0  # seconds the server's answer to the private tools/list is awaited at the end
READ_SIZE = 1 << 16
LONG_LINE = 1 << 20  # past this, a server line is passed on as it comes once nothing is held


@contextlib.contextmanager
def serving_early() -> Iterator[None]:
    """Run the body (the stdio server) behind the front; nothing at all when the feature is
    off, on Windows (where the SDK rebinds the standard handles; not tried there) or when
    stdin/stdout are not usable descriptors."""
    if sys.platform == "win32" or not rules.enabled(os.environ):
        yield
        return
    try:
        front = Front.start()
    except Exception:  # no real stdin/stdout descriptors, say: the server starts as before
        yield
        return
    try:
        yield
    finally:
        front.finish()


def lines_of(fd: int) -> Iterator[bytes]:
    """The lines read from ``fd`` until its end, each with its newline (the last one may
    have none)."""
    return (line for line, _ in line_pieces(fd, lambda: False))


def line_pieces(fd: int, may_split: Callable[[], bool]) -> Iterator[tuple[bytes, bool]]:
    """What is read from ``fd``, as (bytes, whether they end a line). A line comes whole,
    joined once from the reads it took, unless it grew past :data:`LONG_LINE` while
    ``may_split()`` said yes: then it comes in the pieces it was read in, so a response of
    100 MB (``read_file`` of a large document) is never held whole here."""
    parts: list[bytes] = []
    held = 0
    splitting = False
    while chunk := os.read(fd, READ_SIZE):
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            piece = chunk[start : end + 1]
            start = end + 1
            if parts:
                parts.append(piece)
                piece = b"".join(parts)
                parts.clear()
                held = 0
            splitting = False
            yield piece, True
        rest = chunk[start:] if start else chunk
        if not rest:
            continue
        if splitting:
            yield rest, False
            continue
        parts.append(rest)
        held += len(rest)
        if held > LONG_LINE and may_split():
            splitting = True
            piece = b"".join(parts)
            parts.clear()
            held = 0
            yield piece, False
    if parts:
        yield b"".join(parts), True


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Front:
    client_in: int  # the real stdin and stdout, on private descriptors
    client_out: int
    server_in: int  # write end of the server's stdin pipe
    server_out: int  # read end of its stdout pipe

    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.key = key
        self.record = rules.read_record(folder, key)
        self.out_lock = threading.Lock()  # whole lines on the real stdout
        self.in_lock = threading.Lock()  # whole lines into the server's stdin
        self.state_lock = threading.Lock()
        self.end_marker = f"\x00minirag-front-end-{os.urandom(16).hex()}\n".encode()
        self.private_id = f"{rules.PRIVATE_ID_PREFIX}{os.urandom(16).hex()}"
        # Filled as the session goes: the client's initialize id, whether it was answered
        # early, the real answers seen.
        self.init_id: int | str | None = None
        self.early: dict[str, Any] | None = None  # the recorded answers given, if any
        self.waiting_list = False  # an early initialize was given: the next tools/list too
        self.real: dict[str, Any] = {}
        self.pending: set[str] = set()  # ids (as JSON) of client requests not answered yet
        self.asked = False  # the private tools/list has been sent
        self.checked = threading.Event()  # and its answer taken in
        self.stdin_open = True
        self.writer = threading.Thread(target=self._copy_out, name="early-front-out", daemon=True)
        self.reader = threading.Thread(target=self._copy_in, name="early-front-in", daemon=True)

    @classmethod
    def start(cls) -> Front:
        """Everything that can fail comes before the descriptors are moved."""
        front = cls(rules.records_folder(os.environ), rules.fingerprint(rules.fingerprint_inputs()))
        sys.stdout.flush()
        real_in, real_out = os.dup(0), os.dup(1)  # non-inheritable: children never hold them
        in_read, in_write = os.pipe()
        out_read, out_write = os.pipe()
        front.client_in, front.client_out = real_in, real_out
        front.server_in, front.server_out = in_write, out_read
        os.dup2(in_read, 0)
        os.dup2(out_write, 1)
        os.close(in_read)
        os.close(out_write)
        front.writer.start()
        front.reader.start()
        return front

    # -- client → server ---------------------------------------------------------------------

    def _copy_in(self) -> None:
        try:
            for line in lines_of(self.client_in):
                watching = not self.asked or self.waiting_list
                message = self._parse(line) if watching else None
                if not self._answer_early(message):
                    self._note_request(message)
                    self._to_server(line)
        except (OSError, ValueError):
            pass
        finally:
            self._check_before_end()
            self._close_server_in()

    def _check_before_end(self) -> None:
        """The client has gone: the server's end would cut off the private tools/list, so it
        is asked now if it was still waiting, and its answer awaited (not if the server has not
        even answered initialize: then there is nothing to check this time)."""
        with self.state_lock:
            ask = not self.asked and "initialize" in self.real
            self.asked = self.asked or ask
            waiting = self.asked
        if ask:
            self._ask_tools()
        if waiting:
            self.checked.wait(CHECK_WAIT)

    @staticmethod
    def _parse(line: bytes) -> Any:
        try:
            return json.loads(line)
        except ValueError:
            return None

    def _answer_early(self, message: Any) -> bool:
        """Answer ``message`` from the record if it is one of the two; True when it must not
        be forwarded."""
        if message is None or (self.init_id is not None and not self.waiting_list):
            return False  # past the start: a plain relay
        if self.init_id is None:
            if not rules.is_request(message, "initialize"):
                return False
            with self.state_lock:
                self.init_id = message["id"]
                if self.record is not None and rules.answerable_initialize(message):
                    version = rules.negotiated_version(message["params"], self.record)
                    self.early = rules.record_answers(self.record, version)
            if self.early is not None:
                self._to_client(rules.response_line(message["id"], self.early["initialize"]))
                self.waiting_list = True
            return False  # forwarded either way
        if rules.answerable_tools_list(message):
            self.waiting_list = False
            assert self.early is not None
            self._to_client(rules.response_line(message["id"], self.early["tools/list"]))
            return True
        if rules.is_request(message, "tools/list"):
            self.waiting_list = False  # a later page: the server answers it
        return False

    def _note_request(self, message: Any) -> None:
        """Until the private tools/list is sent: the client requests the server has still to
        answer (it is sent once there are none, so that it delays no answer of theirs)."""
        if isinstance(message, dict) and "method" in message and "id" in message:
            with self.state_lock:
                if not self.asked and message["id"] != self.init_id:
                    self.pending.add(json.dumps(message["id"]))

    def _to_server(self, line: bytes) -> None:
        with self.in_lock:
            if not self.stdin_open:
                return
            with contextlib.suppress(OSError):  # the server has gone: nothing more to give it
                write_all(self.server_in, line if line.endswith(b"\n") else line + b"\n")

    def _close_server_in(self) -> None:
        with self.in_lock:
            if self.stdin_open:
                self.stdin_open = False
                os.close(self.server_in)

    # -- server → client ---------------------------------------------------------------------

    def _to_client(self, line: bytes) -> None:
        with self.out_lock, contextlib.suppress(OSError):  # the client has gone
            write_all(self.client_out, line)

    def _copy_out(self) -> None:
        passing = False  # a long line is going out piece by piece, under the lock
        try:
            for piece, ends in line_pieces(self.server_out, self._handshake_over):
                if passing or not ends:
                    if not passing:
                        self.out_lock.acquire()
                        passing = True
                    with contextlib.suppress(OSError):  # the client has gone
                        write_all(self.client_out, piece)
                    if ends:
                        self.out_lock.release()
                        passing = False
                elif piece == self.end_marker:
                    return
                elif not self._own_response(piece):
                    self._to_client(piece)
        finally:
            if passing:
                self.out_lock.release()

    def _handshake_over(self) -> bool:
        """No server line needs reading any more: the front asked nothing of its own, or has
        both real answers."""
        return self.init_id is None or ("initialize" in self.real and "tools/list" in self.real)

    def _own_response(self, line: bytes) -> bool:
        """Take in the server's answers to initialize and to the private tools/list; True when
        ``line`` is one the client must not see (it was answered early, or never asked)."""
        if self._handshake_over():
            return False
        message = self._parse(line)
        if not isinstance(message, dict) or "method" in message:
            return False
        request_id = message.get("id")
        if request_id == self.private_id:
            self.real["tools/list"] = message.get("result")
            try:
                self._check_record()
            finally:
                self.checked.set()
            return True
        own = "initialize" not in self.real and request_id == self.init_id
        if own:
            self.real["initialize"] = message.get("result")
        with self.state_lock:
            self.pending.discard(json.dumps(request_id))
            ask = not self.asked and not self.pending and "initialize" in self.real
            self.asked = self.asked or ask
        if ask:
            self._ask_tools()
        return own and self.early is not None

    def _ask_tools(self) -> None:
        request = {"jsonrpc": "2.0", "id": self.private_id, "method": "tools/list"}
        self._to_server(json.dumps(request).encode() + b"\n")

    def _check_record(self) -> None:
        """Write the record when there was none or it differs from what the server said."""
        init, tools = self.real.get("initialize"), self.real.get("tools/list")
        if not isinstance(init, dict) or not isinstance(tools, dict):
            return  # an error answer: nothing to record
        version = str(init.get("protocolVersion"))
        answers = {"initialize": init, "tools/list": tools}
        if self.early is not None and self.early != answers:
            print(
                "minirag-mcp: the recorded start-up answers differed from the server's; the "
                f"record in {self.folder} is rewritten (MINIRAG_EARLY_ANSWERS=0 turns it off)",
                file=sys.stderr,
            )
        if rules.record_answers(self.record, version) == answers:
            return
        try:
            from mcp_types import version as sdk  # imported by the server by now

            versions = {
                "handshake_versions": list(sdk.HANDSHAKE_PROTOCOL_VERSIONS),
                "latest_handshake_version": sdk.LATEST_HANDSHAKE_VERSION,
            }
            record = rules.updated_record(self.record, self.key, versions, version, answers)
            rules.write_record(self.folder, record)
            self.record = record
        except Exception as exc:  # a read-only cache folder: start normally next time
            print(f"minirag-mcp: could not write {self.folder}: {exc}", file=sys.stderr)

    # -- the end -----------------------------------------------------------------------------

    def finish(self) -> None:
        """After the server stopped: copy out its last lines, then give fds 0 and 1 back."""
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        with contextlib.suppress(OSError):
            write_all(1, self.end_marker)
        self.writer.join(DRAIN_WAIT)
        with contextlib.suppress(OSError):
            os.dup2(self.client_out, 1)
        self._close_server_in()
