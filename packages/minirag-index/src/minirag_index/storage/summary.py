"""What the index holds, answered without LanceDB: a summary file beside a local table.

``status`` and ``list_files`` need only every source's metadata, the vectors' width and model
record, and how many chunks each chunking scheme cut; LanceDB itself costs most of a second
to import. So whenever a writer has finished (:meth:`MiniragIndex.refresh`, the end of every
sync, ingest and delete) it writes those facts to ``<DB_PATH>/chunks.summary.json``, keyed by
the table version they were read at: the newest manifest file in the table's ``_versions``
folder, by name, size and modification time (a table deleted and built again restarts its
version numbers; its manifests are new files).

A reader lists ``_versions`` and uses the summary only when its key is that newest manifest,
i.e. nothing was committed since it was written; otherwise (another writer, an older release
that wrote no summary, an unreadable file) it reads LanceDB as before. The summary is written
only when the version was the same before and after reading the table, so it never pairs one
version's key with another's contents. Only a DB_PATH that is a local folder has one: for an
object-store URI every read goes to LanceDB.

Listing ``_versions`` reads LanceDB's files, not its API (``Table.version`` needs LanceDB
imported, the very cost the summary saves). That folder and its two manifest naming schemes
are the Lance table format's; the layout is pinned with LanceDB's minor version in this
package's ``pyproject.toml``, and a test (``test_summary.py``,
``test_the_summary_key_reads_the_version_lancedb_reports``) checks the key against LanceDB's
documented ``Table.version`` and ``list_versions()``.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_index.embedding.model_spec import ModelSpec, model_from_metadata
from minirag_index.storage.location import IndexLocation
from minirag_index.storage.schema import SourceInfo

if TYPE_CHECKING:
    from minirag_index.storage.store import Store

log = logging.getLogger(__name__)

FORMAT = 1
FILE_NAME = "chunks.summary.json"
TABLE_FOLDER = "chunks.lance"
_MANIFEST = re.compile(r"^(\d+)\.manifest$")
# Lance's newer manifest names count down from the largest u64, so that the newest version
# sorts first; the older ones are the version number itself.
_U64_MAX = 2**64 - 1


@dataclass(frozen=True)
class IndexSummary:
    """The facts ``status`` and ``list_files`` read, as of one table version."""

    sources: dict[str, SourceInfo]
    vector_dim: int | None
    model: ModelSpec | None
    chunks_by_scheme: dict[int, int]

    def stale_chunk_count(self, current_scheme: int) -> int:
        return sum(n for scheme, n in self.chunks_by_scheme.items() if scheme < current_scheme)


def local_folder(db_path: IndexLocation | Path | str) -> Path | None:
    """The index folder when DB_PATH is a local path, None for a URI (s3://…)."""
    return IndexLocation.parse(db_path).local


def version_key(db_path: IndexLocation | Path | str) -> list[Any] | None:
    """The newest manifest of the local table as [name, size, mtime_ns]; None without one."""
    folder = local_folder(db_path)
    if folder is None:
        return None
    newest: tuple[int, os.DirEntry[str]] | None = None
    try:
        with os.scandir(folder / TABLE_FOLDER / "_versions") as entries:
            for entry in entries:
                match = _MANIFEST.match(entry.name)
                if not match:
                    continue
                version = manifest_version(entry.name)
                if newest is None or version > newest[0]:
                    newest = (version, entry)
        if newest is None:
            return None
        stat = newest[1].stat()
    except OSError:
        return None
    return [newest[1].name, stat.st_size, stat.st_mtime_ns]


def manifest_version(name: str) -> int:
    """The table version a manifest file name (``<n>.manifest``) stands for."""
    match = _MANIFEST.match(name)
    if match is None:
        raise ValueError(f"not a manifest name: {name!r}")
    number = int(match.group(1))
    return _U64_MAX - number if number > 2**63 else number


def read_current(db_path: IndexLocation | Path | str) -> IndexSummary | None:
    """The summary, when it describes the table's newest version; None otherwise."""
    folder = local_folder(db_path)
    if folder is None:
        return None
    try:
        with open(folder / FILE_NAME, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    key = version_key(folder)
    if key is None or data.get("version") != key:
        return None
    try:
        return _from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        log.debug("summary at %s not used: %s", folder, exc)
        return None


def write(store: Store) -> bool:
    """Write the summary of ``store``'s table as it is now (best-effort: True when written).

    Nothing is written for a store that is not a local folder, without a table, or when a
    commit landed while the table was being read."""
    folder = local_folder(store.db_path)
    if folder is None:
        return False
    try:
        table = store.table()  # opening it may upgrade it: a commit before the key is read
        before = version_key(folder)
        if table is None or before is None:
            return False
        schemes = store.column_table(["scheme"])
        if schemes is None:
            return False
        counted = schemes.group_by("scheme").aggregate([("scheme", "count")])
        sources = store.sources()  # counted in Arrow: Python values for chunk 0 rows only
        field = table.schema.field("vector")
        if version_key(folder) != before:
            return False  # another commit: this read may mix versions with the key
        schemes_seen = counted.column("scheme").to_pylist()
        by_scheme = zip(schemes_seen, counted.column("scheme_count").to_pylist(), strict=True)
        summary = IndexSummary(
            sources=sources,
            vector_dim=field.type.list_size,
            model=model_from_metadata(field.metadata),
            chunks_by_scheme=dict(by_scheme),
        )
        _write_atomically(folder / FILE_NAME, _to_json(summary, before))
    except Exception as exc:  # a read-only folder, a racing writer: readers use LanceDB
        log.debug("summary at %s not written: %s", folder, exc)
        return False
    return True


def _write_atomically(path: Path, payload: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, ensure_ascii=False, separators=(",", ":"))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _to_json(summary: IndexSummary, key: list[Any]) -> dict[str, Any]:
    sources = []
    for info in summary.sources.values():
        row = dataclasses.asdict(info)
        if info.signature is not None:
            row["signature"] = base64.b64encode(info.signature).decode("ascii")
        sources.append(row)
    model = summary.model
    return {
        "format": FORMAT,
        "version": key,
        "vector_dim": summary.vector_dim,
        "model": None if model is None else dataclasses.asdict(model),
        "chunks_by_scheme": {str(k): v for k, v in summary.chunks_by_scheme.items()},
        "sources": sources,
    }


def _from_json(data: dict[str, Any]) -> IndexSummary:
    sources = {}
    for row in data["sources"]:
        if row.get("signature") is not None:
            row["signature"] = base64.b64decode(row["signature"])
        info = SourceInfo(**row)
        sources[info.source] = info
    model = data["model"]
    return IndexSummary(
        sources=sources,
        vector_dim=data["vector_dim"],
        model=None if model is None else ModelSpec(**model),
        chunks_by_scheme={int(k): int(v) for k, v in data["chunks_by_scheme"].items()},
    )


class SummaryReads:
    """The metadata reads of ``store`` answered from its summary while the summary is current,
    from LanceDB otherwise (the summary is parsed again only when the table's newest manifest
    changes)."""

    def __init__(self, store: Store):
        self.store = store
        self._held: tuple[list[Any], IndexSummary | None] | None = None

    def current(self) -> IndexSummary | None:
        """The summary of the table's newest version, if one was written for it."""
        key = version_key(self.store.location)
        if key is None:
            return None
        held = self._held
        if held is None or held[0] != key:
            held = self._held = (key, read_current(self.store.location))
        return held[1]

    def write(self, *, only_if_missing: bool = False) -> None:
        """Write the summary (never for a read-only store); ``only_if_missing``: unless the
        current one is there."""
        if self.store.read_only:  # a reader writes nothing, this file included
            return
        if not (only_if_missing and self.current() is not None):
            write(self.store)
            self._held = None  # read again: the version may be the one held as None

    def version(self) -> int | None:
        """The table's version, from the summary's key when it is current."""
        key = version_key(self.store.location)
        if key is not None and self.current() is not None:
            return manifest_version(key[0])
        return self.store.version()

    def recorded_model(self) -> ModelSpec | None:
        held = self.current()
        return held.model if held is not None else self.store.recorded_model()

    def vector_dim(self) -> int | None:
        held = self.current()
        return held.vector_dim if held is not None else self.store.vector_dim()

    def sources(self, where: str | None) -> dict[str, SourceInfo]:
        """Every source (the summary's) or those ``where`` selects (LanceDB's): the caller
        keeps those in its scope."""
        held = self.current()
        return held.sources if held is not None else self.store.sources(where)

    def stale_chunk_count(self, current_scheme: int) -> int:
        held = self.current()
        if held is not None:
            return held.stale_chunk_count(current_scheme)
        return self.store.count_rows(f"scheme < {int(current_scheme)}")
