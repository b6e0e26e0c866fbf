"""What every tool returns, one pydantic model per result, and what ``--json`` prints.

Every payload the tools send is declared in this package, a module per group of tools:
:mod:`~minirag_mcp.results.base` (camelCase on the wire, fields left out while unset),
:mod:`~minirag_mcp.results.jobs` (sync and ingest), :mod:`~minirag_mcp.results.searching`,
:mod:`~minirag_mcp.results.documents` (reading, listing, deleting),
:mod:`~minirag_mcp.results.status` and :mod:`~minirag_mcp.results.labels` (a document's labels,
and ``classify try``). Callers import the models from here.

Imported by the server and by every CLI command, so it imports nothing but pydantic and
:mod:`minirag_ingest.files.names` (standard library only).
"""

from minirag_mcp.results.base import (
    LabelledRow,
    Result,
    iso_time,
    omitted,
)
from minirag_mcp.results.documents import (
    Deleted,
    DocumentText,
    FileRow,
    FileState,
    ListResult,
    NeighborOut,
    NeighborsResult,
    UnlistedOut,
)
from minirag_mcp.results.jobs import (
    FolderCounts,
    FolderIngest,
    Ingested,
    ItemError,
    JobState,
    PicturesOut,
    Progress,
    SyncCounts,
    SyncJob,
    SyncStarted,
)
from minirag_mcp.results.labels import (
    ClassifyTry,
    FilterCounts,
    LabelOut,
    TriedFacet,
)
from minirag_mcp.results.searching import (
    FirstMatchOut,
    FormOut,
    HitOut,
    LookAlikeOut,
    MentionDocumentOut,
    MentionsResult,
    QueryResult,
    SourceOut,
)
from minirag_mcp.results.status import (
    FacetStatus,
    IgnoreFileOut,
    IndexModelOut,
    LabelsStatus,
    StatusResult,
    ValueCount,
    WatchOut,
)

__all__ = [
    "ClassifyTry",
    "Deleted",
    "DocumentText",
    "FacetStatus",
    "FileRow",
    "FileState",
    "FilterCounts",
    "FirstMatchOut",
    "FolderCounts",
    "FolderIngest",
    "FormOut",
    "HitOut",
    "IgnoreFileOut",
    "IndexModelOut",
    "Ingested",
    "ItemError",
    "JobState",
    "LabelOut",
    "LabelledRow",
    "LabelsStatus",
    "ListResult",
    "LookAlikeOut",
    "MentionDocumentOut",
    "MentionsResult",
    "NeighborOut",
    "NeighborsResult",
    "PicturesOut",
    "Progress",
    "QueryResult",
    "Result",
    "SourceOut",
    "StatusResult",
    "SyncCounts",
    "SyncJob",
    "SyncStarted",
    "TriedFacet",
    "UnlistedOut",
    "ValueCount",
    "WatchOut",
    "iso_time",
    "omitted",
]
