from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from minirag_ingest.sync.lock import SyncLock, SyncLocked, format_duration, read_holder

HOLDER = textwrap.dedent(
    """
    import sys, time
    from minirag_ingest.sync.lock import SyncLock
    lock = SyncLock(sys.argv[1]).acquire()
    print("locked", flush=True)
    time.sleep(60)
    """
)


def hold_in_subprocess(db_path: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db_path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_format_duration() -> None:
    assert format_duration(0.4) == "0 s"
    assert format_duration(45) == "45 s"
    assert format_duration(125) == "2 min 5 s"
    assert format_duration(3 * 3600 + 7 * 60 + 9) == "3 h 7 min"


def test_lock_writes_pid_and_start_and_releases(tmp_path: Path) -> None:
    db = tmp_path / "db"
    before = time.time()
    with SyncLock(db) as lock:
        assert lock.held
        pid, started = read_holder(db / ".sync.lock")
        assert pid == os.getpid()
        assert started is not None and before - 1 <= started <= time.time() + 1  # 3 decimals
    assert not lock.held
    with SyncLock(db):  # re-usable after release
        pass


def test_second_lock_in_the_same_process_is_refused(tmp_path: Path) -> None:
    with SyncLock(tmp_path), pytest.raises(SyncLocked) as caught:
        SyncLock(tmp_path).acquire()
    assert f"PID {os.getpid()}" in str(caught.value)
    assert caught.value.pid == os.getpid()


def _try_acquire(db: Path, outcome: list[BaseException]) -> None:
    try:
        SyncLock(db).acquire()
    except BaseException as exc:  # recorded for the test thread
        outcome.append(exc)


def test_lock_held_by_another_process_is_refused_at_once_naming_it(tmp_path: Path) -> None:
    proc = hold_in_subprocess(tmp_path)
    try:
        # The holder keeps the lock until it is killed: a blocking acquire would never return.
        outcome: list[BaseException] = []
        attempt = threading.Thread(target=_try_acquire, args=(tmp_path, outcome), daemon=True)
        attempt.start()
        attempt.join(timeout=60)
        assert not attempt.is_alive(), "the second sync waited for the first instead of refusing"
        [error] = outcome
        assert isinstance(error, SyncLocked)
        caught = pytest.ExceptionInfo.from_exc_info((type(error), error, error.__traceback__))
        message = str(caught.value)
        assert f"another sync (PID {proc.pid}) has been running for" in message
        assert message.split("running for ")[1].startswith(("0 s", "1 s", "2 s", "3 s"))
    finally:
        proc.kill()
        proc.wait()


def test_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    proc = hold_in_subprocess(tmp_path)
    proc.kill()  # SIGKILL on POSIX: no cleanup code runs
    proc.wait()
    with SyncLock(tmp_path):
        assert read_holder(tmp_path / ".sync.lock")[0] == os.getpid()


def test_unreadable_note_still_refuses(tmp_path: Path) -> None:
    with SyncLock(tmp_path):
        (tmp_path / ".sync.lock").write_text("garbage")
        with pytest.raises(SyncLocked, match="another sync is running"):
            SyncLock(tmp_path).acquire()
