"""What ``import lancedb`` costs and a local table never uses is skipped (lighter_imports.py):
the REST namespace client is imported only when something uses it, pandas only when something
really needs it, and the ``overrides`` package's bytecode checks not at all on Python 3.11. A
local index works without them, and whoever does ask for them gets the real packages."""

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
pandas_before = "pandas" in sys.modules
checks_before = "overrides.overrides" in sys.modules
import importlib.util
has_pandas = importlib.util.find_spec("pandas") is not None  # not in the index-only install
frame = db.open_table("t").to_pandas()["x"].tolist() if has_pandas else None  # imported now
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
    "pandas_before_use": pandas_before,
    "frame": frame,
    "has_pandas": has_pandas,
    "overrides_checks_imported": checks_before,
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
    assert result["pandas_before_use"] is False  # not for pyarrow's probe at import
    if result["has_pandas"]:
        assert result["frame"] == [1, 2]  # but there when a DataFrame is asked for
    if sys.version_info < (3, 12):  # LanceDB takes overrides' decorator on 3.11 only
        assert result["overrides_checks_imported"] is False


def test_the_stand_ins_can_be_turned_off(tmp_path):
    result = probe(tmp_path, MINIRAG_EAGER_IMPORTS="1")
    assert result["api_before_use"] is True and result["same_class"] is True
    if result["has_pandas"]:
        assert result["pandas_before_use"] is True and result["frame"] == [1, 2]
    if sys.version_info < (3, 12):
        assert result["overrides_checks_imported"] is True


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="LanceDB uses typing.override on 3.12+")
def test_overrides_gives_plain_override_and_the_real_package_for_any_other_name(monkeypatch):
    from minirag_index.lighter_imports import EnforceOverrides, plain_overrides

    for name in [m for m in sys.modules if m == "overrides" or m.startswith("overrides.")]:
        monkeypatch.delitem(sys.modules, name)
    assert plain_overrides() is True
    import overrides

    class Base(overrides.EnforceOverrides):
        def run(self) -> int:
            return 1

    class Child(Base):
        @overrides.override
        def run(self) -> int:
            return 2

    assert Child().run() == 2 and Child.run.__override__ is True  # marked, as typing's does
    assert overrides.EnforceOverrides is EnforceOverrides
    assert "overrides.overrides" not in sys.modules  # nothing was checked or imported
    assert overrides.__VERSION__  # another name: the real package, in full
    assert "overrides.overrides" in sys.modules


def test_an_unknown_name_is_still_an_attribute_error(monkeypatch):
    from minirag_index.lighter_imports import defer_rest_client

    for name in [m for m in sys.modules if m.startswith("lance_namespace_urllib3_client")]:
        monkeypatch.delitem(sys.modules, name)
    assert defer_rest_client() is True
    client = sys.modules["lance_namespace_urllib3_client"]
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = client.no_such_name
    assert client.TableApi.__name__ == "TableApi"  # the real __init__ ran once, in full
    assert defer_rest_client() is False  # already imported: left alone


SIGNING = """
import json, sys
import minirag_index
from minirag_index.lookalike import overlap, signature

same = overlap(signature("the budget review moved to thursday after lunch"),
               signature("the budget review moved to thursday after lunch today"))
scipy_before = "scipy" in sys.modules
import datasketch
print(json.dumps({"same": same, "scipy_before": scipy_before,
                  "lsh": datasketch.MinHashLSH.__module__, "scipy_after": "scipy" in sys.modules}))
"""


def test_look_alike_signatures_need_neither_scipy_nor_the_rest_of_datasketch():
    done = subprocess.run(
        [sys.executable, "-c", SIGNING], capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    assert result["same"] > 0.5  # the signatures work
    assert result["scipy_before"] is False  # datasketch's other sketches were not imported
    assert result["lsh"] == "datasketch.lsh"  # asked for, datasketch is the real package
    assert result["scipy_after"] is True
