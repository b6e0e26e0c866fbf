"""Each subpackage exports what the other packages use, and importing it loads none of them."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

SUBPACKAGES = ("files", "conversion", "document", "sync", "watch", "web", "extras")


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_exported_name_is_found_in_its_module(name: str) -> None:
    package = importlib.import_module(f"minirag_ingest.{name}")
    assert package.__all__
    for exported in package.__all__:
        value = getattr(package, exported)
        assert not isinstance(value, type(package)), f"{name}.{exported} is a module"
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018


def test_importing_the_subpackages_loads_none_of_their_modules() -> None:
    probe = (
        "import json, sys\n"
        f"for name in {SUBPACKAGES!r}:\n"
        "    __import__('minirag_ingest.' + name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('minirag'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    expected = {"minirag_ingest", "minirag_ingest._lazy"}
    expected |= {f"minirag_ingest.{name}" for name in SUBPACKAGES}
    assert set(loaded) == expected


def test_a_sync_is_reachable_from_its_subpackage() -> None:
    from minirag_ingest.sync import JobManager, SyncReport, sync
    from minirag_ingest.sync.jobs import JobManager as job_manager
    from minirag_ingest.sync.run import SyncReport as report
    from minirag_ingest.sync.run import sync as run_sync

    assert (sync, SyncReport, JobManager) == (run_sync, report, job_manager)
