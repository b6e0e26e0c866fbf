"""The two searches of every query - the nearest vectors and the BM25 keywords - on LanceDB's
asynchronous API, run in one event loop thread of the process's.

LanceDB's synchronous query builder asks the table for its schema three times per query (to
find the vector column, and twice to see whether the projection holds blob columns), each a
round trip to LanceDB's background event loop with the schema converted to Python. Built on
``AsyncTable.query()``, the same queries skip all three: on the XQuAD index (526 chunks) a
vector search took 3.9-4.1 ms instead of 5.8-6.0 and a keyword search 2.4-2.5 ms instead of
4.7-5.0 (medians of 200, 2026-12-07), and both run for every query, the keyword side on the
second core beside the query's embedding.

The async connection is made with the synchronous one's ``lancedb.Session``, so the index and
metadata caches are shared, not doubled; it is opened again whenever the store opens its table
again (after an optimisation, or once the table is created). The loop's thread starts with the
process's first search, not on import.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from minirag_index.storage import keyword_index, vector_index
from minirag_index.storage.location import IndexLocation, StoreAccess, connect_async
from minirag_index.storage.schema import CHUNK_COLUMNS

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")


class Searcher:
    """Runs a store's searches on the async table that matches its current synchronous one."""

    def __init__(self, location: IndexLocation, access: StoreAccess) -> None:
        self.location = location
        self.access = access
        self._table: Any = None
        self._opened_for: Any = None  # the synchronous table the async one was opened beside
        self._partitions: tuple[int, int | None] | None = None  # (version, partitions)

    def vector(
        self,
        table: Any,
        session: Any,
        version: int | None,
        vector: Sequence[float] | np.ndarray,
        limit: int,
        where: str | None,
        columns: list[str] | None = None,
    ) -> list[dict[str, Any]]:
        """:func:`vector_search` on the async table beside ``table``; ``version``: the table
        version the caller has just read, if it has."""
        partitions = self._index_partitions(table, version)

        async def search() -> list[dict[str, Any]]:
            found = await self._open(table, session)
            return await vector_search(found, vector, limit, where, partitions, columns)

        return self._run(search)

    def _index_partitions(self, table: Any, version: int | None) -> int | None:
        """:func:`vector_index.searched_partitions`, read once per table version."""
        version = table.version if version is None else version
        known = self._partitions
        if known is None or known[0] != version:
            known = self._partitions = (version, vector_index.searched_partitions(table))
        return known[1]

    def keyword(
        self,
        table: Any,
        session: Any,
        text: str,
        limit: int,
        where: str | None,
        columns: list[str] | None,
        searchable: tuple[list[str], Callable[[str], str]] | None,
    ) -> list[dict[str, Any]]:
        """:func:`keyword_search` on the async table beside ``table``; ``searchable``: the
        indexed columns and query analysis (read from ``table`` when not given)."""
        indexed, analyse = searchable or keyword_index.searchable(table)
        query_text = analyse(text)
        if not indexed or not query_text.strip():
            return []

        async def search() -> list[dict[str, Any]]:
            found = await self._open(table, session)
            return await keyword_search(found, query_text, indexed, limit, where, columns)

        return self._run(search)

    async def _open(self, table: Any, session: Any) -> Any:
        """The async table beside ``table``, opened once per synchronous table."""
        if self._opened_for is not table:
            connection = await connect_async(self.location, self.access, session)
            self._table, self._opened_for = await connection.open_table(table.name), table
        return self._table

    def _run(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        return asyncio.run_coroutine_threadsafe(make(), _search_loop()).result()


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _search_loop() -> asyncio.AbstractEventLoop:
    """The process's event loop for searches, in a daemon thread started on first use."""
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="minirag-search", daemon=True).start()
        return _loop


async def vector_search(
    table: Any,
    vector: Sequence[float] | np.ndarray,
    limit: int,
    where: str | None,
    partitions: int | None,
    columns: list[str] | None = None,
) -> list[dict[str, Any]]:
    """The ``limit`` nearest chunks among those ``where`` selects (a pre-filter), with
    ``columns`` (default: the chunk columns) and ``_distance``; ``partitions``: the vector
    index's (:func:`vector_index.tuned` probes some; all when a filter left too few rows)."""
    wanted = [*(columns or CHUNK_COLUMNS), "_distance"]

    async def nearest(everywhere: bool) -> list[dict[str, Any]]:
        query = table.query().nearest_to(list(vector)).column("vector")
        query = vector_index.tuned(query, partitions, everywhere)
        if where:
            query = query.where(where)  # a pre-filter, LanceDB's default
        found: list[dict[str, Any]] = (
            await query.select(wanted).limit(limit).to_arrow()
        ).to_pylist()
        return found

    found = await nearest(everywhere=False)
    if where and partitions is not None and len(found) < limit:
        # The filter's rows lie mostly outside the partitions probed: all of them, so a
        # narrow filter still returns its nearest rows.
        found = await nearest(everywhere=True)
    return found


async def keyword_search(
    table: Any,
    query_text: str,
    indexed: list[str],
    limit: int,
    where: str | None,
    columns: list[str] | None,
) -> list[dict[str, Any]]:
    """BM25 of the analysed ``query_text`` over the ``indexed`` term columns; rows carry
    ``columns`` (default: the chunk columns) and ``_score``."""
    from lancedb.query import FullTextOperator, MultiMatchQuery

    terms = MultiMatchQuery(query_text, indexed, boosts=None, operator=FullTextOperator.OR)
    query = table.query().nearest_to_text(terms)
    if where:
        query = query.where(where)
    wanted = [*(columns or CHUNK_COLUMNS), "_score"]
    found: list[dict[str, Any]] = (await query.select(wanted).limit(limit).to_arrow()).to_pylist()
    return found
