"""minirag-ingest: documents in, an up-to-date index out.

The public face (see README.md): :class:`Corpus` (a listing of the files with their state, the
corpus's report for status), :class:`JobManager` (syncs that bring the index in line with the
disk, as background jobs; :func:`minirag_ingest.sync.run.sync` runs one in the foreground),
:class:`Pipeline` (convert, chunk, embed and store one file, text or page),
:func:`minirag_ingest.files.file_state.file_state` (the one rule for where a file stands) and the
plug-in contracts in :mod:`minirag_ingest.extras.plugins`. Each name is imported on first use, so
importing the package loads nothing. (``sync`` and ``file_state`` are not re-exported here:
they are also the names of their modules.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from minirag_ingest._lazy import lazy_exports

if TYPE_CHECKING:
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.errors import IngestError
    from minirag_ingest.files.corpus import Corpus, CorpusReport, ListedFile, Listing
    from minirag_ingest.files.file_state import FileState
    from minirag_ingest.sync.jobs import JobManager
    from minirag_ingest.sync.run import SyncReport

__all__ = [
    "Corpus",
    "CorpusReport",
    "FileState",
    "IngestError",
    "JobManager",
    "ListedFile",
    "Listing",
    "Pipeline",
    "SyncReport",
]

__getattr__ = lazy_exports(__name__, __file__)
