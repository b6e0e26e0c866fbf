"""From a file, text or URL to stored chunks: convert → title → chunk → date → pages → embed.

``prepare_*`` do everything but embedding and are free of index writes, so a sync can prepare
several documents and embed their chunks in one batch with :meth:`Pipeline.store`.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from minirag_index import ChunkInput, MiniragIndex, SourceDoc, rebuild_document
from minirag_ingest.chunking import SCHEME_VERSION, chunk_markdown
from minirag_ingest.conversion.convert import Converted
from minirag_ingest.conversion.convert import convert_content as _convert_content
from minirag_ingest.conversion.no_text import NoText, holds_text
from minirag_ingest.conversion.pages import PageIndex
from minirag_ingest.conversion.pictures import PictureCounts
from minirag_ingest.conversion.plain_text import PLAIN_TEXT_KINDS, NotPlainText
from minirag_ingest.conversion.reading import FileRead, ReadRequest, read_contained
from minirag_ingest.conversion.reading import (
    file_hash as file_hash,  # sync and benchmarks use it from here
)
from minirag_ingest.document.dates import document_date
from minirag_ingest.document.titles import choose_title, title_prefix_for_chunk
from minirag_ingest.errors import IngestError
from minirag_ingest.extras.plugins import OcrEngine
from minirag_ingest.files.formats import SUPPORTED_EXTENSIONS
from minirag_ingest.files.ignore import is_excluded
from minirag_ingest.files.names import id_name, to_id
from minirag_ingest.files.roots import Roots
from minirag_ingest.labels.job import LabelJob
from minirag_ingest.labels.resolve import relative_path
from minirag_ingest.labels.taxonomy import TaxonomyLoader
from minirag_ingest.settings import IngestSettings
from minirag_ingest.web.fetch import check_scheme, fetch
from minirag_ingest.web.page import convert_page

if TYPE_CHECKING:
    from minirag_ingest.conversion.pool import ConversionPool

log = logging.getLogger(__name__)
ContentFormat = Literal["text", "markdown", "html"]
# Chunks embedded per call: as many as a sync's batch holds, so only a document longer than
# that is embedded in several calls (each call sorts its texts by length to save padding).
EMBED_SLICE = 512


class IngestRefused(IngestError, ValueError):
    """A file the pipeline will not ingest (excluded by a rule, unsupported type…)."""


@dataclass(frozen=True)
class Prepared:
    """A document converted and chunked, ready to embed."""

    doc: SourceDoc
    chunks: list[ChunkInput]
    label_problem: str | None = None  # what the document was stored without, and why
    label_problems: tuple[str, ...] = ()  # "facet: reason" per facet the model left unset
    pictures: PictureCounts | None = None  # embedded pictures, when OCR read them


@dataclass(frozen=True)
class IngestResult:
    source: str
    title: str
    chunks: int
    source_type: str
    label_problem: str | None = None


def with_title_line(
    chunks: list[ChunkInput],
    title: str,
    count_tokens: Callable[[str], int] | None = None,
    budget: int | None = None,
) -> list[ChunkInput]:
    """Prepend "# Title" to chunk 0 as context, unless it already carries the title.

    With a token counter and budget, the title is shortened word by word (ending in "…") to
    fit what chunk 0 leaves of the budget, and left out when not even one word fits."""
    if not chunks or not title:
        return chunks
    prefix = title_prefix_for_chunk(title, chunks[0].text)
    if prefix is None:
        return chunks
    first = chunks[0]
    if count_tokens is not None and budget is not None:
        prefix = _fitted_prefix(prefix, first.text, count_tokens, budget)
        if prefix is None:
            return chunks
    seeded = replace(
        first, text=prefix + first.text, context_chars=first.context_chars + len(prefix)
    )
    return [seeded, *chunks[1:]]


def _fitted_prefix(
    prefix: str, text: str, count_tokens: Callable[[str], int], budget: int
) -> str | None:
    """``prefix`` ("# Title\n\n"), shortened until it and ``text`` fit ``budget``; or None."""
    if count_tokens(prefix + text) <= budget:
        return prefix
    words = prefix[2:].split()
    for keep in range(len(words) - 1, 0, -1):
        shorter = "# " + " ".join(words[:keep]) + " …\n\n"
        if count_tokens(shorter + text) <= budget:
            return shorter
    return None


class Pipeline:
    """Ingests into ``index`` files under ``roots``, text handed in, and fetched URLs.

    With a ``pool`` (:class:`~minirag_ingest.conversion.pool.ConversionPool`) files are converted
    in its worker processes, under its memory and time limits; without one, in this process.
    """

    def __init__(
        self,
        index: MiniragIndex,
        roots: Roots,
        settings: IngestSettings,
        *,
        extra_extensions: Sequence[str] = (),
        ocr: OcrEngine | None = None,
        taxonomy: TaxonomyLoader | None = None,
        pool: ConversionPool | None = None,
    ):
        self.index = index
        self.pool = pool
        self.roots = roots
        self.settings = settings
        self.taxonomy = taxonomy
        self.ocr = ocr
        self.ocr_min_chars_per_page = settings.rag_ocr_min_chars_per_page
        ocr_extensions = ocr.image_extensions if ocr is not None else ()
        self.extensions = {
            *SUPPORTED_EXTENSIONS,
            *(e.lower() for e in extra_extensions),
            *ocr_extensions,
        }

    # -- labels ----------------------------------------------------------------------------
    def labelling(self) -> LabelJob:
        """Open one job's labelling (use it as a context manager around the job)."""
        return LabelJob(self.taxonomy, Path(self.index.settings.CACHE_DIR))

    def _label(
        self,
        prepared: Prepared,
        markdown: str,
        rel_path: str | None,
        file_name: str | None,
        labels: LabelJob | None,
    ) -> Prepared:
        if labels is None:
            if self.taxonomy is None:
                return prepared
            with self.labelling() as own:
                return self._label(prepared, markdown, rel_path, file_name, own)
        doc, problem, problems = labels.label(prepared.doc, markdown, rel_path, file_name)
        return replace(prepared, doc=doc, label_problem=problem, label_problems=problems)

    # -- preparing -------------------------------------------------------------------------
    def chunk(self, converted: Converted, title: str) -> list[ChunkInput]:
        chunked = chunk_markdown(
            converted.markdown,
            count_tokens=self.index.embedder.token_counter(),
            budget=self.settings.chunk_token_budget,
            title=title,
        )
        pages: list[str | None] = [None] * len(chunked.chunks)
        if converted.pages:
            index = PageIndex(converted.pages, converted.markdown)
            pages = index.pages_for_chunks([c.body for c in chunked.chunks])
        chunks = [
            ChunkInput(
                text=c.text,
                context_chars=c.context_chars,
                joiner=c.joiner,
                section=c.section,
                pages=page,
            )
            for c, page in zip(chunked.chunks, pages, strict=True)
        ]
        return with_title_line(
            chunks,
            title,
            self.index.embedder.token_counter(),
            self.settings.chunk_token_budget,
        )

    def signature_for(self, text: str) -> bytes | None:
        from minirag_index.search.lookalike import (
            signature_bytes,  # numpy: on first use
        )

        return signature_bytes(text) if text.strip() else None

    def _finish(self, doc: SourceDoc, chunks: list[ChunkInput]) -> Prepared:
        if not chunks:
            raise NoText(doc.source)
        signature = self.signature_for(rebuild_document(chunks))
        return Prepared(replace(doc, signature=signature, scheme=SCHEME_VERSION), chunks)

    @property
    def read_ahead(self) -> int:
        """How many files a sync may hand to the workers ahead of the one it is storing."""
        return self.pool.size if self.pool is not None else 0

    def start_reading(self, path: Path, content_hash: str | None = None) -> Future[FileRead]:
        """Begin reading one file: in a worker when there is a pool (but for a plain text file,
        decoded here), else here and now."""
        request = ReadRequest(
            path=os.fspath(path),
            roots=tuple(str(root) for root in self.roots),
            max_file_size=self.settings.max_file_size,
            ocr_min_chars_per_page=self.ocr_min_chars_per_page,
            content_hash=content_hash,
        )
        future: Future[FileRead] = Future()
        try:
            if self.pool is None:
                future.set_result(read_contained(request, self.ocr))
            elif Path(path).suffix.lower().lstrip(".") in PLAIN_TEXT_KINDS:
                # decoding text needs no worker (see conversion.plain_text)
                future.set_result(read_contained(request, self.ocr, plain_only=True))
            else:
                return self.pool.submit(request)
        except NotPlainText:
            assert self.pool is not None
            return self.pool.submit(request)
        except Exception as exc:
            future.set_exception(exc)
        return future

    def prepare_file(
        self,
        path: Path,
        *,
        content_hash: str | None = None,
        labels: LabelJob | None = None,
        reading: Future[FileRead] | None = None,
    ) -> Prepared:
        """Convert, chunk and label one file (``path`` is the path it is indexed under).

        ``labels`` is the job's labelling; without it a labelling is opened for this file.
        ``reading`` is the file's :meth:`start_reading`, when the caller started it already."""
        path = Path(path)
        read = (reading or self.start_reading(path, content_hash)).result()
        for warning in read.warnings:
            log.warning("%s", warning)
        converted = read.converted
        if not holds_text(converted.markdown):
            raise NoText(path)
        name = id_name(path)
        title = choose_title(
            metadata_title=converted.metadata_title,
            markdown=converted.markdown,
            file_name=name,
        )
        date = document_date(converted.markdown, name, read.mtime)
        doc = SourceDoc(
            source=to_id(path),
            source_type="file",
            title=title,
            content_hash=read.content_hash,
            size=read.size,
            mtime=read.mtime,
            doc_date=date.date.isoformat() if date else None,
            date_source=date.source if date else None,
            ocr_engine=converted.ocr_engine,
        )
        prepared = self._finish(doc, self.chunk(converted, title))
        if converted.pictures is not None:
            prepared = replace(prepared, pictures=converted.pictures)
        rel_path = relative_path(to_id(path), self.roots)
        return self._label(prepared, converted.markdown, rel_path, name, labels)

    def prepare_content(
        self,
        source_id: str,
        content: str,
        fmt: ContentFormat,
        *,
        title: str | None = None,
        source_type: Literal["data", "url"] = "data",
        converted: Converted | None = None,
        labels: LabelJob | None = None,
    ) -> Prepared:
        """Convert, chunk and label content that has no file under the roots."""
        if not source_id.strip():
            raise ValueError("a source id is needed")
        converted = converted or _convert_content(content, fmt)
        if not holds_text(converted.markdown):
            raise NoText(source_id)
        # A bare id or URL identifies a document without describing it: only a real title counts.
        title = (title or "").strip() or choose_title(
            metadata_title=converted.metadata_title, markdown=converted.markdown, file_name=None
        )
        date = document_date(converted.markdown, None, None)
        digest = hashlib.blake2b(converted.markdown.encode("utf-8"), digest_size=16).hexdigest()
        doc = SourceDoc(
            source=source_id,
            source_type=source_type,
            title=title,
            content_hash=digest,
            size=len(content.encode("utf-8")),
            doc_date=date.date.isoformat() if date else None,
            date_source=date.source if date else None,
        )
        prepared = self._finish(doc, self.chunk(replace(converted, pages=None), title))
        return self._label(prepared, converted.markdown, None, None, labels)

    # -- storing ---------------------------------------------------------------------------
    def store(
        self, items: Sequence[Prepared], on_embedded: Callable[[int, int], None] | None = None
    ) -> list[IngestResult]:
        """Embed the chunks of all ``items`` and store them all in one commit.

        A chunk whose text the index holds already takes its stored vector
        (:meth:`MiniragIndex.passage_vectors`); the others are embedded :data:`EMBED_SLICE` at a
        time, ``on_embedded(done, total)`` called after each slice: one long document (a 50 MB
        text is some 140,000 chunks) shows its progress while it is embedded, instead of a sync
        that seems to hang on it."""
        texts = [chunk.text for item in items for chunk in item.chunks]
        vectors = self.index.passage_vectors(texts, slice_size=EMBED_SLICE, on_embedded=on_embedded)
        embedded, start = [], 0
        for item in items:
            end = start + len(item.chunks)
            embedded.append((item.doc, item.chunks, vectors[start:end]))
            start = end
        self.index.store_many(embedded)
        results = []
        for item in items:
            results.append(
                IngestResult(
                    item.doc.source,
                    item.doc.title,
                    len(item.chunks),
                    item.doc.source_type,
                    item.label_problem,
                )
            )
        return results

    def refresh(self) -> None:
        self.index.refresh()

    # -- one-shot ingests ------------------------------------------------------------------
    def check_file(self, path: Path) -> Path:
        """The absolute path a file is indexed under, or a refusal saying why not."""
        path = Path(os.path.abspath(Path(path).expanduser()))
        self.roots.contain(path)  # raises PathOutsideRoots
        if not path.is_file():
            raise IngestRefused(f"{path} is not a file")
        if path.suffix.lower() not in self.extensions:
            supported = " ".join(sorted(self.extensions))
            raise IngestRefused(f"{path.name}: unsupported file type; supported: {supported}")
        rule_file = is_excluded(path, self.roots)
        if rule_file:
            raise IngestRefused(
                f"{path} is excluded by {rule_file}; remove the rule to index it "
                "(an excluded file would be dropped again by the next sync)"
            )
        return path

    def ingest_file(self, path: Path, *, labels: LabelJob | None = None) -> IngestResult:
        prepared = self.prepare_file(self.check_file(path), labels=labels)
        [result] = self.store([prepared])
        self.refresh()
        return result

    def ingest_data(
        self,
        source_id: str,
        content: str,
        fmt: ContentFormat,
        title: str | None = None,
        *,
        labels: LabelJob | None = None,
    ) -> IngestResult:
        if fmt not in ("text", "markdown", "html"):
            raise ValueError(f"format must be text, markdown or html (got {fmt!r})")
        prepared = self.prepare_content(source_id, content, fmt, title=title, labels=labels)
        [result] = self.store([prepared])
        self.refresh()
        return result

    def prepare_url(
        self, url: str, source_id: str | None = None, *, labels: LabelJob | None = None
    ) -> Prepared:
        """Fetch (host guard on every hop), convert with markitdown's URL handling, chunk."""
        check_scheme(url)
        page = fetch(url, allow_private=self.settings.allow_private_urls)
        return self.prepare_content(
            source_id or url,
            "",
            "markdown",
            source_type="url",
            converted=convert_page(page),
            labels=labels,
        )

    def ingest_url(
        self, url: str, source_id: str | None = None, *, labels: LabelJob | None = None
    ) -> IngestResult:
        prepared = self.prepare_url(url, source_id, labels=labels)
        [result] = self.store([prepared])
        self.refresh()
        return result
