"""LanceDB's REST namespace client is imported only when something uses it (lazy_namespace.py):
a local index works without it, and whoever does ask for it gets the real package."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

API = "lance_namespace_urllib3_client.api.table_api"

# In a fresh interpreter: open an index, write and search it, then use the deferred client.
PROBE = f"""
import json, sys
from pathlib import Path
import minirag_index
from minirag_index.store import Store
import lancedb

db = lancedb.connect(Path(sys.argv[1]))
db.create_table("t", data=[{{"x": 1}}, {{"x": 2}}])
names = list(db.list_tables().tables)
rows = db.open_table("t").count_rows()
before = {API!r} in sys.modules
import lance_namespace_urllib3_client as client
from lance_namespace_urllib3_client import ApiClient, TableApi
from lance_namespace_urllib3_client.api.table_api import TableApi as direct
print(json.dumps({{
    "names": names,
    "rows": rows,
    "api_before_use": before,
    "same_class": TableApi is direct and client.TableApi is direct,
    "api_client": ApiClient.__module__,
    "version": client.__version__,
    "after_use": {API!r} in sys.modules,
}}))
"""


def probe(tmp_path, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "db")],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_local_index_works_without_the_rest_client_which_loads_when_used(tmp_path):
    result = probe(tmp_path)
    assert result["names"] == ["t"] and result["rows"] == 2
    assert result["api_before_use"] is False  # never imported for a local table
    assert result["same_class"] is True  # asked for, it is the real package
    assert result["api_client"] == "lance_namespace_urllib3_client.api_client"
    assert result["version"] and result["after_use"] is True


def test_the_stand_in_can_be_turned_off(tmp_path):
    result = probe(tmp_path, MINIRAG_EAGER_IMPORTS="1")
    assert result["api_before_use"] is True and result["same_class"] is True


def test_an_unknown_name_is_still_an_attribute_error(monkeypatch):
    from minirag_index.lazy_namespace import defer_rest_client

    for name in [m for m in sys.modules if m.startswith("lance_namespace_urllib3_client")]:
        monkeypatch.delitem(sys.modules, name)
    assert defer_rest_client() is True
    client = sys.modules["lance_namespace_urllib3_client"]
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = client.no_such_name
    assert client.TableApi.__name__ == "TableApi"  # the real __init__ ran once, in full
    assert defer_rest_client() is False  # already imported: left alone
