"""Jupyter notebooks in the formats before version 4, upgraded by nbformat itself.

markitdown reads the current notebook format only (a list of ``cells``). A notebook saved in
format 2 or 3 keeps its cells under ``worksheets``, and markitdown finds nothing in it. nbformat,
the Jupyter project's own library, upgrades every version it knows to version 4; the upgraded
notebook is what markitdown converts.
"""

from __future__ import annotations

import io
import json
from typing import BinaryIO

CURRENT_VERSION = 4


def notebook_version(data: bytes) -> int | None:
    """The ``nbformat`` major version a notebook declares, or None when it declares none."""
    try:
        notebook = json.loads(data)
    except ValueError:
        return None  # not JSON: let the converter report it
    version = notebook.get("nbformat") if isinstance(notebook, dict) else None
    return version if isinstance(version, int) else None


def as_current_notebook(stream: BinaryIO) -> BinaryIO:
    """``stream`` itself (rewound) for a current notebook; for an older one, the notebook
    upgraded to version 4 by nbformat. Raises ValueError when nbformat cannot read it."""
    data = stream.read()
    stream.seek(0)
    version = notebook_version(data)
    if version is None or version >= CURRENT_VERSION:
        return stream
    import nbformat

    try:
        upgraded = nbformat.reads(data.decode("utf-8-sig"), as_version=CURRENT_VERSION)
    except Exception as exc:
        raise ValueError(
            f"a notebook in format {version} that nbformat cannot upgrade: {exc}"
        ) from exc
    return io.BytesIO(nbformat.writes(upgraded).encode("utf-8"))
