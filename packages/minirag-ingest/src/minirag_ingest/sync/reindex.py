"""Reading files again in a sync: convert, chunk, embed and store them, a batch of documents
per commit, remembering the files that fail to convert."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable
from concurrent import futures
from concurrent.futures import Future
from typing import TYPE_CHECKING

from minirag_index import IndexMismatchError, ModelLoadError, StoreUnavailableError
from minirag_index.errors import looks_like_store_error
from minirag_ingest.conversion.no_text import NoText
from minirag_ingest.conversion.pool import PoolStopped
from minirag_ingest.errors import ConversionError
from minirag_ingest.extras.ocr import OcrError
from minirag_ingest.sync.pass_state import describe
from minirag_ingest.sync.plan import Read

if TYPE_CHECKING:
    from minirag_ingest.conversion.reading import FileRead
    from minirag_ingest.document.pipeline import Prepared
    from minirag_ingest.sync.pass_state import SyncState

log = logging.getLogger(__name__)

BATCH_DOCS = 64  # documents whose chunks are embedded and stored together
BATCH_CHUNKS = 512  # ...or fewer documents once they hold this many chunks
# Fold new rows into the keyword indexes this often on a long sync. Rows not folded in yet are
# still found (LanceDB scans them), only more slowly; each refresh leaves memory behind, and
# every 2,000 files instead of 500 took a 10,000-file sync from 885 to 781 MiB peak and from 27
# to 18 s with the embedding replaced by random vectors (docs/benchmarks.md).
REFRESH_EVERY = 2000
STOP_POLL_SECONDS = 0.2  # how often a sync waiting on a conversion worker checks for a stop


class Reading:
    """The reading step of a sync pass, over its :class:`SyncState`. It holds the documents
    read and waiting to be embedded and stored together (the batch), and how many were stored
    since the keyword indexes were last refreshed."""

    def __init__(self, state: SyncState) -> None:
        self.state = state
        self.pipeline = state.pipeline
        self.index = state.index
        self.report = state.report
        self.failures = state.failures
        self.batch: list[tuple[Read, Prepared]] = []  # read, waiting to be embedded and stored
        self.batch_chunks = 0
        self.since_refresh = 0

    def read_again(self, work: list[Read]) -> None:
        """Convert, chunk, embed and store ``work``, a batch of documents per commit. With
        conversion workers, the next few files are handed to them while this thread chunks and
        embeds the current one.

        Stopping abandons the documents prepared since the last commit (nothing of them is
        written); an embedding model that cannot be loaded fails every file not stored yet."""
        ahead = getattr(self.pipeline, "read_ahead", 0)
        embedder = getattr(self.index, "embedder", None)
        if ahead and work and embedder is not None:
            embedder.prepare_files()  # before the conversion workers start (see there)
        reading: deque[tuple[Read, Future[FileRead] | None]] = deque()
        queued = iter(work)
        left = len(work)  # files not taken up yet
        try:
            while True:
                while len(reading) <= ahead and (item := next(queued, None)) is not None:
                    remembered = self.remembered_failure(item)
                    if remembered is not None:  # failed last time, nothing changed: not read
                        left -= 1
                        self.report.fail(item.file.path, remembered)
                        self.state.advance(1)
                        continue
                    started = (
                        self.pipeline.start_reading(item.file.path, item.content_hash)
                        if ahead
                        else None
                    )
                    reading.append((item, started))
                if not reading:
                    break
                self.state.check_stop()
                left -= 1
                if not self.read_one(*reading.popleft(), left):
                    return
            if self.batch:
                batch, self.batch, self.batch_chunks = self.batch, [], 0
                self.store_or_fail(batch, 0)
        finally:
            for _, started in reading:  # the sync stopped early: nobody wants these now
                if started is not None:
                    started.cancel()

    def read_one(self, item: Read, started: Future[FileRead] | None, left: int) -> bool:
        """Prepare one file and store the batch once it is full; False when the embedding
        model failed (``left`` is how many files come after this one)."""
        more: dict[str, Future[FileRead]] = {}
        if started is not None:
            self.wait_for(started)
            more["reading"] = started
        try:
            prepared = self.pipeline.prepare_file(
                item.file.path, content_hash=item.content_hash, labels=self.state.labels, **more
            )
        except ConversionError as exc:
            if isinstance(exc, PoolStopped):
                self.state.check_stop()  # the workers were stopped because the sync is stopping
            self.report.fail(item.file.path, exc.reason)
            self.remember_failure(item, exc)
            if isinstance(exc, NoText):
                self.drop_stale_entry(item)
            self.state.advance(1)
            return True
        except IndexMismatchError:
            raise
        except ModelLoadError as exc:
            self.model_failed(exc, len(self.batch) + left + 1)
            return False
        except Exception as exc:
            self.report.fail(item.file.path, describe(exc))
            self.state.advance(1)
            return True
        self.failures.forget(item.file.source)
        self.batch.append((item, prepared))
        self.batch_chunks += len(prepared.chunks)
        if len(self.batch) >= BATCH_DOCS or self.batch_chunks >= BATCH_CHUNKS:
            batch, self.batch, self.batch_chunks = self.batch, [], 0
            return self.store_or_fail(batch, left)
        return True

    def wait_for(self, reading: Future[FileRead]) -> None:
        """Wait for a worker's conversion, stopping as soon as the sync is asked to (the
        worker finishes that one file on its own, within its time limit)."""
        while not reading.done():
            self.state.check_stop()
            futures.wait([reading], timeout=STOP_POLL_SECONDS)

    def store_or_fail(self, batch: list[tuple[Read, Prepared]], left: int) -> bool:
        """Store ``batch``; False when the model failed (the batch and ``left`` more files are
        then counted as failed)."""
        self.state.check_stop()
        try:
            self.store(batch)
        except ModelLoadError as exc:
            self.model_failed(exc, len(batch) + left)
            return False
        return True

    def model_failed(self, exc: ModelLoadError, files: int) -> None:
        """The embedding model cannot be loaded: the ``files`` not stored yet all fail, with one
        entry naming the model rather than the same reason once per file."""
        embedder = getattr(self.index, "embedder", None)
        named = getattr(embedder, "local_folder", None) or getattr(embedder, "model_name", "")
        model = str(named or "the embedding model")
        report = self.report
        report.error = str(exc)
        report.failed += files
        noun = "file" if files == 1 else "files"
        report.errors.append({"path": model, "reason": f"{files} {noun} not read: {exc}"})
        self.state.advance(files)

    def remembered_failure(self, item: Read) -> str | None:
        """Why this file failed to convert last time, if it is still the same file."""
        from minirag_ingest.document.pipeline import file_hash

        def digest() -> str | None:
            if item.content_hash:
                return item.content_hash
            try:
                return file_hash(item.file.real)
            except OSError:
                return None

        file = item.file
        return self.failures.recall(file.source, file.size, file.mtime, digest)

    def drop_stale_entry(self, item: Read) -> None:
        """A file that converts to no text keeps no entry from an earlier reading (such as a
        title-only document from before that was a failure); one that fails otherwise keeps
        what was indexed, since the next attempt may read it again."""
        source = item.file.source
        try:
            if self.index.delete_source(source):
                self.state.wrote = True
        except Exception as exc:  # it is reported as failed either way
            log.warning("could not remove the earlier entry of %s: %s", source, exc)

    def remember_failure(self, item: Read, exc: ConversionError) -> None:
        """Remember a conversion failure. One from not being able to read the file, or from
        the OCR engine itself (a model download that failed), is not: it may pass."""
        from minirag_ingest.document.pipeline import file_hash

        if isinstance(exc.__cause__, (OSError, OcrError)):
            return
        try:
            digest = item.content_hash or file_hash(item.file.real)
        except OSError:
            return
        file = item.file
        self.failures.remember(file.source, file.size, file.mtime, digest, exc.reason)

    def count_pictures(self, stored: Iterable[Prepared]) -> None:
        """Add the embedded pictures of documents just stored to the report."""
        for prepared in stored:
            if prepared.pictures is not None:
                self.report.pictures += prepared.pictures

    def store(self, batch: list[tuple[Read, Prepared]]) -> None:
        for item, _ in batch:
            if item.repair:
                self.index.delete_source(item.file.source)
        for item, prepared in batch:
            self.state.label_problems(item.file.source, prepared.label_problems)

        def embedded(done: int, total: int) -> None:
            self.report.embedding = (done, total)
            self.state.tell()

        try:
            stored = len(self.pipeline.store([prepared for _, prepared in batch], embedded))
            self.count_pictures(prepared for _, prepared in batch)
        except (IndexMismatchError, ModelLoadError, StoreUnavailableError):
            raise
        except Exception as exc:
            if looks_like_store_error(exc):  # the store went away: stop, never file by file
                raise StoreUnavailableError(self.index.location, exc) from exc
            log.warning("storing a batch failed (%s); storing its documents one by one", exc)
            stored = 0
            for item, prepared in batch:
                try:
                    self.pipeline.store([prepared])
                    stored += 1
                    self.count_pictures([prepared])
                except (IndexMismatchError, ModelLoadError):
                    raise
                except Exception as single:
                    self.report.fail(item.file.path, f"could not store it: {describe(single)}")
        finally:
            self.report.embedding = None
        self.report.ingested += stored
        self.state.wrote = True
        self.state.advance(len(batch))
        self.since_refresh += stored
        if self.since_refresh >= REFRESH_EVERY:
            self.pipeline.refresh()
            self.since_refresh = 0
