"""Watch mode's rules (which changes matter, which folder a sync covers) and the watcher's
behaviour when native notification fails or another sync holds the lock.

The server's stdio tests (packages/minirag-server/tests/test_watch.py) show the rest through
the real server.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.files.formats import SUPPORTED_EXTENSIONS
from minirag_ingest.sync.jobs import JobManager
from minirag_ingest.sync.lock import SyncLock
from minirag_ingest.watch.rules import matters, sync_scope
from minirag_ingest.watch.watcher import Watcher, WatchSettings

ROOT = Path("/docs")
DEADLINE = 60.0  # seconds: against a hang, not a speed claim


def _matters(path: str, *, plain_file: bool = True, roots: tuple[Path, ...] = (ROOT,)) -> bool:
    return matters(
        Path(path),
        roots,
        SUPPORTED_EXTENSIONS,
        skip_under=[ROOT / ".minirag"],
        is_plain_file=lambda _path: plain_file,
    )


def test_changes_that_can_change_the_index_matter() -> None:
    assert _matters("/docs/a/report.md")
    assert _matters("/docs/a/Report.PDF")
    assert _matters("/docs/.miniragignore")  # a root's rules
    assert _matters("/docs/classify.toml")  # the taxonomy
    assert _matters("/docs/renamed-folder", plain_file=False)  # a folder, or a path now gone
    assert _matters("/docs")


def test_changes_a_sync_would_never_see_do_not_matter() -> None:
    assert not _matters("/docs/.minirag/lancedb/chunks.lance/data/x.lance")  # the index
    assert not _matters("/docs/a/.draft.md")
    assert not _matters("/docs/.git/index", plain_file=False)
    assert not _matters("/docs/node_modules/pkg/readme.md")
    assert not _matters("/docs/a/~$report.docx")
    assert not _matters("/docs/a/build.log")  # a file the scan does not read
    assert not _matters("/docs/a/.miniragignore")  # only a root's ignore file has rules
    assert not _matters("/elsewhere/a.md")


def test_one_sync_covers_both_places_of_a_move() -> None:
    roots = (ROOT,)
    moved = [Path("/docs/2024/q1/a.md"), Path("/docs/archive/2024/q1/a.md")]
    assert sync_scope(moved, roots) == ROOT
    assert sync_scope([Path("/docs/a/b/x.md"), Path("/docs/a/c/y.md")], roots) == Path("/docs/a")
    assert sync_scope([Path("/docs/a/x.md")], roots) == Path("/docs/a")
    assert sync_scope([Path("/docs/a")], roots) == ROOT  # a folder is synced from its parent
    assert sync_scope([Path("/docs/.miniragignore")], roots) == ROOT


def test_changes_under_two_roots_sync_everything() -> None:
    roots = (ROOT, Path("/more"))
    assert sync_scope([Path("/docs/a.md"), Path("/more/b.md")], roots) is None
    assert sync_scope([Path("/more/x/b.md")], roots) == Path("/more/x")


def until(check: Callable[[], Any], what: str) -> Any:
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def watcher_for(pipeline: Pipeline, **settings: Any) -> tuple[Watcher, JobManager]:
    jobs = JobManager(pipeline)
    watcher = Watcher(
        lambda: jobs,
        pipeline.roots,
        WatchSettings(**{"quiet": 0.2, "poll_interval": 0.1, **settings}),
        extensions=SUPPORTED_EXTENSIONS,
        skip_under=[pipeline.index.db_path],
    )
    return watcher, jobs


def test_a_watcher_that_cannot_use_native_events_polls_and_says_why(
    pipeline: Pipeline, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchfiles

    real_watch = watchfiles.watch

    def no_inotify(*paths: Any, **kwargs: Any) -> Any:
        if not kwargs.get("force_polling"):
            raise OSError("OS file watch limit reached")
        return real_watch(*paths, **kwargs)

    monkeypatch.setattr(watchfiles, "watch", no_inotify)
    watcher, _jobs = watcher_for(pipeline)
    watcher.start()
    try:
        until(lambda: watcher.status().syncs == 1 and watcher.status().running is None, "start")
        status = watcher.status()
        assert status.state == "polling"
        assert status.reason is not None and "watch limit" in status.reason
        (docs / "polled.md").write_text("# Polled\n\nFound by polling.\n", encoding="utf-8")
        until(lambda: "polled" in str(pipeline.index.sources()), "the polled file indexed")
    finally:
        watcher.stop(30)


def test_changes_wait_while_another_sync_holds_the_lock(pipeline: Pipeline, docs: Path) -> None:
    lock = SyncLock(pipeline.index.db_path).acquire()  # a terminal sync, say
    watcher, _jobs = watcher_for(pipeline)
    watcher.start()
    try:
        until(lambda: watcher.status().waiting, "the watcher to find the lock taken")
        status = watcher.status()
        assert status.pending >= 1 and status.syncs == 0
        assert status.waiting is not None and "another sync" in status.waiting
        (docs / "later.md").write_text("# Later\n\nIndexed once the lock is free.\n")
        lock.release()
        until(lambda: "later.md" in str(pipeline.index.sources()), "the file indexed")
        until(lambda: watcher.status().pending == 0, "nothing pending")
        assert watcher.status().waiting is None
    finally:
        if lock.held:
            lock.release()
        watcher.stop(30)


def test_stopping_ends_the_threads(pipeline: Pipeline) -> None:
    watcher, _jobs = watcher_for(pipeline)
    watcher.start()
    until(lambda: watcher.status().syncs == 1, "the first sync")
    watcher.stop(30)
    assert not [t for t in threading.enumerate() if t.name.startswith("minirag-watch")]
