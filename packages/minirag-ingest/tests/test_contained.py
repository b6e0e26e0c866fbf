"""Opening files inside the roots: FIFOs, links out, and symlinks swapped while a file is read."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError
from minirag_ingest.conversion.reading import ReadRequest, read_contained
from minirag_ingest.files.contained import NotARegularFile, open_inside
from minirag_ingest.files.roots import PathOutsideRoots, Roots
from minirag_ingest.sync.run import sync

posix_only = pytest.mark.skipif(os.name == "nt", reason="symlinks and FIFOs as POSIX has them")
SECRET = "SECRET-OUTSIDE-THE-ROOT"
ITERATIONS = 1500


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "doc.md").write_text(f"# Private\n\n{SECRET}\n", encoding="utf-8")
    return folder


@posix_only
def test_a_fifo_is_refused_without_hanging(docs: Path) -> None:
    fifo = docs / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile):
        open_inside(fifo, Roots([docs]))


@posix_only
def test_a_link_out_of_the_roots_is_refused(docs: Path, outside: Path) -> None:
    (docs / "notes.md").symlink_to(outside / "doc.md")
    with pytest.raises(PathOutsideRoots):
        open_inside(docs / "notes.md", Roots([docs]))


@contextmanager
def flipping(swap: Callable[[], None], restore: Callable[[], None]) -> Iterator[list[int]]:
    """Run swap/restore in a loop on another thread; yields the count of flips.

    The original state is held for a random moment of up to half a millisecond, so reads
    land in both states and in the switches between them."""
    stop = threading.Event()
    flips = [0]
    chance = random.Random(21)

    def run() -> None:
        while not stop.is_set():
            swap()
            restore()
            flips[0] += 1
            time.sleep(chance.random() * 0.0005)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield flips
    finally:
        stop.set()
        thread.join()


def swap_last_component(docs: Path, outside: Path) -> tuple[Callable, Callable]:
    """docs/doc.md is a regular file, then a symlink to the secret, then a file again."""
    target = docs / "doc.md"
    target.write_text("# Inside\n\nthe file that belongs here\n", encoding="utf-8")

    def swap() -> None:
        os.symlink(outside / "doc.md", docs / ".link")
        os.replace(docs / ".link", target)

    def restore() -> None:
        (docs / ".file").write_text("# Inside\n\nthe file that belongs here\n", encoding="utf-8")
        os.replace(docs / ".file", target)

    return swap, restore


def swap_folder(docs: Path, outside: Path) -> tuple[Callable, Callable]:
    """docs/folder is a real folder, then a symlink to the outside folder, then real again."""
    folder = docs / "folder"
    folder.mkdir()
    (folder / "doc.md").write_text("# Inside\n\nthe file that belongs here\n", encoding="utf-8")

    def swap() -> None:
        os.rename(folder, docs / ".away")
        os.symlink(outside, folder)

    def restore() -> None:
        os.unlink(folder)
        os.rename(docs / ".away", folder)

    return swap, restore


@posix_only
@pytest.mark.parametrize("attack", [swap_last_component, swap_folder])
def test_a_symlink_swapped_between_check_and_open_never_reads_outside(
    docs: Path, outside: Path, attack: Callable
) -> None:
    swap, restore = attack(docs, outside)
    path = docs / ("doc.md" if attack is swap_last_component else "folder/doc.md")
    read = refused = escapes = 0
    with flipping(swap, restore) as flips:
        for _ in range(ITERATIONS):
            try:
                text = read_contained(ReadRequest(str(path), (str(docs),), 1 << 20))
            except ConversionError:
                refused += 1
                continue
            read += 1
            if SECRET in text.converted.markdown:
                escapes += 1
    assert escapes == 0, f"{escapes} reads escaped the root ({read} read, {refused} refused)"
    assert read > 0 and flips[0] > 0


@posix_only
def test_syncs_during_folder_swaps_never_index_the_outside(
    pipeline, docs: Path, outside: Path
) -> None:
    (docs / "stable.md").write_text("# Stable\n\nalways here\n", encoding="utf-8")
    swap, restore = swap_folder(docs, outside)
    ingested = 0
    with flipping(swap, restore):
        for _ in range(15):
            ingested += sync(pipeline).ingested
            texts = [chunk.text for chunk in pipeline.index.store.chunks("true")]
            assert not any(SECRET in text for text in texts)
    assert ingested > 0
