"""The command that adds an optional extra (``ocr``, ``classify``, ``s3``) to *this* install.

The rule lives in :mod:`minirag_index.install_hints` (the packaged model's hint in minirag-index
needs it too); these are the same names, for the callers in minirag-ingest and above.
"""

from __future__ import annotations

from minirag_index.install_hints import (
    DISTRIBUTION,
    Origin,
    extra_command,
    install_hint,
    installed_extras,
    local_path,
    origin_from_direct_url,
    read_origin,
    workspace_flag,
    workspace_root,
)

__all__ = [
    "DISTRIBUTION",
    "Origin",
    "extra_command",
    "install_hint",
    "installed_extras",
    "local_path",
    "origin_from_direct_url",
    "read_origin",
    "workspace_flag",
    "workspace_root",
]
