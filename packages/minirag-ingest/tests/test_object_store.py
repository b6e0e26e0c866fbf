"""An index on object storage (DB_PATH=s3://…) against a real S3 server on loopback (moto):
everything a folder index does, the sync lease in place of the kernel lock, several writers,
and a reader that catches up with the writer within its read-consistency interval."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex
from minirag_index.search.filters import decode_labels
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.files.roots import Roots
from minirag_ingest.labels.taxonomy import TaxonomyLoader
from minirag_ingest.settings import load_settings
from minirag_ingest.sync.lease import LEASE_NAME
from minirag_ingest.sync.lock import SyncLocked
from minirag_ingest.sync.run import sync
from testsupport.embedding import count_passages
from testsupport.object_store import SECRET, S3Server

pytestmark = pytest.mark.s3

DOCS = {
    "turbines.md": "# Turbine maintenance\n\nThe turbine gearbox needs oil every 400 hours. "
    "Bearings are checked for wear and the rotor blades for cracks.\n",
    "harbour.md": "# Harbour logistics\n\nContainer cranes unload the freight convoy at "
    "dawn; the harbour master logs every crate in the ledger.\n",
    "pilots/kiln.md": "# Kiln pilot\n\nThe pilot kiln fires clay at 1200 degrees for eight "
    "hours, then cools slowly to avoid cracks.\n",
}
TAXONOMY = """
[facets.project]
default = "main"
values.main = { description = "The main product." }
values.pilots = { description = "Pilot projects.", paths = ["pilots"] }
"""


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from minirag_index.storage.location import IndexLocation
    from minirag_ingest.sync.object_store import SideObjects

    monkeypatch.setitem(sys.modules, "obstore", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r"minirag-ingest\[s3\]"):
        SideObjects(IndexLocation.parse("s3://bucket/index"), {})


def write_docs(root: Path, docs: dict[str, str]) -> None:
    for name, text in docs.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def index_uri(s3_server: S3Server) -> str:
    return s3_server.new_bucket() + "/team/index"


@pytest.fixture
def make_s3_pipeline(
    s3_server: S3Server, index_uri: str, embedder: Embedder
) -> Callable[..., Pipeline]:
    def make(root: Path, consistency: float = 0.5, **ingest: object) -> Pipeline:
        settings = IndexSettings(
            DB_PATH=index_uri,
            MODEL_NAME=embedder.model_name,
            CACHE_DIR=embedder.cache_dir,
            READ_CONSISTENCY_SECONDS=consistency,
            **s3_server.index_settings(),
        )
        index = MiniragIndex(settings, embedder=embedder)
        return Pipeline(index, Roots([root]), load_settings(**ingest))

    return make


def subprocess_env(s3_server: S3Server, model_dir: Path, cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        **s3_server.env(),
        "MODEL_NAME": str(model_dir),
        "CACHE_DIR": str(cache),
        "READ_CONSISTENCY_SECONDS": "0.5",
    }


def test_sync_into_s3_then_search_find_look_alikes_and_labels(
    make_s3_pipeline, docs: Path, s3_server: S3Server, index_uri: str
) -> None:
    write_docs(docs, DOCS)
    (docs / "harbour copy.md").write_text(DOCS["harbour.md"], encoding="utf-8")
    taxonomy = docs / ".minirag" / "classify.toml"
    taxonomy.parent.mkdir()
    taxonomy.write_text(TAXONOMY, encoding="utf-8")
    pipeline = make_s3_pipeline(docs)
    pipeline.taxonomy = TaxonomyLoader.for_root(docs)

    report = sync(pipeline)
    assert (report.ingested, report.failed, report.errors) == (4, 0, [])
    keys = s3_server.keys(index_uri)
    assert any(key.startswith("team/index/chunks.lance/") for key in keys)
    assert "team/index/" + LEASE_NAME not in keys  # released when the sync ended

    index = pipeline.index
    hits = index.search("how often does the gearbox need oil", top_k=3)
    assert hits.sources[0].source == str(docs / "turbines.md")
    mentions = index.find_mentions(["cracks"])
    assert {d.source for d in mentions.documents} == {
        str(docs / "turbines.md"),
        str(docs / "pilots/kiln.md"),
    }
    alike = index.look_alikes(str(docs / "harbour.md"))
    assert [a.source for a in alike] == [str(docs / "harbour copy.md")]
    stored = decode_labels(index.sources()[str(docs / "pilots/kiln.md")].labels)
    assert stored is not None and stored.labels["project"].value == "pilots"

    again = sync(pipeline)  # nothing changed: nothing is read or written again
    assert (again.ingested, again.skipped) == (0, 4)


def test_a_move_on_s3_costs_no_embedding(
    make_s3_pipeline, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_docs(docs, DOCS)
    pipeline = make_s3_pipeline(docs)
    assert sync(pipeline).ingested == 3
    embedded = count_passages(pipeline.index.embedder, monkeypatch)
    (docs / "archive").mkdir()
    (docs / "harbour.md").rename(docs / "archive" / "harbour.md")

    report = sync(pipeline)
    assert (report.moved, report.ingested, embedded) == (1, 0, [])
    found = pipeline.index.search("container cranes unload freight", top_k=1)
    assert found.sources[0].source == str(docs / "archive" / "harbour.md")


HOLD_LEASE = textwrap.dedent(
    """
    import sys, time
    from minirag_index import MiniragIndex
    from minirag_index.settings import load_index_settings
    from minirag_ingest.sync.lock import sync_lock_for
    index = MiniragIndex(load_index_settings(DB_PATH=sys.argv[1]))
    lease = sync_lock_for(index, float(sys.argv[2])).acquire()
    print("held", flush=True)
    time.sleep(120)
    """
)


def hold_lease(uri: str, seconds: float, env: dict[str, str]) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LEASE, uri, str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_sync_is_refused_by_the_lease_naming_host_pid_and_age(
    make_s3_pipeline, docs: Path, s3_server: S3Server, index_uri: str, model_dir, tmp_path
) -> None:
    write_docs(docs, DOCS)
    holder = hold_lease(index_uri, 60, subprocess_env(s3_server, model_dir, tmp_path / "c"))
    try:
        with pytest.raises(SyncLocked) as refused:
            sync(make_s3_pipeline(docs))
        message = str(refused.value)
        assert f"PID {holder.pid} on {socket.gethostname()}" in message
        assert "has been running for" in message and index_uri in message
        assert SECRET not in message
    finally:
        holder.terminate()
        holder.wait()


@pytest.mark.slow
def test_a_killed_writers_lease_expires_and_the_next_sync_completes(
    make_s3_pipeline, docs: Path, s3_server: S3Server, index_uri: str, model_dir, tmp_path
) -> None:
    write_docs(docs, DOCS)
    term = 2.0
    holder = hold_lease(index_uri, term, subprocess_env(s3_server, model_dir, tmp_path / "c"))
    time.sleep(term)  # the holder renews it meanwhile: still held
    pipeline = make_s3_pipeline(docs, sync_lease_seconds=term)
    with pytest.raises(SyncLocked):
        sync(pipeline)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    with pytest.raises(SyncLocked):  # nobody released it: it lasts out its term
        sync(pipeline)

    report = None
    deadline = time.monotonic() + 30 * term
    while report is None and time.monotonic() < deadline:
        try:
            report = sync(pipeline)
        except SyncLocked:
            time.sleep(term / 4)
    assert report is not None, "the dead writer's lease never expired"
    assert (report.ingested, report.failed) == (3, 0)


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from minirag_index import MiniragIndex
    from minirag_index.settings import load_index_settings
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.settings import load_settings
    root = Path(sys.argv[2])
    pipeline = Pipeline(
        MiniragIndex(load_index_settings(DB_PATH=sys.argv[1])), Roots([root]), load_settings()
    )
    print("ready", flush=True)
    sys.stdin.readline()  # both writers start together
    total = 0
    for name in sys.argv[3:]:
        total += pipeline.ingest_file(root / name).chunks
    print(total, flush=True)
    """
)


@pytest.mark.slow
def test_two_concurrent_ingest_writers_lose_no_rows(
    docs: Path, s3_server: S3Server, index_uri: str, model_dir, tmp_path, make_s3_pipeline
) -> None:
    write_docs(docs, {"seed.md": DOCS["turbines.md"]})
    index = make_s3_pipeline(docs).index
    assert sync(make_s3_pipeline(docs)).ingested == 1  # the team's index exists already
    seeded = index.store.count_rows()
    files = {
        f"part-{n:02d}.md": f"# Report {n}\n\nSection {n} of the shared survey: gauge {n} "
        f"reads {n * 7} units at the relay station number {n}.\n"
        for n in range(6)
    }
    write_docs(docs, files)
    names = sorted(files)
    env = subprocess_env(s3_server, model_dir, tmp_path / "cache")
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, index_uri, str(docs), *names[start::2]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for start in (0, 1)
    ]
    for writer in writers:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready"
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    outputs = [writer.communicate(timeout=300) for writer in writers]
    assert [w.returncode for w in writers] == [0, 0], outputs
    written = sum(int(out.strip().splitlines()[-1]) for out, _ in outputs)

    index = make_s3_pipeline(docs).index
    assert sorted(index.sources()) == sorted(str(docs / name) for name in [*names, "seed.md"])
    assert index.store.count_rows() == seeded + written


def test_a_reader_sees_the_writers_new_document_within_its_interval(
    make_s3_pipeline, docs: Path, s3_server: S3Server, index_uri: str, embedder: Embedder
) -> None:
    write_docs(docs, DOCS)
    writer = make_s3_pipeline(docs)
    sync(writer)
    interval = 1.0
    reader = MiniragIndex(
        IndexSettings(
            DB_PATH=index_uri,
            MODEL_NAME=embedder.model_name,
            CACHE_DIR=embedder.cache_dir,
            READ_CONSISTENCY_SECONDS=interval,
            **s3_server.index_settings(),
        ),
        embedder=embedder,
    )
    question = "what colour is the lighthouse lamp"
    assert str(docs / "lighthouse.md") not in {s.source for s in reader.search(question).sources}

    (docs / "lighthouse.md").write_text(
        "# Lighthouse\n\nThe lighthouse lamp is painted red and turns every ten seconds.\n",
        encoding="utf-8",
    )
    assert sync(writer).ingested == 1
    time.sleep(interval * 1.5)  # past the interval the reader's next search looks again
    found = reader.search(question, top_k=1)
    assert found.sources[0].source == str(docs / "lighthouse.md")
    assert reader.store.version() == writer.index.store.version()


def test_of_two_syncs_taking_over_one_expired_lease_only_one_wins(
    s3_server: S3Server, index_uri: str
) -> None:
    import threading

    from minirag_index.storage.location import IndexLocation
    from minirag_ingest.sync.lease import LeaseNote, SyncLease
    from minirag_ingest.sync.object_store import SideObjects

    options = IndexSettings(DB_PATH=index_uri, **s3_server.index_settings()).store_access()
    objects = SideObjects(IndexLocation.parse(index_uri), options.storage_options)
    dead = LeaseNote("gone-host", 4242, time.time() - 600, time.time() - 300, 1.0)
    dead_etag = objects.create(LEASE_NAME, dead.to_bytes())
    assert dead_etag is not None
    time.sleep(2.5)  # past its term by the store's clock (Last-Modified: to the second)
    takers = [SyncLease(objects, 60.0) for _ in range(2)]
    outcomes: list[object] = [None, None]
    ready = threading.Barrier(2)

    def take(n: int) -> None:
        ready.wait()
        try:
            outcomes[n] = takers[n].acquire()
        except SyncLocked as exc:
            outcomes[n] = exc

    threads = [threading.Thread(target=take, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        won = [o for o in outcomes if isinstance(o, SyncLease)]
        refused = [o for o in outcomes if isinstance(o, SyncLocked)]
        assert (len(won), len(refused)) == (1, 1), outcomes
        assert refused[0].pid == os.getpid()  # refused by the winner, not by the dead holder
        # What decides it: a takeover written against the dead lease's ETag is refused now.
        assert objects.replace(LEASE_NAME, dead.to_bytes(), dead_etag) is None
    finally:
        for taker in takers:
            taker.release()
    assert objects.read(LEASE_NAME) is None  # the winner's release removed it
