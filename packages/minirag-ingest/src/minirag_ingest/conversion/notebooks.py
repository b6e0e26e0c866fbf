"""Jupyter notebooks in the formats before version 4, upgraded by nbformat itself.

markitdown reads the current notebook format only (a list of ``cells``). A notebook saved in
format 2 or 3 keeps its cells under ``worksheets``, and markitdown finds nothing in it. nbformat,
the Jupyter project's own library, upgrades every version it knows to version 4; the upgraded
notebook is what markitdown converts.

nbformat refuses a notebook that lacks a key its upgrade reads (a version-3 file without its
``metadata``, as in nbformat's own test files). Such a notebook is upgraded again with the
missing keys given their empty values, so its cells are read; one with no cells at all is still
refused.
"""

from __future__ import annotations

import io
import json
from typing import Any, BinaryIO

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
        upgraded = _upgraded_with_empty_keys(data)
        if upgraded is None:
            raise ValueError(
                f"a notebook in format {version} that nbformat cannot upgrade: {exc}"
            ) from exc
    return io.BytesIO(nbformat.writes(upgraded).encode("utf-8"))


def _upgraded_with_empty_keys(data: bytes) -> Any:
    """The notebook upgraded by nbformat after giving every key its upgrade reads and the file
    lacks an empty value; None when that fails too or leaves no cell to read."""
    import nbformat

    notebook = json.loads(data)
    notebook.setdefault("metadata", {})
    worksheets = notebook.get("worksheets")
    if not isinstance(worksheets, list):
        return None
    for worksheet in worksheets:
        if not isinstance(worksheet, dict) or not isinstance(worksheet.get("cells"), list):
            return None
        worksheet.setdefault("metadata", {})
        for cell in worksheet["cells"]:
            if not isinstance(cell, dict):
                return None
            cell.setdefault("metadata", {})
            if cell.get("cell_type") == "code":
                cell.setdefault("input", "")
                cell.setdefault("outputs", [])
    try:
        upgraded = nbformat.reads(json.dumps(notebook), as_version=CURRENT_VERSION)
    except Exception:
        return None
    return upgraded if upgraded.get("cells") else None
