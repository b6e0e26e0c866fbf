"""Conversion workers: the memory ceiling, the time limit, crashes, reuse, and stopping."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError
from minirag_ingest.conversion.pool import ConversionPool, PoolLimits, PoolStopped
from minirag_ingest.conversion.reading import ReadRequest
from testsupport.convert_tasks import scripted

posix_only = pytest.mark.skipif(os.name == "nt", reason="signals and memory limits are POSIX")


def request(name: str, root: Path | None = None) -> ReadRequest:
    root = root or Path("/nowhere")
    return ReadRequest(path=str(root / name), roots=(str(root),), max_file_size=1 << 20)


@pytest.fixture
def make_pool() -> Iterator:
    pools: list[ConversionPool] = []

    def make(**limits: object) -> ConversionPool:
        settings = {"max_memory": 512 << 20, "timeout": 60.0, "workers": 1, **limits}
        pool = ConversionPool(PoolLimits(**settings), task=scripted)  # type: ignore[arg-type]
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.stop()


def pid_of(pool: ConversionPool, name: str = "plain.txt") -> int:
    return int(pool.read(request(name)).converted.markdown)


def started(pool: ConversionPool, name: str) -> Future:
    """``name`` submitted and being converted: the next file submitted finds no idle worker."""
    future = pool.submit(request(name))
    deadline = time.monotonic() + 30
    while not future.running() and not future.done() and time.monotonic() < deadline:
        time.sleep(0.01)
    return future


def alive(pid: int) -> bool:
    if os.name == "nt":  # os.kill would end the process there; the pool's word is taken
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie still answers kill(0): look at its state
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"
    except OSError:
        return True


def test_workers_are_reused_and_recycled(make_pool) -> None:
    pool = make_pool(recycle_after=2)
    first, second, third = (pid_of(pool) for _ in range(3))
    assert first == second != os.getpid()
    assert third != first, "a worker is replaced after recycle_after files"


def test_a_conversion_error_is_the_file_error_and_the_worker_carries_on(make_pool) -> None:
    pool = make_pool()
    before = pid_of(pool)
    with pytest.raises(ConversionError, match="this one is broken"):
        pool.read(request("broken.txt"))
    assert pid_of(pool) == before


def test_a_file_past_the_time_limit_fails_and_the_next_one_converts(make_pool) -> None:
    pool = make_pool(timeout=1.0)
    before = pid_of(pool)
    with pytest.raises(ConversionError) as caught:
        pool.read(request("sleep-30.txt"))
    assert "took longer than 1 s to convert" in caught.value.reason
    assert "RAG_CONVERT_TIMEOUT" in caught.value.reason
    assert not alive(before), "the worker that ran out of time is killed"
    assert pid_of(pool) != before


@posix_only
def test_a_file_past_the_memory_ceiling_fails_and_the_next_one_converts(make_pool) -> None:
    pool = make_pool(max_memory=300 << 20)
    with pytest.raises(ConversionError) as caught:
        pool.read(request("hog.txt"))
    assert "needs more than 300 MB to convert" in caught.value.reason
    assert "RAG_CONVERT_MAX_MEMORY" in caught.value.reason
    assert pid_of(pool) > 0


@posix_only
def test_a_crashing_converter_costs_only_its_file(make_pool) -> None:
    pool = make_pool()
    with pytest.raises(ConversionError, match=r"crashed \(SIGSEGV\)"):
        pool.read(request("crash.txt"))
    assert pid_of(pool) > 0


@posix_only
def test_workers_ignore_ctrl_c_their_owner_decides(make_pool) -> None:
    pool = make_pool()
    worker = pid_of(pool)
    future = pool.submit(request("sleep-2.txt"))
    os.kill(worker, signal.SIGINT)  # what a terminal's Ctrl-C sends the whole process group
    assert int(future.result().converted.markdown) == worker


def test_stop_from_another_thread_ends_workers_and_fails_what_waits(make_pool) -> None:
    pool = make_pool(workers=1)
    worker = pid_of(pool)
    running = pool.submit(request("sleep-60.txt"))
    waiting = pool.submit(request("plain.txt"))
    stopper = threading.Thread(target=pool.stop)
    stopper.start()
    stopper.join()
    with pytest.raises(PoolStopped):
        running.result(timeout=30)
    with pytest.raises(PoolStopped):
        waiting.result(timeout=30)
    assert not alive(worker)
    assert pool.worker_pids() == []
    assert pid_of(pool) != worker, "a stopped pool starts workers again when asked"


def test_several_workers_convert_at_once(make_pool) -> None:
    pool = make_pool(workers=2)
    futures = [pool.submit(request("sleep-1.txt")) for _ in range(2)]
    pids = {int(f.result().converted.markdown) for f in futures}
    assert len(pids) == 2


def test_a_burst_of_files_starts_every_worker_beside_an_idle_one(make_pool) -> None:
    """A worker waiting for files takes the first of a burst; the second must not wait for it
    as if that worker were still free."""
    pool = make_pool(workers=2)
    pid_of(pool)  # one worker, now idle
    futures = [pool.submit(request("sleep-1.txt")) for _ in range(2)]
    pids = {int(f.result().converted.markdown) for f in futures}
    assert len(pids) == 2, "the two files were converted one after the other by one worker"


linux_only = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


@linux_only
def test_files_that_need_the_ceiling_between_them_convert_one_after_the_other(make_pool) -> None:
    """Two files of 300 MB each under a 512 MB ceiling: side by side they would hold 600 MB.
    One is stopped and converted again alone; both convert, and the workers never hold much
    more than the ceiling together."""
    from testsupport.memory import TreeMemory

    pool = make_pool(workers=2, max_memory=512 << 20)
    with TreeMemory(interval=0.05) as memory:
        futures = [pool.submit(request(f"hold-300-{n}.txt")) for n in range(2)]
        pids = [int(future.result(timeout=60).converted.markdown) for future in futures]
    assert all(pid > 0 for pid in pids)
    slack = 150 << 20  # the fork server, a fresh worker's ~100 MB, one sampling interval
    assert memory.peak <= (512 << 20) + slack, memory.breakdown


@linux_only
def test_a_worker_that_grew_is_replaced_instead_of_idling_on_its_memory(make_pool) -> None:
    pool = make_pool(max_memory=1 << 30)
    small = pid_of(pool)
    assert pid_of(pool) == small, "a worker that stays small is reused"
    grown = int(pool.read(request("keep-400.txt")).converted.markdown)
    assert grown == small
    assert not alive(grown), "the worker that kept 400 MB is gone once its file is done"
    assert pool.worker_pids() == []
    assert pid_of(pool) not in (small, 0)


def test_a_real_file_converts_in_a_worker(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Note\n\nConverted elsewhere.\n", encoding="utf-8")
    pool = ConversionPool(PoolLimits(max_memory=1 << 30, timeout=120.0, workers=1))
    try:
        read = pool.read(request("note.md", tmp_path))
    finally:
        pool.stop()
    assert "Converted elsewhere." in read.converted.markdown
    assert read.size == (tmp_path / "note.md").stat().st_size


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_the_fork_server_has_onnxruntime_telemetry_off(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("text\n", encoding="utf-8")
    pool = ConversionPool(PoolLimits(max_memory=1 << 30, timeout=120.0, workers=1))
    try:
        pool.read(request("a.txt", tmp_path))
        [worker] = pool.worker_pids()
        environ = Path(f"/proc/{worker}/environ").read_bytes().split(b"\0")
    finally:
        pool.stop()
    assert b"ORT_DISABLE_TELEMETRY=1" in environ


@linux_only
def test_a_worker_left_with_heap_reserved_past_the_ceiling_is_replaced(make_pool) -> None:
    """Freed heap a converter leaves mapped counts against the worker's RLIMIT_DATA (twice the
    ceiling) though it is not resident: a worker left with 700 MB of it under a 512 MB ceiling
    would fail the next file that needs 300 MB ("needs more than 512 MB"), as OCR of a blank
    page failed after a deeply nested HTML file."""
    pool = make_pool(max_memory=512 << 20)
    reserved = int(pool.read(request("reserve-700.txt")).converted.markdown)
    after = int(pool.read(request("need-300.txt")).converted.markdown)
    assert after != reserved, "the next file converts in a fresh worker"
    assert pid_of(pool) == after, "a worker that stays small is reused"


@linux_only
def test_idle_workers_are_stopped_while_a_file_needs_their_memory(make_pool) -> None:
    """Four workers, three idle on 120 MB each (as a machine with four cores has them after a
    few files), and a file that holds 700 MB under a 1 GB ceiling: side by side they would hold
    more than the ceiling, so the idle ones are stopped, and the pool starts workers again for
    the next files."""
    from testsupport.memory import TreeMemory

    ceiling = 1 << 30
    pool = make_pool(workers=4, max_memory=ceiling)
    with TreeMemory(interval=0.05) as memory:
        futures = [started(pool, f"keep-120-1.{n}.txt") for n in range(3)]
        idle = {int(future.result(timeout=60).converted.markdown) for future in futures}
        assert len(idle) == 3, "each file had a worker of its own"
        big = int(pool.read(request("hold-700.txt")).converted.markdown)
    assert big > 0
    slack = 100 << 20  # the fork server, one sampling interval
    assert memory.peak <= ceiling + slack, memory.breakdown
    assert not any(alive(pid) for pid in idle - {big}), "the idle workers were stopped"
    futures = [pool.submit(request(f"sleep-0.{n}.txt")) for n in range(1, 4)]
    assert all(int(future.result(timeout=60).converted.markdown) > 0 for future in futures)
