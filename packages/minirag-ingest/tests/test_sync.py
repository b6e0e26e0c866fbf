"""Sync against a real pipeline and the test model: what it reads, moves, keeps and deletes."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from minirag_ingest.chunking import SCHEME_VERSION
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.sync import reindex as sync_reading
from minirag_ingest.sync import run as sync_module
from minirag_ingest.sync.lock import SyncLocked
from minirag_ingest.sync.run import SyncReport, sync


def write_notes(folder: Path, count: int, prefix: str = "note") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"{prefix}-{i:02d}.md"
        path.write_text(
            f"# {prefix.title()} number {i}\n\nThe warehouse on shelf {i} holds {i * 7} crates "
            f"of item {prefix}-{i}.\n\n## Details\n\nCounted by team {i % 3} every week.\n",
            encoding="utf-8",
        )
        paths.append(path)
    return paths


@pytest.fixture
def embed_calls(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every embed_passages call on the pipeline's embedder, as its number of texts."""
    calls: list[int] = []
    embedder = pipeline.index.embedder
    original = embedder.embed_passages

    def counting(texts):
        calls.append(len(texts))
        return original(texts)

    monkeypatch.setattr(embedder, "embed_passages", counting)
    return calls


@pytest.fixture
def hash_calls(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    from minirag_ingest.document import pipeline as pipeline_module

    calls: list[Path] = []
    original = pipeline_module.file_hash

    def counting(path):
        calls.append(Path(path))
        return original(path)

    monkeypatch.setattr(pipeline_module, "file_hash", counting)
    return calls


def counts(report: SyncReport, *names: str) -> dict[str, int]:
    return {name: getattr(report, name) for name in names}


def indexed(pipeline: Pipeline) -> set[str]:
    return set(pipeline.index.sources())


# -- new, unchanged, changed, deleted ------------------------------------------------------------


def test_new_then_unchanged_then_changed_then_deleted(
    pipeline, docs, embed_calls, hash_calls
) -> None:
    paths = write_notes(docs, 4)
    first = sync(pipeline)
    assert counts(first, "scanned", "ingested", "skipped", "failed") == {
        "scanned": 4,
        "ingested": 4,
        "skipped": 0,
        "failed": 0,
    }
    assert first.errors == []
    assert indexed(pipeline) == {str(p) for p in paths}
    assert len(embed_calls) == 1  # four documents embedded in one batch

    embed_calls.clear()
    hash_calls.clear()
    again = sync(pipeline)
    assert counts(again, "scanned", "ingested", "skipped") == {
        "scanned": 4,
        "ingested": 0,
        "skipped": 4,
    }
    assert embed_calls == [] and hash_calls == []  # size + mtime match: nothing read

    paths[1].write_text(paths[1].read_text() + "\nA new line about forklifts.\n")
    paths[2].unlink()
    changed = sync(pipeline)
    assert counts(changed, "ingested", "skipped", "deleted", "moved") == {
        "ingested": 1,
        "skipped": 2,
        "deleted": 1,
        "moved": 0,
    }
    assert str(paths[2]) not in indexed(pipeline)
    assert "forklifts" in pipeline.index.read_document(str(paths[1]))


def test_edit_with_restored_mtime_is_read_again(pipeline, docs) -> None:
    [path] = write_notes(docs, 1)
    sync(pipeline)
    before = os.stat(path)
    path.write_text(path.read_text().replace("crates", "pallets of crates"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    report = sync(pipeline)
    assert report.ingested == 1 and report.skipped == 0
    assert "pallets" in pipeline.index.read_document(str(path))


def test_touched_but_identical_file_is_skipped_and_remembered(
    pipeline, docs, embed_calls, hash_calls
) -> None:
    paths = write_notes(docs, 3)
    path = paths[0]
    sync(pipeline)
    chunks_before = pipeline.index.source_chunks(str(path))
    embed_calls.clear()
    os.utime(path, (1_700_000_000, 1_700_000_000))
    os.utime(paths[1], (1_600_000_000, 1_600_000_000))
    hash_calls.clear()
    report = sync(pipeline)
    assert counts(report, "ingested", "skipped") == {"ingested": 0, "skipped": 3}
    assert embed_calls == [] and len(hash_calls) == 2
    sources = pipeline.index.sources()
    assert sources[str(path)].mtime == 1_700_000_000
    assert sources[str(paths[1])].mtime == 1_600_000_000
    assert pipeline.index.source_chunks(str(path)) == chunks_before
    hits = pipeline.index.search("crates of item note-0").hits
    assert hits and hits[0].source == str(path)
    hash_calls.clear()
    sync(pipeline)
    assert hash_calls == []  # the new mtimes were stored: back on the fast path


# -- moves ---------------------------------------------------------------------------------------


def test_moving_a_folder_of_twenty_files_costs_no_embedding(pipeline, docs, embed_calls) -> None:
    write_notes(docs / "inbox", 20)
    write_notes(docs / "other", 2, prefix="other")
    assert sync(pipeline).ingested == 22
    before = {
        Path(s).name: (info.chunk_count, info.title, info.signature)
        for s, info in pipeline.index.sources().items()
    }
    embed_calls.clear()
    (docs / "archive").mkdir()
    shutil.move(docs / "inbox", docs / "archive" / "2026")

    report = sync(pipeline)
    assert counts(report, "moved", "ingested", "deleted", "skipped", "failed") == {
        "moved": 20,
        "ingested": 0,
        "deleted": 0,
        "skipped": 2,
        "failed": 0,
    }
    assert embed_calls == []
    sources = pipeline.index.sources()
    assert not any("/inbox/" in s for s in sources)
    moved = {s: i for s, i in sources.items() if "/archive/2026/" in s}
    assert len(moved) == 20
    for source, info in moved.items():
        assert (info.chunk_count, info.title, info.signature) == before[Path(source).name]
        rows = pipeline.index.source_chunks(source)
        assert [c.chunk_index for c in rows] == list(range(info.chunk_count))
    result = pipeline.index.search("crates of item note-07")
    hit = result.hits[0]
    assert "/archive/2026/" in hit.source
    assert result.parents.get(hit.parent_id)
    assert "holds 49 crates" in pipeline.index.read_document(str(docs / "archive/2026/note-07.md"))
    assert sync(pipeline).skipped == 22  # the moved files are on the fast path


def test_moves_fall_back_to_one_commit_each(pipeline, docs, embed_calls, monkeypatch) -> None:
    write_notes(docs / "inbox", 3)
    sync(pipeline)
    embed_calls.clear()
    shutil.move(docs / "inbox", docs / "outbox")

    def broken(self, batch):
        raise RuntimeError("simulated commit conflict")

    monkeypatch.setattr(sync_module._Sync, "commit_moves", broken)
    report = sync(pipeline)
    assert counts(report, "moved", "ingested", "deleted") == {
        "moved": 3,
        "ingested": 0,
        "deleted": 0,
    }
    assert embed_calls == []
    assert all("/outbox/" in s for s in indexed(pipeline))


def test_renamed_or_edited_on_the_way_is_read_again(pipeline, docs, embed_calls) -> None:
    a, b = write_notes(docs / "inbox", 2)
    sync(pipeline)
    embed_calls.clear()
    (docs / "done").mkdir()
    a.rename(docs / "done" / "renamed.md")
    b.rename(docs / "done" / b.name)
    (docs / "done" / b.name).write_text(b.name + " edited on the way\n")
    report = sync(pipeline)
    assert counts(report, "moved", "ingested", "deleted") == {
        "moved": 0,
        "ingested": 2,
        "deleted": 2,
    }
    assert indexed(pipeline) == {str(docs / "done" / "renamed.md"), str(docs / "done" / b.name)}


def test_sync_scoped_to_the_new_folder_ingests_and_leaves_the_old_entry(pipeline, docs) -> None:
    [path] = write_notes(docs / "old", 1)
    (docs / "new").mkdir()
    sync(pipeline)
    target = docs / "new" / path.name
    path.rename(target)
    scoped = sync(pipeline, docs / "new")
    assert counts(scoped, "moved", "ingested", "deleted") == {
        "moved": 0,
        "ingested": 1,
        "deleted": 0,
    }
    assert indexed(pipeline) == {str(path), str(target)}
    full = sync(pipeline)
    assert counts(full, "deleted", "skipped") == {"deleted": 1, "skipped": 1}
    assert indexed(pipeline) == {str(target)}


def test_a_copy_is_ingested_and_the_original_kept(pipeline, docs, embed_calls) -> None:
    [path] = write_notes(docs / "a", 1)
    sync(pipeline)
    (docs / "b").mkdir()
    shutil.copy2(path, docs / "b" / path.name)
    report = sync(pipeline)
    assert counts(report, "moved", "ingested", "skipped") == {
        "moved": 0,
        "ingested": 1,
        "skipped": 1,
    }


# -- exclusions, schemes, signatures -------------------------------------------------------------


def test_newly_ignored_files_are_removed_and_counted(pipeline, docs) -> None:
    write_notes(docs / "drafts", 2, prefix="draft")
    kept = write_notes(docs, 1)
    assert sync(pipeline).ingested == 3
    (docs / ".miniragignore").write_text("drafts/\n")
    report = sync(pipeline)
    assert counts(report, "deleted", "ignored", "skipped", "failed") == {
        "deleted": 2,
        "ignored": 1,  # the folder counts once
        "skipped": 1,
        "failed": 0,
    }
    assert indexed(pipeline) == {str(kept[0])}


def test_a_source_cut_by_an_older_scheme_is_read_again(pipeline, docs, embed_calls) -> None:
    paths = write_notes(docs, 2)
    sync(pipeline)
    pipeline.index.store.update_source_fields(str(paths[0]), {"scheme": SCHEME_VERSION - 1})
    assert pipeline.index.stale_chunk_count(SCHEME_VERSION) > 0
    embed_calls.clear()
    report = sync(pipeline)
    assert counts(report, "ingested", "skipped") == {"ingested": 1, "skipped": 1}
    assert pipeline.index.stale_chunk_count(SCHEME_VERSION) == 0
    assert embed_calls == []  # it came out in the same chunks: their vectors are reused


def test_stale_files_are_not_moved_but_read_again(pipeline, docs) -> None:
    [path] = write_notes(docs / "a", 1)
    sync(pipeline)
    pipeline.index.store.update_source_fields(str(path), {"scheme": SCHEME_VERSION - 1})
    (docs / "b").mkdir()
    path.rename(docs / "b" / path.name)
    report = sync(pipeline)
    assert counts(report, "moved", "ingested", "deleted") == {
        "moved": 0,
        "ingested": 1,
        "deleted": 1,
    }
    assert pipeline.index.stale_chunk_count(SCHEME_VERSION) == 0


def test_documents_without_signatures_are_signed_from_stored_text(
    pipeline, docs, embed_calls, hash_calls
) -> None:
    paths = write_notes(docs, 5)
    sync(pipeline)
    pipeline.ingest_data("notes://meeting", "Minutes of the meeting about crates.", "text")
    original = {s: i.signature for s, i in pipeline.index.sources().items()}
    assert all(original.values())
    for source in original:
        pipeline.index.store.update_source_fields(source, {"signature": None})
    assert all(i.signature is None for i in pipeline.index.sources().values())
    embed_calls.clear()
    hash_calls.clear()

    report = sync(pipeline)
    assert counts(report, "signed", "ingested", "skipped") == {
        "signed": 6,  # the five files and the data source
        "ingested": 0,
        "skipped": 5,
    }
    assert embed_calls == [] and hash_calls == []
    assert {s: i.signature for s, i in pipeline.index.sources().items()} == original
    assert sync(pipeline).signed == 0
    assert len(paths) == 5


def test_data_and_url_sources_are_never_deleted(pipeline, docs) -> None:
    write_notes(docs, 1)
    pipeline.ingest_data("notes://meeting", "Minutes of the meeting.", "text")
    report = sync(pipeline)
    assert report.deleted == 0 and "notes://meeting" in indexed(pipeline)


def test_an_indexed_image_without_the_ocr_extra_is_kept_as_unreadable(pipeline, docs) -> None:
    from minirag_index import ChunkInput, SourceDoc

    write_notes(docs, 1)
    image = docs / "scan.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    doc = SourceDoc(
        source=str(image), title="scan", content_hash="h", size=8, scheme=SCHEME_VERSION
    )
    pipeline.index.add_source(doc, [ChunkInput("Recognised text of the scan.")])
    report = sync(pipeline)
    assert counts(report, "unreadable", "deleted", "failed") == {
        "unreadable": 1,
        "deleted": 0,
        "failed": 0,
    }
    assert report.unreadable_files == [str(image)]
    assert str(image) in indexed(pipeline)
    (docs / ".miniragignore").write_text("*.png\n")
    report = sync(pipeline)
    assert counts(report, "unreadable", "deleted") == {"unreadable": 0, "deleted": 1}


def test_files_outside_the_scope_are_left_alone(pipeline, docs) -> None:
    a = write_notes(docs / "a", 1)[0]
    b = write_notes(docs / "b", 1, prefix="bee")[0]
    sync(pipeline)
    b.unlink()
    report = sync(pipeline, docs / "a")
    assert counts(report, "scanned", "deleted", "skipped") == {
        "scanned": 1,
        "deleted": 0,
        "skipped": 1,
    }
    assert indexed(pipeline) == {str(a), str(b)}


def test_scope_that_is_a_deleted_file_removes_it(pipeline, docs) -> None:
    a, b = write_notes(docs, 2)
    sync(pipeline)
    a.unlink()
    report = sync(pipeline, a)
    assert report.deleted == 1 and indexed(pipeline) == {str(b)}


# -- folders that cannot be listed ---------------------------------------------------------------


def refuse_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    original = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", str(folder))
        return original(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_unlistable_folder_keeps_what_is_indexed_under_it(pipeline, docs, monkeypatch) -> None:
    locked = write_notes(docs / "locked", 4)
    free = write_notes(docs / "free", 1, prefix="free")
    (docs / "empty-locked").mkdir()
    sync(pipeline)
    refuse_listing(monkeypatch, docs / "locked")
    refuse_listing(monkeypatch, docs / "empty-locked")
    free[0].unlink()
    report = sync(pipeline)
    assert counts(report, "deleted", "failed") == {"deleted": 1, "failed": 1}
    assert indexed(pipeline) == {str(p) for p in locked}
    [error] = report.errors
    assert error["path"] == str(docs / "locked")
    reason = error["reason"]
    assert "could not list folder" in reason and "permission denied" in reason
    assert "kept the 4 indexed files" in reason
    assert "locked/note-00.md, locked/note-01.md, locked/note-02.md and 1 more" in reason


def test_unlistable_scope_counts_as_failed_even_with_nothing_indexed(
    pipeline, docs, monkeypatch
) -> None:
    write_notes(docs, 1)
    (docs / "sub").mkdir()
    refuse_listing(monkeypatch, docs / "sub")
    report = sync(pipeline, docs / "sub")
    assert report.failed == 1 and report.errors[0]["path"] == str(docs / "sub")


def test_a_copy_behind_an_unlistable_folder_is_a_file_of_its_own(
    pipeline, docs, monkeypatch
) -> None:
    [path] = write_notes(docs / "locked", 1)
    sync(pipeline)
    (docs / "elsewhere").mkdir()
    shutil.copy2(path, docs / "elsewhere" / path.name)
    refuse_listing(monkeypatch, docs / "locked")
    report = sync(pipeline)
    assert counts(report, "moved", "ingested", "deleted") == {
        "moved": 0,
        "ingested": 1,
        "deleted": 0,
    }
    assert indexed(pipeline) == {str(path), str(docs / "elsewhere" / path.name)}


def test_an_empty_root_counts_as_failed_and_deletes_nothing(pipeline, docs) -> None:
    paths = write_notes(docs, 3)
    sync(pipeline)
    for path in paths:
        path.unlink()
    report = sync(pipeline)
    assert counts(report, "deleted", "failed", "scanned") == {
        "deleted": 0,
        "failed": 1,
        "scanned": 0,
    }
    [error] = report.errors
    assert error["path"] == str(docs) and "is an empty folder" in error["reason"]
    assert "kept the 3 indexed files" in error["reason"]
    assert indexed(pipeline) == {str(p) for p in paths}


def test_a_missing_root_counts_as_failed(make_pipeline, tmp_path) -> None:
    root = tmp_path / "gone"
    pipeline = make_pipeline(root)
    report = sync(pipeline)
    assert report.failed == 1 and "no such folder" in report.errors[0]["reason"]


def test_files_moved_out_of_an_emptied_root_are_followed(make_pipeline, tmp_path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    second.mkdir()
    [path] = write_notes(first, 1)
    pipeline = make_pipeline(first, second)
    sync(pipeline)
    path.rename(second / path.name)
    report = sync(pipeline)
    assert counts(report, "moved", "failed", "deleted", "ingested") == {
        "moved": 1,
        "failed": 1,  # the emptied root itself
        "deleted": 0,
        "ingested": 0,
    }
    assert indexed(pipeline) == {str(second / path.name)}


# -- failures ------------------------------------------------------------------------------------


def test_a_failed_file_does_not_stop_the_rest(pipeline, docs) -> None:
    good = write_notes(docs, 2)
    broken = docs / "broken.docx"
    broken.write_bytes(b"PK\x03\x04 this is not really a docx")
    report = sync(pipeline)
    assert counts(report, "ingested", "failed") == {"ingested": 2, "failed": 1}
    [error] = report.errors
    assert error["path"] == str(broken) and error["reason"]
    assert indexed(pipeline) == {str(p) for p in good}
    assert not report.ok


def test_a_source_stored_twice_is_stored_once_again(pipeline, docs) -> None:
    [path] = write_notes(docs, 1)
    sync(pipeline)
    table = pipeline.index.store.table()
    table.add(table.search().limit(None).to_arrow())  # what two racing writers can leave
    report = sync(pipeline)
    assert report.ingested == 1
    rows = pipeline.index.source_chunks(str(path))
    assert len(rows) == len({c.chunk_index for c in rows})


# -- the lock ------------------------------------------------------------------------------------

HOLD_LOCK = textwrap.dedent(
    """
    import sys, time
    from minirag_ingest.sync.lock import SyncLock
    lock = SyncLock(sys.argv[1]).acquire()
    print("locked", flush=True)
    time.sleep(60)
    """
)


def test_a_second_sync_fails_at_once_naming_the_first(pipeline, docs) -> None:
    write_notes(docs, 1)
    db_path = pipeline.index.store.db_path
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(db_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(SyncLocked, match=rf"another sync \(PID {holder.pid}\) has been"):
            sync(pipeline)
        assert indexed(pipeline) == set()
    finally:
        holder.kill()
        holder.wait()
    assert sync(pipeline).ingested == 1


# -- killed mid-sync -----------------------------------------------------------------------------

SYNC_SUBPROCESS = textwrap.dedent(
    """
    import sys
    from minirag_index import IndexSettings, MiniragIndex
    from minirag_ingest.sync import run as sync_module
    from minirag_ingest.sync import reindex as sync_reading
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.settings import load_settings

    model, cache, db, root = sys.argv[1:5]
    sync_reading.BATCH_DOCS = 2  # many commit points to land a kill between
    settings = IndexSettings(DB_PATH=db, MODEL_NAME=model, CACHE_DIR=cache)
    pipeline = Pipeline(MiniragIndex(settings), Roots([root]), load_settings())
    pipeline.index.embedder.dim  # load the model before the sync starts
    print("ready", flush=True)
    sync_module.sync(pipeline, progress=lambda done, total: print("progress", done, flush=True))
    print("done", flush=True)
    """
)


@pytest.mark.slow
def test_a_sync_killed_at_a_random_point_leaves_one_copy_of_each_source(
    pipeline, docs, embedder
) -> None:
    paths = write_notes(docs, 30)
    sync(pipeline)
    for path in paths:  # every source gets replaced by the killed sync
        path.write_text(path.read_text() + "\nRecounted after the audit.\n")
    write_notes(docs / "more", 4, prefix="extra")

    seed = random.randrange(1_000_000)
    rng = random.Random(seed)
    kill_after = rng.randint(1, 12)
    extra_delay = rng.uniform(0, 0.3)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SYNC_SUBPROCESS,
            embedder.model_name,
            str(embedder.cache_dir),
            str(pipeline.index.store.db_path),
            str(docs),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.stdout is not None
    progress_lines = 0
    finished = False
    for line in proc.stdout:
        if line.startswith("progress"):
            progress_lines += 1
            if progress_lines >= kill_after:
                break
        finished = finished or line.startswith("done")
    time.sleep(extra_delay)
    proc.kill()  # SIGKILL: no cleanup, no lock release but the kernel's
    proc.wait()
    assert not finished, seed  # the kill landed mid-sync

    report = sync(pipeline)
    assert report.failed == 0, (seed, report.errors)
    sources = pipeline.index.sources()
    assert set(sources) == {str(p) for p in paths} | {
        str(docs / "more" / f"extra-{i:02d}.md") for i in range(4)
    }, seed
    table = pipeline.index.store.column_table(["source", "chunk_index"])
    pairs = list(
        zip(
            table.column("source").to_pylist(), table.column("chunk_index").to_pylist(), strict=True
        )
    )
    rows = Counter(source for source, _ in pairs)
    distinct = Counter(source for source, _ in set(pairs))
    for source, info in sources.items():
        assert rows[source] == info.chunk_count == distinct[source], (seed, source)
        assert "Recounted" in (pipeline.index.read_document(source) or "") or "extra" in source
    assert sync(pipeline).skipped == 34


def test_progress_reports_done_and_total(pipeline, docs) -> None:
    write_notes(docs, 3)
    seen: list[tuple[int, int]] = []
    sync(pipeline, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (3, 3)
    assert all(done <= total for done, total in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_batches_hold_several_documents(pipeline, docs, embed_calls, monkeypatch) -> None:
    monkeypatch.setattr(sync_reading, "BATCH_DOCS", 4)
    write_notes(docs, 10)
    assert sync(pipeline).ingested == 10
    assert len(embed_calls) == 3  # 4 + 4 + 2 documents


def test_a_symlink_to_a_file_outside_the_roots_is_never_indexed(pipeline, docs, tmp_path):
    secret = tmp_path / "outside" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("PRIVATE KEY zanzibarquokka material\n", encoding="utf-8")
    (docs / "notes.md").symlink_to(secret)
    write_notes(docs, 2)
    report = sync(pipeline)
    assert report.failed == 0 and report.ingested == 2
    assert str(docs / "notes.md") not in pipeline.index.sources()
    assert pipeline.index.find_mentions(["zanzibarquokka"]).matched_documents == 0
    hits = pipeline.index.search("PRIVATE KEY zanzibarquokka").hits
    assert all("zanzibarquokka" not in hit.text for hit in hits)


def test_a_long_document_shows_its_embedding_progress(pipeline, docs, monkeypatch) -> None:
    from minirag_ingest.document import pipeline as pipeline_module

    monkeypatch.setattr(pipeline_module, "EMBED_SLICE", 16)  # a "long" document of ~40 chunks
    sentences = " ".join(f"Crate {n} sits on shelf {n % 40} of aisle {n % 7}." for n in range(300))
    (docs / "long.txt").write_text(sentences + "\n", encoding="utf-8")
    seen: list[tuple[int, int]] = []
    report = SyncReport()

    def progress(done: int, total: int) -> None:
        if report.embedding is not None:
            seen.append(report.embedding)

    sync(pipeline, progress=progress, report=report)
    assert report.ingested == 1 and report.embedding is None
    total = seen[-1][1]
    assert total > 16 and seen[0] == (16, total) and seen[-1] == (total, total)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
