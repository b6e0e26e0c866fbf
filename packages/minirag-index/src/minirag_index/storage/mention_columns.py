"""The find_mentions side of the chunks table: folded text, word prefixes, and their index.

find_mentions must count every document, so it cannot keep a folded copy of the whole corpus in
memory at a million chunks (that took gigabytes), nor fold every chunk's text again per query
(seconds). Instead every row carries, written by the store with the row:

* ``mention_text``: the chunk's text in folded form (:mod:`minirag_index.text.folding`), its
  repeated context and its body folded apart and joined, exactly what a search reads;
* ``mention_context``: how many characters of ``mention_text`` are folded context;
* ``mention_key``: a 64-bit digest of the folded context (null when the chunk has none), which
  tells the chunks repeating one heading apart without reading their text;
* ``mention_prefixes``: the distinct first 3 and first 5 characters (:data:`PREFIX_LENGTHS`)
  of every word (run of letters and digits) of the folded text, body alone and context joined
  to it. A word shorter than that is its own prefix.

A LanceDB ``LABEL_LIST`` index on ``mention_prefixes`` turns a term into candidate chunks:
every word a term's match spans starts a word in the text, and every word but an open-ended
last one ends there too, so a chunk holding a match holds each of those words' prefixes
(:func:`term_prefixes`). The filter can only over-select; the exact rule is then applied to the
candidates' ``mention_text``. A term with no usable word (only punctuation, or one open word
shorter than 3 characters) reads every row. Three characters alone select too much of a real
language's text (про-, пере-, con-: most chunks hold such a word), hence the second length.
Rows appended since the last optimisation are filtered without the index, and ``optimize()``
folds them into it.

An index from before these columns gains them on the writer's next open (computed from the
stored text, in batches, each its own commit); until then a reader falls back to folding the
whole corpus. The index name carries :data:`MENTION_VERSION`: a new folding rule re-folds every
row.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

from minirag_index.storage.commits import best_effort
from minirag_index.text.folding import fold

log = logging.getLogger(__name__)

#: Bump when folding or the prefix rule changes: every row's columns are computed again.
MENTION_VERSION = 1
PREFIX_LENGTHS = (3, 5)
TEXT_COLUMN = "mention_text"
CONTEXT_COLUMN = "mention_context"
KEY_COLUMN = "mention_key"
PREFIX_COLUMN = "mention_prefixes"
#: Column -> arrow type name (see schema.COLUMN_TYPES).
COLUMN_TYPES = {
    TEXT_COLUMN: "string",
    CONTEXT_COLUMN: "int32",
    KEY_COLUMN: "int64",
    PREFIX_COLUMN: "string_list",
}
UPGRADE_BATCH = 5_000
_UNCHANGED = "target.text = source.text"
_RUN = re.compile(r"[^\W_]+")


def index_name() -> str:
    return f"{PREFIX_COLUMN}_v{MENTION_VERSION}"


def _prefixes(*texts: str) -> list[str]:
    runs: set[str] = set()
    for text in texts:
        runs.update(_RUN.findall(text))
    return sorted({run[:n] for run in runs for n in PREFIX_LENGTHS})


def context_key(folded_context: str) -> int:
    """A stable signed 64-bit digest of a folded context."""
    digest = hashlib.blake2b(folded_context.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def mention_values(text: str, context_chars: int | None) -> dict[str, Any]:
    """The mention columns of one row with this stored text and context length."""
    text = text or ""
    ctx = min(max(int(context_chars or 0), 0), len(text))
    if not ctx:
        folded = fold(text)
        return {
            TEXT_COLUMN: folded,
            CONTEXT_COLUMN: 0,
            KEY_COLUMN: None,
            PREFIX_COLUMN: _prefixes(folded),
        }
    context = fold(text[:ctx])
    body = fold(text[ctx:])
    joined = context + body
    return {
        TEXT_COLUMN: joined,
        CONTEXT_COLUMN: len(context),
        KEY_COLUMN: context_key(context),
        PREFIX_COLUMN: _prefixes(joined, body),
    }


def term_prefixes(text: str, exact: bool) -> list[str]:
    """Prefixes every chunk holding a match of the folded term ``text`` carries; empty when
    the term has no word that narrows the search.

    Each run of letters and digits in a term starts a word where it matches (the term either
    starts with it, after the word-start check, or something that is not a letter or digit
    precedes it). Each run ends a word too, except the last one of an open term: a whole word
    is found by its longest prefix (itself when shorter), an open one by the longest prefix
    length it reaches.
    """
    open_end = not exact and text[-1:].isalnum()
    out: set[str] = set()
    for m in _RUN.finditer(text):
        run = m.group()
        if not (open_end and m.end() == len(text)):
            out.add(run[: PREFIX_LENGTHS[-1]])
            continue
        reached = [n for n in PREFIX_LENGTHS if len(run) >= n]
        if reached:
            out.add(run[: reached[-1]])
    return sorted(out)


def has_columns(names: Sequence[str]) -> bool:
    return all(c in names for c in COLUMN_TYPES)


def is_current(table: Any) -> bool:
    """The table has the columns and they were computed by this version's rule."""
    if not has_columns(table.schema.names):
        return False
    try:
        return any(ix.name == index_name() for ix in table.list_indices())
    except Exception:
        return False


def ensure_current(table: Any, retry: Callable[[Callable[[], Any]], Any]) -> list[str]:
    """Add the columns, fill rows lacking them, and build the prefix index; returns warnings
    (empty when all went well). ``retry`` runs a commit with the store's conflict retries."""
    try:
        indices = {ix.name: tuple(ix.columns) for ix in table.list_indices()}
    except Exception as exc:
        return [f"could not list the index's find_mentions index: {exc}"]
    old = [n for n, cols in indices.items() if cols == (PREFIX_COLUMN,) and n != index_name()]
    missing = [c for c in COLUMN_TYPES if c not in table.schema.names]
    if index_name() in indices and not old and not missing:
        return []

    def upgrade() -> None:
        if missing:
            fields = [_field(c, COLUMN_TYPES[c]) for c in missing]
            retry(lambda: table.add_columns(fields))
        _fill(table, retry, every_row=bool(old))
        for name in old:
            retry(functools.partial(table.drop_index, name))
        if index_name() not in indices:
            from lancedb.index import LabelList

            table.create_index(PREFIX_COLUMN, config=LabelList(), name=index_name(), replace=True)

    return best_effort(upgrade, "the find_mentions columns could not be written (searched slower)")


def _field(name: str, kind: str) -> Any:
    import pyarrow as pa

    if kind == "string_list":
        return pa.field(name, pa.list_(pa.string()))
    return pa.field(name, getattr(pa, kind)())


def _fill(table: Any, retry: Callable[[Callable[[], Any]], Any], *, every_row: bool) -> None:
    """Compute the columns of rows lacking them (every row when ``every_row``), in batches,
    each its own commit (an interrupted upgrade resumes)."""
    import pyarrow as pa

    where = None if every_row else f"{TEXT_COLUMN} IS NULL"
    query = table.search().select(["id", "text", "context_chars"])
    query = query.where(where) if where else query
    done, todo = 0, table.count_rows(where)
    if todo:
        log.info("folding the text of %d chunks for find_mentions", todo)
    schema = pa.schema(
        [
            pa.field("id", pa.string()),
            pa.field("text", pa.string()),
            *(_field(c, k) for c, k in COLUMN_TYPES.items()),
        ]
    )
    for batch in query.limit(None).to_batches(UPGRADE_BATCH):
        ids = batch.column("id").to_pylist()
        texts = batch.column("text").to_pylist()
        values = [
            mention_values(t or "", c)
            for t, c in zip(texts, batch.column("context_chars").to_pylist(), strict=True)
        ]
        data = pa.Table.from_pydict(
            {
                "id": ids,
                "text": texts,
                **{c: [v[c] for v in values] for c in COLUMN_TYPES},
            },
            schema=schema,
        )

        # A row another writer replaced since it was read keeps the values written with it.
        def commit(data: Any = data) -> Any:
            update = table.merge_insert("id").when_matched_update_all(where=_UNCHANGED)
            return update.execute(data)

        retry(commit)
        done += len(ids)
        log.info("find_mentions columns: %d of %d chunks", done, todo)
