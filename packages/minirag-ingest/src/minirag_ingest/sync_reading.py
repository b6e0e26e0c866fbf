"""Reading files again in a sync: convert, chunk, embed and store them, a batch of documents
per commit, remembering the files that fail to convert."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from minirag_index import IndexMismatchError, ModelLoadError
from minirag_ingest.errors import ConversionError
from minirag_ingest.no_text import NoText
from minirag_ingest.ocr import OcrError
from minirag_ingest.sync_pass import SyncPass, describe
from minirag_ingest.sync_plan import Read

if TYPE_CHECKING:
    from minirag_ingest.pipeline import Prepared

log = logging.getLogger(__name__)

BATCH_DOCS = 64  # documents whose chunks are embedded and stored together
BATCH_CHUNKS = 512  # ...or fewer documents once they hold this many chunks
# Fold new rows into the keyword indexes this often on a long sync. Rows not folded in yet are
# still found (LanceDB scans them), only more slowly; each refresh leaves memory behind, and
# every 2,000 files instead of 500 took a 10,000-file sync from 885 to 781 MiB peak and from 27
# to 18 s with the embedding replaced by random vectors (docs/benchmarks.md).
REFRESH_EVERY = 2000


class Reading(SyncPass):
    """The reading step of a sync pass."""

    def read_again(self, work: list[Read]) -> None:
        """Convert, chunk, embed and store ``work``, a batch of documents per commit.

        Stopping abandons the documents prepared since the last commit (nothing of them is
        written); an embedding model that cannot be loaded fails every file not stored yet."""
        batch: list[tuple[Read, Prepared]] = []
        chunks = 0
        for position, item in enumerate(work):
            self.check_stop()
            remembered = self.remembered_failure(item)
            if remembered is not None:  # failed last time and nothing changed: not read again
                self.report.fail(item.file.path, remembered)
                self.advance(1)
                continue
            try:
                prepared = self.pipeline.prepare_file(
                    item.file.path, content_hash=item.content_hash, labels=self.labels
                )
            except ConversionError as exc:
                self.report.fail(item.file.path, exc.reason)
                self.remember_failure(item, exc)
                if isinstance(exc, NoText):
                    self.drop_stale_entry(item)
                self.advance(1)
                continue
            except IndexMismatchError:
                raise
            except ModelLoadError as exc:
                self.model_failed(exc, len(batch) + len(work) - position)
                return
            except Exception as exc:
                self.report.fail(item.file.path, describe(exc))
                self.advance(1)
                continue
            self.failures.forget(str(item.file.path))
            batch.append((item, prepared))
            chunks += len(prepared.chunks)
            if len(batch) >= BATCH_DOCS or chunks >= BATCH_CHUNKS:
                if not self.store_or_fail(batch, len(work) - position - 1):
                    return
                batch, chunks = [], 0
        if batch:
            self.store_or_fail(batch, 0)

    def store_or_fail(self, batch: list[tuple[Read, Prepared]], left: int) -> bool:
        """Store ``batch``; False when the model failed (the batch and ``left`` more files are
        then counted as failed)."""
        self.check_stop()
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
        self.advance(files)

    def remembered_failure(self, item: Read) -> str | None:
        """Why this file failed to convert last time, if it is still the same file."""
        from minirag_ingest.pipeline import file_hash

        def digest() -> str | None:
            if item.content_hash:
                return item.content_hash
            try:
                return file_hash(item.file.real)
            except OSError:
                return None

        file = item.file
        return self.failures.recall(str(file.path), file.size, file.mtime, digest)

    def drop_stale_entry(self, item: Read) -> None:
        """A file that converts to no text keeps no entry from an earlier reading (such as a
        title-only document from before that was a failure); one that fails otherwise keeps
        what was indexed, since the next attempt may read it again."""
        source = str(item.file.path)
        try:
            if self.index.delete_source(source):
                self.wrote = True
        except Exception as exc:  # it is reported as failed either way
            log.warning("could not remove the earlier entry of %s: %s", source, exc)

    def remember_failure(self, item: Read, exc: ConversionError) -> None:
        """Remember a conversion failure. One from not being able to read the file, or from
        the OCR engine itself (a model download that failed), is not: it may pass."""
        from minirag_ingest.pipeline import file_hash

        if isinstance(exc.__cause__, (OSError, OcrError)):
            return
        try:
            digest = item.content_hash or file_hash(item.file.real)
        except OSError:
            return
        file = item.file
        self.failures.remember(str(file.path), file.size, file.mtime, digest, exc.reason)

    def store(self, batch: list[tuple[Read, Prepared]]) -> None:
        for item, _ in batch:
            if item.repair:
                self.index.delete_source(str(item.file.path))
        for item, prepared in batch:
            self.label_problems(str(item.file.path), prepared.label_problems)
        try:
            stored = len(self.pipeline.store([prepared for _, prepared in batch]))
        except (IndexMismatchError, ModelLoadError):
            raise
        except Exception as exc:
            log.warning("storing a batch failed (%s); storing its documents one by one", exc)
            stored = 0
            for item, prepared in batch:
                try:
                    self.pipeline.store([prepared])
                    stored += 1
                except (IndexMismatchError, ModelLoadError):
                    raise
                except Exception as single:
                    self.report.fail(item.file.path, f"could not store it: {describe(single)}")
        self.report.ingested += stored
        self.wrote = True
        self.advance(len(batch))
        self.since_refresh += stored
        if self.since_refresh >= REFRESH_EVERY:
            self.pipeline.refresh()
            self.since_refresh = 0
