"""The summary beside a local table (summary.py): after a writer's refresh it answers the
metadata reads exactly as LanceDB does, and any commit after it, or a table built again, makes
the index read LanceDB instead."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta

from minirag_index import ChunkInput, IndexSettings, MiniragIndex, SourceDoc
from minirag_index.search.scope import scope_filter_sql
from minirag_index.storage import summary as summary_file


def add(index: MiniragIndex, source: str, n: int = 2, scheme: int = 3, **doc) -> None:
    chunks = [ChunkInput(text=f"{source} part {i} about rivers and bridges") for i in range(n)]
    index.add_source(SourceDoc(source=source, title=source, scheme=scheme, **doc), chunks)


def from_lancedb(index: MiniragIndex, scope: str | None = None) -> dict:
    infos = index.store.sources(scope_filter_sql(scope))
    return {s: i for s, i in infos.items() if i.source.startswith(scope or "")}


def test_after_a_refresh_the_summary_answers_what_lancedb_does(make_index, tmp_path):
    index = make_index()
    add(index, "/docs/a.md", 3, scheme=2, labels='{"kind": ["memo"]}', doc_date="2024-05-01")
    add(index, "/docs/sub/b.md", 2)
    index.set_signatures({"/docs/a.md": b"\x00\x01signature"})
    index.refresh()
    assert (tmp_path / "db" / summary_file.FILE_NAME).is_file()

    fresh = make_index()  # another process's view: nothing read yet
    assert fresh.summary() is not None
    assert fresh.sources() == from_lancedb(index)
    assert fresh.sources("/docs/sub") == from_lancedb(index, "/docs/sub/")
    assert fresh.sources()["/docs/a.md"].signature == b"\x00\x01signature"
    assert fresh.stale_chunk_count(3) == index.store.count_rows("scheme < 3") == 3
    assert fresh.is_empty() is False
    assert fresh.recorded_model() == index.store.recorded_model()
    assert fresh.model_problem() is None
    assert fresh.version() == index.store.version()  # the version status reports


def test_the_reported_version_follows_every_commit(make_index):
    index = make_index()
    add(index, "/docs/a.md")
    index.refresh()
    first = make_index().version()
    assert first == index.store.version()
    add(index, "/docs/b.md")  # a commit the summary does not describe: LanceDB answers
    fresh = make_index()
    assert fresh.summary() is None and fresh.version() == index.store.version() > first
    index.refresh()
    assert make_index().version() == index.store.version()


def test_a_summary_from_an_older_table_version_is_ignored(make_index):
    index = make_index()
    add(index, "/docs/a.md")
    index.refresh()
    add(index, "/docs/b.md")  # committed, no refresh: the summary is one version behind

    fresh = make_index()
    assert fresh.summary() is None
    assert set(fresh.sources()) == {"/docs/a.md", "/docs/b.md"}

    index.delete_source("/docs/a.md")
    index.refresh()  # the writer's refresh brings it up to date
    assert set(make_index().summary().sources) == {"/docs/b.md"}


def test_a_table_built_again_does_not_take_the_old_summary(make_index, tmp_path):
    db = tmp_path / "db"
    index = make_index()
    add(index, "/docs/old.md")
    index.refresh()
    kept = tmp_path / "old-summary.json"
    shutil.copy(db / summary_file.FILE_NAME, kept)

    shutil.rmtree(db)  # the user deletes the index and builds it again, the same way
    again = make_index()
    add(again, "/docs/new.md")
    again.refresh()
    shutil.copy(kept, db / summary_file.FILE_NAME)  # the old summary, same version number

    assert set(make_index().sources()) == {"/docs/new.md"}


def test_a_broken_summary_file_is_ignored(make_index, tmp_path):
    index = make_index()
    add(index, "/docs/a.md")
    index.refresh()
    (tmp_path / "db" / summary_file.FILE_NAME).write_text("{not json", encoding="utf-8")
    fresh = make_index()
    assert fresh.summary() is None
    assert set(fresh.sources()) == {"/docs/a.md"}


def test_a_model_mismatch_is_reported_from_the_summary_too(make_index, model_dir, tmp_path):
    index = make_index()
    add(index, "/docs/a.md")
    index.refresh()
    other = tmp_path / "other-model"  # the test model under another id
    shutil.copytree(model_dir, other)
    (other / "minirag-model.json").write_text(json.dumps({"id": "another"}), encoding="utf-8")
    settings = IndexSettings(DB_PATH=tmp_path / "db", MODEL_NAME=str(other), CACHE_DIR=tmp_path)
    fresh = MiniragIndex(settings)
    assert fresh.summary() is not None
    lancedb_says = fresh.store.model_problem(fresh.embedder.spec)
    assert lancedb_says and "another" in lancedb_says
    assert fresh.model_problem() == lancedb_says


def test_only_a_local_folder_has_a_summary():
    assert summary_file.local_folder("s3://bucket/index") is None
    assert summary_file.version_key("s3://bucket/index") is None
    assert summary_file.read_current("s3://bucket/index") is None


# The one place the index reads LanceDB's files rather than its API: the summary's key lists
# the manifests in <DB_PATH>/chunks.lance/_versions (the Lance table format's layout, both of its
# manifest naming schemes), because status and list_files must answer without importing
# LanceDB (about 3 s of CPU). The layout is pinned with LanceDB's minor version
# (lancedb>=0.40,<0.41 in packages/minirag-index/pyproject.toml); raising that pin means this
# test must still pass.
PINNED_LANCEDB = "0.40."


def test_the_summary_key_reads_the_version_lancedb_reports(make_index, monkeypatch):
    from importlib.metadata import version

    import minirag_index.storage.store as store_module

    assert version("lancedb").startswith(PINNED_LANCEDB), (
        "minirag_index.storage.summary.version_key reads LanceDB's _versions folder; check "
        "that layout against this LanceDB before moving the pin"
    )
    index = make_index()
    for n in range(3):
        add(index, f"/docs/{n}.md")
        table = index.store.table()
        key = summary_file.version_key(index.location)
        assert key is not None
        newest = max(v["version"] for v in table.list_versions())  # LanceDB's documented API
        assert summary_file.manifest_version(key[0]) == table.version == newest
    monkeypatch.setattr(store_module, "VERSION_RETENTION", timedelta(0))
    index.store.optimize()  # compaction commits, and every older manifest is removed
    table = index.store.table()
    key = summary_file.version_key(index.location)
    assert key is not None and summary_file.manifest_version(key[0]) == table.version
    assert max(v["version"] for v in table.list_versions()) == table.version
