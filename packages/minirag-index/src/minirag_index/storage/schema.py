"""The ``chunks`` table, declared once: its columns and their types, the records a caller hands
in and gets back, and the conversions between the two.

Every row is one chunk and carries its source's metadata. A :class:`SourceDoc` field and a
:class:`ChunkInput` field are stored in the column of the same name; the other columns are
computed per row by :func:`table_fields` (:func:`rows_table` builds a commit's rows).
:data:`COLUMN_TYPES` is the only list of columns: the table's arrow schema, the columns a source
listing reads and the columns of a :class:`StoredChunk` are all derived from it and from these
dataclasses.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from minirag_index.embedding.model_spec import ModelSpec, passage_key
from minirag_index.storage import keyword_index, mention_columns

if TYPE_CHECKING:
    import pyarrow as pa

SourceType = Literal["file", "data", "url"]


@dataclass(frozen=True)
class ChunkInput:
    """One chunk as the chunker produced it (see :mod:`minirag_index.search.reconstruct`)."""

    text: str
    context_chars: int = 0
    joiner: str = ""
    section: int = 0
    pages: str | None = None


@dataclass(frozen=True)
class SourceDoc:
    """What the index keeps about one source besides its chunks."""

    source: str
    source_type: SourceType = "file"
    title: str = ""
    content_hash: str = ""
    size: int = 0
    mtime: float = 0.0
    scheme: int = 0
    ocr_engine: str = ""
    doc_date: str | None = None
    date_source: str | None = None
    labels: str | None = None
    signature: bytes | None = None  # stored on the source's chunk 0 only


@dataclass(frozen=True)
class SourceInfo(SourceDoc):
    """A stored source: its metadata, how many chunks it has and when it was stored."""

    chunk_count: int = 0
    ingested_at: float = 0.0
    paged: bool = False  # some chunk carries page numbers


@dataclass(frozen=True)
class StoredChunk:
    source: str
    title: str
    chunk_index: int
    section: int
    parent_id: str
    text: str
    context_chars: int
    joiner: str
    pages: str | None = None


#: Every column of the table with its arrow type ("vector" is the fixed-size embedding).
COLUMN_TYPES: Mapping[str, str] = {
    "id": "string",
    "source": "string",
    "source_type": "string",
    "title": "string",
    "chunk_index": "int32",
    "section": "int32",
    "parent_id": "string",
    "text": "string",
    "context_chars": "int32",
    "joiner": "string",
    "vector": "vector",
    "content_hash": "string",
    "size": "int64",
    "mtime": "float64",
    "ingested_at": "float64",
    "scheme": "int32",
    "ocr_engine": "string",
    "pages": "string",
    "doc_date": "string",
    "date_source": "string",
    "labels": "string",
    "signature": "binary",
    "passage_key": "string",  # what the vector is reused by (model_spec.passage_key)
    **dict.fromkeys(keyword_index.TERM_COLUMNS, "string"),
    **mention_columns.COLUMN_TYPES,  # what find_mentions reads (mention_columns.py)
}

_DOC_FIELDS = tuple(f.name for f in fields(SourceDoc))
_CHUNK_FIELDS = tuple(f.name for f in fields(ChunkInput))
#: The columns of a :class:`StoredChunk`, what reading chunks back selects.
CHUNK_COLUMNS = [f.name for f in fields(StoredChunk)]
#: The columns a source listing reads: the source's metadata and what counts its chunks.
SOURCE_COLUMNS = [*_DOC_FIELDS, "ingested_at", "chunk_index", "pages"]


def arrow_schema(dim: int, vector_metadata: Mapping[str, str] | None = None) -> pa.Schema:
    """The table's schema for embeddings of ``dim`` dimensions; ``vector_metadata`` is kept on
    the vector column (the record of the model that made them)."""
    import pyarrow as pa

    def column(name: str, kind: str) -> Any:
        if kind == "vector":
            return pa.field(name, pa.list_(pa.float32(), dim), metadata=vector_metadata)
        if kind == "string_list":
            return pa.field(name, pa.list_(pa.string()))
        return pa.field(name, getattr(pa, kind)())

    return pa.schema([column(name, kind) for name, kind in COLUMN_TYPES.items()])


def parent_id_for(source: str, section: int) -> str:
    """A short stable id naming one section of one source."""
    digest = hashlib.blake2b(source.encode("utf-8"), digest_size=6).hexdigest()
    return f"{digest}-{section}"


def row_id(source: str, chunk_index: int) -> str:
    return f"{source}\x1f{chunk_index}"


def table_fields(
    doc: SourceDoc, index: int, chunk: ChunkInput, now: float, model: ModelSpec | None = None
) -> dict[str, Any]:
    """Every column but the vector of chunk ``index`` of ``doc``: its fields, the chunk's, and
    the computed ones. ``model`` made the vector; without it the vector is never reused."""
    return {
        **{name: getattr(doc, name) for name in _DOC_FIELDS},
        **{name: getattr(chunk, name) for name in _CHUNK_FIELDS},
        "id": row_id(doc.source, index),
        "chunk_index": index,
        "parent_id": parent_id_for(doc.source, chunk.section),
        "ingested_at": now,
        "signature": doc.signature if index == 0 else None,
        "passage_key": passage_key(model, chunk.text) if model is not None else None,
        **keyword_index.term_values(chunk.text, doc.title),
        **mention_columns.mention_values(chunk.text, chunk.context_chars),
    }


def table_row(
    doc: SourceDoc,
    index: int,
    chunk: ChunkInput,
    vector: Any,
    now: float,
    model: ModelSpec | None = None,
) -> dict[str, Any]:
    """The row of chunk ``index`` of ``doc`` as a dict, its vector included."""
    fields = table_fields(doc, index, chunk, now, model)
    return {**fields, "vector": [float(x) for x in vector]}


def rows_table(
    items: Sequence[tuple[SourceDoc, Sequence[ChunkInput], Sequence[Any]]],
    now: float,
    schema: pa.Schema,
    model: ModelSpec | None = None,
    *,
    first_index: int = 0,
) -> pa.Table:
    """The rows of ``items`` as one Arrow table, built column by column, with the columns
    ``schema`` has (an older table may lack some). ``model`` made the vectors. Each item's
    chunks are numbered from ``first_index`` (a slice of a document stored in parts).

    One long document - tens of thousands of chunks, all stored in one commit - is what this
    costs memory for: as a dict per row with the vector as a list of Python floats, it took
    some 12 KB a chunk; as columns with the vectors in one float32 matrix, about 2 KB."""
    import numpy as np
    import pyarrow as pa

    at = schema.get_field_index("vector")
    field = schema.field(at)
    columns: dict[str, list[Any]] = {name: [] for name in schema.names if name != "vector"}
    for doc, chunks, _ in items:
        for index, chunk in enumerate(chunks, start=first_index):
            values = table_fields(doc, index, chunk, now, model)
            for name, column in columns.items():
                column.append(values[name])
    others = pa.Table.from_pydict(columns, schema=schema.remove(at))
    vectors = [vector for _, _, vectors in items for vector in vectors]
    matrix = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), field.type.list_size)
    del vectors
    flat = pa.array(matrix.reshape(-1), type=pa.float32())
    column = pa.FixedSizeListArray.from_arrays(flat, field.type.list_size).cast(field.type)
    return others.add_column(at, field, column)


def source_infos(columns: Mapping[str, list[Any]]) -> dict[str, SourceInfo]:
    """Every source in ``columns`` (the :data:`SOURCE_COLUMNS` of some rows, as lists), its
    metadata taken from its chunk 0 (or its first row)."""
    counts: dict[str, int] = {}
    paged: dict[str, bool] = {}
    first: dict[str, int] = {}
    for i, (source, index) in enumerate(
        zip(columns["source"], columns["chunk_index"], strict=True)
    ):
        counts[source] = counts.get(source, 0) + 1
        paged[source] = paged.get(source, False) or columns["pages"][i] is not None
        if index == 0 or source not in first:
            first[source] = i
    result = {}
    for source, i in first.items():
        values = {name: columns[name][i] for name in _DOC_FIELDS}
        values["ocr_engine"] = values["ocr_engine"] or ""
        result[source] = SourceInfo(
            **values,
            chunk_count=counts[source],
            ingested_at=columns["ingested_at"][i],
            paged=paged[source],
        )
    return result
