"""The sync rule as a pure function: its invariants over generated disks and indexes
(hypothesis), and the cases a user meets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from minirag_index import SourceInfo
from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.files.roots import in_scope
from minirag_ingest.files.scan import ScannedFile, UnlistedFolder
from minirag_ingest.sync.plan import SyncPlan, plan

ROOT = "/r"
FOLDERS = [ROOT, "/r/x", "/r/y", "/r/x/z"]
NAMES = ["a.md", "b.md", "c.pdf", "d.png"]
CONTENTS = ["one", "two", "three"]  # a file's bytes; the size follows from them


def size_of(content: str) -> int:
    return len(content) * 10


@dataclass
class World:
    """A disk, an index and what the scan could see of the disk."""

    disk: dict[str, tuple[str, float]]  # path -> (content, mtime)
    indexed: dict[str, SourceInfo]
    unlisted: list[UnlistedFolder]
    excluded: set[str]  # on disk, but a rule keeps the scan away
    unreadable: set[str]  # cannot be hashed
    doubled: set[str]
    has_ocr: bool

    def hidden(self, path: str) -> bool:
        return any(in_scope(path, str(f.path)) for f in self.unlisted) or path in self.excluded

    def scanned(self) -> list[ScannedFile]:
        return [
            ScannedFile(p, p, size_of(content), mtime)
            for p, (content, mtime) in sorted(self.disk.items())
            if not self.hidden(p)
        ]

    def plan(self, hashed: list[str] | None = None) -> SyncPlan:
        def digest(file: ScannedFile) -> str:
            if hashed is not None:
                hashed.append(str(file.path))
            if str(file.path) in self.unreadable:
                raise PermissionError(13, "Permission denied")
            return self.disk[str(file.path)][0]

        files = self.scanned()
        seen = {str(f.path) for f in files}
        on_disk = {s for s in self.indexed if s not in seen and s in self.disk}
        return plan(
            files,
            self.unlisted,
            self.indexed,
            digest=digest,
            on_disk=on_disk,
            unscanned_images={s for s in on_disk if s.endswith(".png") and not self.has_ocr},
            doubled=self.doubled,
            has_ocr=self.has_ocr,
        )


paths = st.sampled_from([f"{folder}/{name}" for folder in FOLDERS for name in NAMES])


@st.composite
def worlds(draw: st.DrawFn) -> World:
    disk = draw(
        st.dictionaries(
            paths, st.tuples(st.sampled_from(CONTENTS), st.sampled_from([1.0, 2.0])), max_size=8
        )
    )
    indexed_paths = draw(st.lists(paths, max_size=8, unique=True))
    indexed = {}
    for path in indexed_paths:
        content = draw(st.sampled_from(CONTENTS))
        indexed[path] = SourceInfo(
            source=path,
            content_hash=content,
            size=size_of(content),
            mtime=draw(st.sampled_from([1.0, 2.0])),
            scheme=draw(st.sampled_from([SCHEME_VERSION, SCHEME_VERSION - 1])),
            ocr_engine=draw(st.sampled_from(["", "rapidocr"])),
            chunk_count=1,
        )
    folders = draw(st.lists(st.sampled_from(FOLDERS), max_size=2, unique=True))
    unlisted = [
        UnlistedFolder(
            Path(folder),
            "permission denied",
            folder == ROOT,
            folder == ROOT and draw(st.booleans()),
        )
        for folder in folders
    ]
    on_disk = sorted(disk)
    return World(
        disk=disk,
        indexed=indexed,
        unlisted=unlisted,
        excluded=set(draw(st.lists(st.sampled_from(on_disk), unique=True))) if on_disk else set(),
        unreadable=set(draw(st.lists(st.sampled_from(on_disk), unique=True))) if on_disk else set(),
        doubled=set(draw(st.lists(st.sampled_from(indexed_paths), unique=True)))
        if indexed_paths
        else set(),
        has_ocr=draw(st.booleans()),
    )


PLAN_SETTINGS = settings(max_examples=400, deadline=None)


@PLAN_SETTINGS
@given(worlds())
def test_every_file_on_disk_gets_exactly_one_fate(world: World) -> None:
    decided = world.plan()
    fates = (
        [str(r.file.path) for r in decided.read]
        + [str(m.file.path) for m in decided.moves]
        + decided.kept_unread
        + [str(f.path) for f, _ in decided.failed]
    )
    assert len(fates) == len(set(fates))
    assert len(fates) + decided.skipped == len(world.scanned())
    assert set(fates) <= decided.seen
    worked = {str(r.file.path) for r in decided.read} | {str(m.file.path) for m in decided.moves}
    # Same bytes, new size or mtime: left as it is (skipped, or kept unreadable).
    assert not {str(f.path) for f in decided.touched} & worked


@PLAN_SETTINGS
@given(worlds())
def test_no_source_is_both_kept_and_deleted(world: World) -> None:
    decided = world.plan()
    deleted = set(decided.delete)
    assert len(deleted) == len(decided.delete)
    assert deleted <= set(world.indexed)
    assert not deleted & decided.seen  # a file the scan found is never deleted
    assert not deleted & set(decided.kept_images)
    assert not deleted & {str(r.file.path) for r in decided.read}


@PLAN_SETTINGS
@given(worlds())
def test_a_move_never_re_embeds(world: World) -> None:
    decided = world.plan()
    read = {str(r.file.path) for r in decided.read}
    origins = [m.origin.source for m in decided.moves]
    assert len(origins) == len(set(origins))
    for move in decided.moves:
        target = str(move.file.path)
        assert target not in read and move.origin.source not in read
        assert move.origin.source not in world.disk  # gone from where it was indexed
        assert move.file.path.name == Path(move.origin.source).name
        assert move.file.size == move.origin.size
        assert move.content_hash == move.origin.content_hash == world.disk[target][0]
        assert move.origin.scheme == SCHEME_VERSION and move.origin.source not in world.doubled


@PLAN_SETTINGS
@given(worlds())
def test_nothing_under_an_unlisted_folder_is_deleted(world: World) -> None:
    decided = world.plan()
    for folder in world.unlisted:
        under = str(folder.path)
        assert not [s for s in decided.delete if in_scope(s, under)]
        if not folder.empty:  # contents unknown: not even moved away
            assert not [m for m in decided.moves if in_scope(m.origin.source, under)]


@PLAN_SETTINGS
@given(worlds())
def test_an_unchanged_file_is_never_hashed(world: World) -> None:
    hashed: list[str] = []
    world.plan(hashed)
    for path in hashed:
        info = world.indexed.get(path)
        if info is None:
            continue  # new: hashed only to look for the file it moved from
        content, mtime = world.disk[path]
        assert (info.size, info.mtime) != (size_of(content), mtime)


@PLAN_SETTINGS
@given(worlds())
def test_changed_bytes_are_read_and_unchanged_ones_are_not(world: World) -> None:
    decided = world.plan()
    read = {str(r.file.path) for r in decided.read}
    for file in world.scanned():
        path = str(file.path)
        stored = world.indexed.get(path)
        if stored is None or path in world.unreadable:
            continue
        current = stored.scheme == SCHEME_VERSION and path not in world.doubled
        same_stat = (stored.size, stored.mtime) == (file.size, file.mtime)
        if world.disk[path][0] != stored.content_hash and not same_stat:
            assert path in read, path  # new bytes: read again, OCR or not
        elif current:
            assert path not in read, path  # same bytes, same scheme: nothing to read


# -- cases ---------------------------------------------------------------------------------------


def info(path: str, content: str = "one", mtime: float = 1.0, **fields: object) -> SourceInfo:
    values: dict = {"scheme": SCHEME_VERSION, **fields}
    return SourceInfo(path, content_hash=content, size=size_of(content), mtime=mtime, **values)


def test_a_renamed_folder_is_a_move_and_a_touched_file_a_skip() -> None:
    world = World(
        disk={"/r/new/a.md": ("one", 1.0), "/r/b.md": ("two", 2.0)},
        indexed={"/r/old/a.md": info("/r/old/a.md"), "/r/b.md": info("/r/b.md", "two")},
        unlisted=[],
        excluded=set(),
        unreadable=set(),
        doubled=set(),
        has_ocr=True,
    )
    decided = world.plan()
    [move] = decided.moves
    assert (move.origin.source, str(move.file.path)) == ("/r/old/a.md", "/r/new/a.md")
    assert decided.read == [] and decided.skipped == 1
    assert [str(f.path) for f in decided.touched] == ["/r/b.md"]
    assert decided.delete == ["/r/old/a.md"]  # gone once the move commits (or read again)


def test_a_scan_without_ocr_keeps_what_ocr_read() -> None:
    world = World(
        disk={"/r/scan.pdf": ("one", 1.0), "/r/photo.png": ("two", 1.0)},
        indexed={
            "/r/scan.pdf": info("/r/scan.pdf", scheme=SCHEME_VERSION - 1, ocr_engine="rapidocr"),
            "/r/photo.png": info("/r/photo.png", "two", ocr_engine="rapidocr"),
        },
        unlisted=[],
        excluded={"/r/photo.png"},  # without OCR the scan does not list images
        unreadable=set(),
        doubled=set(),
        has_ocr=False,
    )
    decided = world.plan()
    assert decided.kept_unread == ["/r/scan.pdf"] and decided.kept_images == ["/r/photo.png"]
    assert decided.read == [] and decided.delete == []


def test_an_empty_root_deletes_nothing_and_is_reported() -> None:
    world = World(
        disk={},
        indexed={"/r/a.md": info("/r/a.md")},
        unlisted=[UnlistedFolder(Path(ROOT), "", is_root=True, empty=True)],
        excluded=set(),
        unreadable=set(),
        doubled=set(),
        has_ocr=True,
    )
    decided = world.plan()
    assert decided.delete == []
    [(folder, under)] = decided.unlisted
    assert folder.path == Path(ROOT) and under == ["/r/a.md"]
