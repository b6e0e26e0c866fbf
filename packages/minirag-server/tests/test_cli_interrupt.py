"""Ctrl-C and SIGTERM into a real `minirag-mcp sync` / `ingest`, at random points.

Each interrupted run must stop cleanly (exit 130, the "interrupted: ..." line, no traceback, no
abort from a native library at exit), and the next sync must finish the job with every file
indexed exactly once. The child's stderr is a pseudo-terminal, so it draws its progress bar and
the test can aim signals at the middle of the work, not only at its start.
"""

from __future__ import annotations

import json
import os
import pty
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from testsupport.mcp import cli_process

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc"),
]

FILES = 200
TRIES = 10
WAIT = 600  # seconds: a bound against a hang, not a speed claim
PROGRESS = re.compile(rb"(\d+)/(\d+)")
STOPPED = re.compile(r"interrupted: [^\r\n]*")
WORDS = ["alpha", "beta", "gamma", "delta", "sensor", "river", "garden", "budget", "server"]


def write_corpus(root: Path, revision: int, rng: random.Random) -> None:
    """FILES small documents, all carrying the token ``rev<revision>``: every file changes."""
    root.mkdir(exist_ok=True)
    for number in range(FILES):
        words = " ".join(rng.choice(WORDS) for _ in range(25))
        text = f"# Document {number}\n\nrev{revision} {words}\n"
        (root / f"doc{number:03d}.md").write_text(text, encoding="utf-8")


class Child:
    """`minirag-mcp <args>` with stderr on a pseudo-terminal that is read as it comes."""

    def __init__(self, *args: str) -> None:
        master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "minirag_mcp", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
        )
        os.close(slave)
        self.master = master
        self.err = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # EIO once the child has closed the terminal
                return
            if not data:
                return
            self.err += data

    def handles_signals(self) -> bool:
        """The child caught SIGTERM: its own handlers are installed (Linux /proc)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        caught = int(re.search(r"SigCgt:\s*([0-9a-f]+)", status).group(1), 16)
        return bool(caught & (1 << (signal.SIGTERM - 1)))

    def progress(self) -> tuple[int, int] | None:
        found = PROGRESS.findall(bytes(self.err))
        return (int(found[-1][0]), int(found[-1][1])) if found else None

    def finish(self) -> tuple[int, str, str]:
        out, _ = self.proc.communicate(timeout=WAIT)
        self.reader.join(timeout=10)
        os.close(self.master)
        return self.proc.returncode, out.decode(), bytes(self.err).decode(errors="replace")


def wait_for(condition, child: Child) -> bool:
    """Poll ``condition`` until it holds or the child has exited."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if child.proc.poll() is not None:
            return False
        if condition():
            return True
        time.sleep(0.02)
    raise AssertionError("the child neither reached the point nor exited")


def interrupt_at_random(child: Child, rng: random.Random, sig: int) -> None:
    """Signal the child at a random point: during start-up, or some way into the files."""
    if not wait_for(child.handles_signals, child):
        return
    if rng.random() < 0.3:  # while it starts: imports, configuration, opening the index
        time.sleep(rng.uniform(0.0, 1.5))
    else:  # during the work: once the progress bar passed a random number of files
        target = rng.randint(0, FILES * 3 // 4)

        def reached() -> bool:
            seen = child.progress()
            return seen is not None and seen[1] > 0 and seen[0] >= target

        if not wait_for(reached, child):
            return
        time.sleep(rng.uniform(0.0, 0.3))
    if child.proc.poll() is None:
        child.proc.send_signal(sig)


def assert_clean_stop(code: int, err: str) -> None:
    assert code == 130, err[-2000:]
    assert "interrupted:" in err and "the next sync resumes" in err, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert "terminate called" not in err, err[-2000:]


def test_ten_random_interrupts_of_a_sync_then_a_sync_completes(
    env: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    monkeypatch.setenv("BASE_DIR", str(corpus))
    seed = int(os.environ.get("INTERRUPT_SEED", time.time_ns() % 10**6))
    rng = random.Random(seed)
    interrupted = finished_first = 0
    revision = 0
    while interrupted < TRIES:
        assert finished_first <= TRIES, f"seed {seed}: the syncs kept finishing first"
        revision += 1
        write_corpus(corpus, revision, rng)  # so every try has all the files to read again
        child = Child("sync")
        interrupt_at_random(child, rng, signal.SIGINT)
        code, _, err = child.finish()
        if code == 0:  # the signal came after the end: a try that does not count
            finished_first += 1
            continue
        assert_clean_stop(code, err)
        interrupted += 1
        print(f"try {revision}: {STOPPED.findall(err)[-1]}")

    print(f"seed {seed}: {interrupted} interrupted, {finished_first} finished before the signal")
    done = cli_process("sync", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["state"] == "succeeded"
    again = json.loads(cli_process("sync", "--json").stdout)
    # A document stored twice would be read again here; none is, and none was left out.
    assert again["counts"]["skipped"] == FILES and again["counts"]["ingested"] == 0, again
    found = json.loads(cli_process("find", f"rev{revision}", "--json").stdout)
    assert (found["searchedDocuments"], found["matchedDocuments"]) == (FILES, FILES), found
    status = json.loads(cli_process("status", "--json").stdout)
    assert status["documents"] == FILES


def test_sigterm_stops_a_folder_ingest_and_the_next_sync_resumes(
    env: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    monkeypatch.setenv("BASE_DIR", str(corpus))
    write_corpus(corpus, 1, random.Random(7))
    child = Child("ingest", str(corpus))
    assert wait_for(child.handles_signals, child)
    assert wait_for(lambda: (child.progress() or (0, 0))[0] >= 5, child)
    child.proc.send_signal(signal.SIGTERM)
    code, out, err = child.finish()
    assert_clean_stop(code, err)
    assert "ingest interrupted: scanned 200" in out
    resumed = cli_process("sync", "--json")
    assert resumed.returncode == 0, resumed.stderr
    counts = json.loads(resumed.stdout)["counts"]
    assert counts["skipped"] + counts["ingested"] == FILES and counts["skipped"] >= 5
