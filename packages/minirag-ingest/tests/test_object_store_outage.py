"""An index on object storage whose store goes down (a moto S3 server on loopback behind a relay
the test cuts): an outage is an error naming the store, never an empty index; a sync during it
embeds nothing, and the next one after it embeds only what changed. And the sync lease judged
by the store's clock, not by the clock of whoever wrote it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex, StoreUnavailableError
from minirag_index.storage.location import IndexLocation
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.files.corpus import Corpus
from minirag_ingest.files.roots import Roots
from minirag_ingest.settings import load_settings
from minirag_ingest.sync.lease import LEASE_NAME, LeaseNote, SyncLease
from minirag_ingest.sync.lock import SyncLocked
from minirag_ingest.sync.object_store import SideObjects
from minirag_ingest.sync.run import sync
from testsupport.embedding import count_passages
from testsupport.object_store import SECRET, S3Server
from testsupport.relay import TcpRelay, tcp_relay

pytestmark = pytest.mark.s3

DOCS = {
    "turbines.md": "# Turbines\n\nThe turbine gearbox needs oil every 400 hours.\n",
    "harbour.md": "# Harbour\n\nContainer cranes unload the freight convoy at dawn.\n",
    "kiln.md": "# Kiln\n\nThe pilot kiln fires clay at 1200 degrees for eight hours.\n",
}


@pytest.fixture
def relay(s3_server: S3Server) -> Iterator[TcpRelay]:
    with tcp_relay(s3_server.endpoint) as relay:
        yield relay


@pytest.fixture
def index_uri(s3_server: S3Server) -> str:
    return s3_server.new_bucket() + "/team/index"


@pytest.fixture
def settings(
    s3_server: S3Server, relay: TcpRelay, index_uri: str, embedder: Embedder
) -> IndexSettings:
    """Settings that reach the store through the relay."""
    return IndexSettings(
        DB_PATH=index_uri,
        MODEL_NAME=embedder.model_name,
        CACHE_DIR=embedder.cache_dir,
        READ_CONSISTENCY_SECONDS=0,
        **{**s3_server.index_settings(), "AWS_ENDPOINT_URL": relay.endpoint},
    )


@pytest.fixture
def make_pipeline(
    settings: IndexSettings, embedder: Embedder, docs: Path
) -> Callable[[], Pipeline]:
    """A new writer process's pipeline: its own index, nothing of the store cached."""
    return lambda: Pipeline(
        MiniragIndex(settings, embedder=embedder), Roots([docs]), load_settings()
    )


def write_docs(root: Path, docs: dict[str, str]) -> None:
    for name, text in docs.items():
        (root / name).write_text(text, encoding="utf-8")


def assert_names_the_outage(error: BaseException, index_uri: str) -> None:
    message = str(error)
    assert f"the index store {index_uri} could not be reached" in message
    assert "\n" not in message and "Debug source" not in message  # one line, no Rust dump
    assert SECRET not in message


def test_a_reader_during_an_outage_gets_an_error_naming_the_store_never_empty(
    make_pipeline: Callable[[], Pipeline], docs: Path, relay: TcpRelay, index_uri: str
) -> None:
    write_docs(docs, DOCS)
    assert sync(make_pipeline()).ingested == 3
    relay.cut()
    reader = make_pipeline().index  # a process started during the outage
    for read in (
        lambda: reader.search("gearbox oil", top_k=3),
        lambda: reader.find_mentions(["kiln"]),
        lambda: reader.sources(),
        lambda: reader.store.exists(),
    ):
        with pytest.raises(StoreUnavailableError) as raised:
            read()
        assert_names_the_outage(raised.value, index_uri)
    report = Corpus(reader, Roots([docs])).report()  # status still answers, saying why
    assert report.store_error is not None
    assert_names_the_outage(Exception(report.store_error), index_uri)
    assert relay.cuts > 0
    relay.restore()
    assert len(make_pipeline().index.sources()) == 3  # it was never empty


def test_a_sync_during_an_outage_embeds_nothing_and_the_next_embeds_only_what_changed(
    make_pipeline: Callable[[], Pipeline],
    docs: Path,
    relay: TcpRelay,
    index_uri: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_docs(docs, DOCS)
    assert sync(make_pipeline()).ingested == 3
    (docs / "kiln.md").write_text(DOCS["kiln.md"] + "\nIt cools slowly overnight.\n", "utf-8")
    (docs / "lighthouse.md").write_text("# Lighthouse\n\nThe lamp turns at night.\n", "utf-8")

    relay.cut()
    during = make_pipeline()
    embedded = count_passages(during.index.embedder, monkeypatch)
    with pytest.raises(StoreUnavailableError) as refused:  # its lease cannot be taken
        sync(during)
    assert_names_the_outage(refused.value, index_uri)
    # A writer holding its lease when the store goes: its plan cannot read the index, and it
    # decides nothing from that failed read.
    relay.restore()
    writer = make_pipeline()
    lease = SyncLease(SideObjects(writer.index.location, writer.index.store.access.storage_options))
    lease.acquire()
    try:
        relay.cut()
        with pytest.raises(StoreUnavailableError) as failed:
            sync(writer, lock=lease)
        assert_names_the_outage(failed.value, index_uri)
    finally:
        relay.restore()
        lease.release()
    assert embedded == []

    after = make_pipeline()
    embedded = count_passages(after.index.embedder, monkeypatch)
    report = sync(after)
    assert (report.ingested, report.skipped, report.deleted, report.failed) == (2, 2, 0, 0)
    assert embedded  # the kiln's new text and the lighthouse, nothing of the unchanged two
    assert not [t for t in embedded if "turbine" in t.lower() or "harbour" in t.lower()]
    assert len(after.index.sources()) == 4


def test_a_lease_written_by_a_clock_an_hour_ahead_is_judged_by_the_stores_clock(
    settings: IndexSettings, index_uri: str, caplog: pytest.LogCaptureFixture
) -> None:
    objects = SideObjects(IndexLocation.parse(index_uri), settings.store_access().storage_options)
    ahead = time.time() + 3600
    # A holder whose clock runs an hour ahead started 2 minutes ago (by its clock) and renewed
    # its lease (term: 2 s) just now.
    note = LeaseNote("fast-clock-host", 4242, ahead - 120, ahead, 2.0)
    assert objects.create(LEASE_NAME, note.to_bytes()) is not None
    caplog.set_level(logging.WARNING, logger="minirag_ingest.sync.lease")

    with pytest.raises(SyncLocked) as refused:
        SyncLease(objects, 60.0).acquire()
    assert "(PID 4242 on fast-clock-host) has been running for 2 min" in str(refused.value)
    assert "1 h 0 min ahead of the store's" in caplog.text

    # Not renewed for its term by the store's clock: taken over, not blocked for an hour.
    time.sleep(3.5)  # Last-Modified has a resolution of one second
    taker = SyncLease(objects, 60.0).acquire()
    try:
        assert taker.held
    finally:
        taker.release()
    assert objects.read(LEASE_NAME) is None
