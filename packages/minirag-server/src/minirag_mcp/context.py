"""The objects a server or CLI run works with, built on first use from a :class:`Config`.

Nothing here loads the embedding model or imports lancedb, fastembed or markitdown up front:
start-up, ``status`` and ``list_files`` must stay fast, so each piece is built the first time a
tool needs it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from minirag_index.settings import ConfigError
from minirag_mcp.config import Config, ConfigProblem
from minirag_mcp.errors import ServerError
from minirag_mcp.paging import LastDocument
from minirag_mcp.wording import MCP, Wording

if TYPE_CHECKING:
    from minirag_index import MiniragIndex
    from minirag_ingest.conversion.pool import ConversionPool
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.corpus import Corpus
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.labels.taxonomy import TaxonomyLoader
    from minirag_ingest.sync.jobs import JobManager
    from minirag_ingest.watch.watcher import SyncListener, Watcher


class PlaceMissing(ServerError, RuntimeError):
    """The document roots or the index folder are not where the configuration says."""


READ_ONLY_REFUSAL = (
    "the index is open read-only here (READ_ONLY=1 or --read-only): nothing is written to it; "
    "sync, ingest and delete run on the writer's machine"
)


class ReadOnlyRefused(ServerError, RuntimeError):
    """A write asked of a read-only configuration."""


def place_problems(config: Config, *, every_missing_root: bool = False) -> list[str]:
    """What is wrong with where the roots and the index are, checked without creating anything.

    A DB_PATH that is a file cannot hold an index. A root that does not exist (a typo, a drive
    not mounted) is a problem when no root exists at all, or when the index would be created
    inside it - opening it would make the missing folder appear and then look empty. Other
    missing roots are only reported with ``every_missing_root`` (status does): a sync reports
    them as failed items and carries on with the rest.
    """
    problems: list[str] = []
    db_path = config.db_path.local  # None for an index on object storage
    if db_path is not None and db_path.exists() and not db_path.is_dir():
        problems.append(
            f"DB_PATH {db_path} is a file, not a folder: point DB_PATH (or --db-path) at a "
            "folder for the index"
        )
    if config.read_only:  # the roots are only names here: nothing is read from them
        if db_path is not None and not db_path.exists():
            problems.append(
                f"there is no index at DB_PATH {db_path}, and a read-only server never creates "
                "one: point DB_PATH (or --db-path) at the writer's index folder"
            )
        return problems
    missing = [root for root in config.roots if not root.exists()]
    everything_missing = bool(missing) and len(missing) == len(config.roots)
    for root in missing:
        holds_index = db_path is not None and (db_path == root or root in db_path.parents)
        if everything_missing or holds_index or every_missing_root:
            problems.append(
                f"the document root {root} does not exist: check BASE_DIR / BASE_DIRS (or "
                "--base-dir), or mount the drive it is on; nothing was created there"
            )
    return problems


class AppContext:
    """Lazily built Roots, index, pipeline and job manager for one configuration."""

    def __init__(self, config: Config | ConfigProblem):
        self.config = config
        self._lock = threading.RLock()
        self._roots: Roots | None = None
        self._index: MiniragIndex | None = None
        self._pipeline: Pipeline | None = None
        self._jobs: JobManager | None = None
        self._taxonomy: TaxonomyLoader | None = None
        self._pool: ConversionPool | None = None
        self.watcher: Watcher | None = None  # watch mode, once started
        self.wording: Wording = MCP  # how messages name arguments (the CLI sets its own)
        self.last_document = LastDocument()  # read_file's pages of one document

    def require_config(self) -> Config:
        """The configuration; every tool but status refuses a broken one with its message."""
        if isinstance(self.config, ConfigProblem):
            raise ConfigError(f"Configuration error: {self.config.error}")
        return self.config

    def require_places(self) -> Config:
        """The configuration, once it is valid and its roots and index folder can be used
        (checked on every call: a drive can be unmounted while a server runs)."""
        config = self.require_config()
        problems = place_problems(config)
        if problems:
            raise PlaceMissing("; ".join(problems))
        return config

    def require_writable(self) -> Config:
        """The usable configuration of a run that writes; a read-only one refuses."""
        config = self.require_config()
        if config.read_only:
            raise ReadOnlyRefused(READ_ONLY_REFUSAL)
        return self.require_places()

    @property
    def read_only(self) -> bool:
        return isinstance(self.config, Config) and self.config.read_only

    @property
    def roots(self) -> Roots:
        if self._roots is None:
            config = self.require_config()
            from minirag_ingest.files.roots import Roots

            with self._lock:
                if self._roots is None:
                    self._roots = Roots(config.roots)
        return self._roots

    @property
    def index(self) -> MiniragIndex:
        if self._index is None:
            config = self.require_config()
            from minirag_index import MiniragIndex

            with self._lock:
                if self._index is None:
                    self._index = MiniragIndex(config.index, read_only=config.read_only)
        return self._index

    @property
    def corpus(self) -> Corpus:
        """The roots and the index together: listings and the corpus's report."""
        from minirag_ingest.files.corpus import Corpus

        return Corpus(self.index, self.roots)

    @property
    def taxonomy(self) -> TaxonomyLoader:
        """The corpus's classify.toml (in the first root), re-read whenever it changes."""
        if self._taxonomy is None:
            from minirag_ingest.labels.taxonomy import TaxonomyLoader

            roots = self.roots
            with self._lock:
                if self._taxonomy is None:
                    self._taxonomy = TaxonomyLoader.for_root(roots.first)
        return self._taxonomy

    @property
    def index_if_built(self) -> MiniragIndex | None:
        return self._index

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None:
            config = self.require_config()
            from minirag_ingest.conversion.pool import ConversionPool, PoolLimits
            from minirag_ingest.document.pipeline import Pipeline

            index, roots, taxonomy = self.index, self.roots, self.taxonomy
            with self._lock:
                if self._pipeline is None:
                    limits = PoolLimits(
                        max_memory=config.ingest.rag_convert_max_memory,
                        timeout=config.ingest.rag_convert_timeout,
                    )
                    self._pool = ConversionPool(limits, ocr=config.ocr)
                    self._pipeline = Pipeline(
                        index,
                        roots,
                        config.ingest,
                        ocr=config.ocr,
                        taxonomy=taxonomy,
                        pool=self._pool,
                    )
        return self._pipeline

    @property
    def jobs(self) -> JobManager:
        if self._jobs is None:
            from minirag_ingest.sync.jobs import JobManager

            pipeline = self.pipeline
            with self._lock:
                if self._jobs is None:
                    self._jobs = JobManager(pipeline)
        return self._jobs

    def stop_jobs(self, timeout: float | None = None) -> None:
        """Stop the syncs still running (each after its commit in flight) and wait for them."""
        if self._jobs is not None:
            self._jobs.cancel_all(timeout)

    def start_watching(
        self, on_sync: SyncListener | None = None, *, first_sync_after: float = 0.0
    ) -> Watcher:
        """Watch mode: one sync now, then one after each quiet spell of changes. Returns at
        once; the index, the pipeline and the model are built by the watcher's first sync."""
        config = self.require_config()
        if config.read_only:
            raise ReadOnlyRefused(READ_ONLY_REFUSAL)
        from minirag_ingest.files.corpus import scanned_extensions
        from minirag_ingest.files.formats import SUPPORTED_EXTENSIONS
        from minirag_ingest.watch.watcher import Watcher, WatchSettings

        index_folder = config.db_path.local  # None on object storage: nothing of it to skip
        with self._lock:
            if self.watcher is None:
                self.watcher = Watcher(
                    self._jobs_where_places_exist,
                    self.roots,
                    WatchSettings.of(config.ingest),
                    extensions=SUPPORTED_EXTENSIONS | scanned_extensions(),
                    skip_under=[] if index_folder is None else [index_folder],
                    on_sync=on_sync,
                    first_sync_after=first_sync_after,
                ).start()
            return self.watcher

    def _jobs_where_places_exist(self) -> JobManager:
        """The job manager, once the roots and the index folder can be used: a root that is
        missing (an unmounted drive) must not be created by opening the index inside it."""
        self.require_places()
        return self.jobs

    def stop_watching(self, timeout: float | None = None) -> None:
        """Stop watch mode (a sync it runs stops after its commit in flight)."""
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            watcher.stop(timeout)

    def stop_workers(self) -> None:
        """Stop the conversion workers (they start again when a file needs converting)."""
        if self._pool is not None:
            self._pool.stop()

    def display_path(self, source: str) -> str:
        return self.roots.display_path(source)
