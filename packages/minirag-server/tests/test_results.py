"""Result models: what a tool sends for the library's results, and the lines the CLI prints."""

from __future__ import annotations

from minirag_index.search.filters import Label
from minirag_ingest.labels.try_file import TriedFacet, TriedFile
from minirag_ingest.sync.jobs import JobStatus
from minirag_ingest.sync.run import COUNT_NAMES
from minirag_mcp.render import try_lines
from minirag_mcp.results import ClassifyTry, SyncJob

COUNTS = dict.fromkeys(COUNT_NAMES, 0)


def test_a_running_job_has_its_start_in_utc_and_no_finish() -> None:
    running = JobStatus(
        job_id="abc",
        state="running",
        scope=None,
        counts=COUNTS,
        errors=[],
        progress={"done": 0, "total": 3},
        started_at=1_780_000_000.4,
    )
    payload = SyncJob.of(running).dump()
    assert payload["jobId"] == "abc" and payload["state"] == "running"
    assert payload["startedAt"] == "2026-05-28T20:26:40+00:00"
    assert "finishedAt" not in payload and "scope" not in payload
    assert "unreadableFiles" not in payload and "error" not in payload
    done = JobStatus(**{**running.__dict__, "state": "succeeded", "finished_at": 1_780_000_001.0})
    assert SyncJob.of(done).dump()["finishedAt"] == "2026-05-28T20:26:41+00:00"


def test_classify_try_as_json_and_as_lines() -> None:
    tried = TriedFile(
        file="/docs/pilots/2026-08-05 weekly.md",
        path="pilots/2026-08-05 weekly.md",
        facets=[
            TriedFacet("project", Label("pilots", 1.0, "path")),
            TriedFacet(
                "type",
                Label("minutes", 0.6, "model", runner_up="report", uncertain=True),
                distribution={"minutes": 0.6, "mail": 0.1, "report": 0.3},
            ),
            TriedFacet("area", None, not_set="outside within"),
        ],
        date="2026-08-05",
        date_source="name",
        problems=[],
    )
    result = ClassifyTry.of(tried)
    payload = result.dump()
    assert payload["facets"]["project"] == {
        "value": "pilots",
        "confidence": 1.0,
        "source": "path",
        "uncertain": False,
    }
    assert payload["facets"]["type"]["runnerUp"] == "report"
    assert payload["facets"]["area"] == {"value": None, "notSet": "outside within"}
    assert (payload["date"], payload["dateSource"]) == ("2026-08-05", "name")
    lines = try_lines(result)
    assert "  project: pilots  1.00 path" in lines
    assert any(line.startswith("  type: minutes  0.60 model  uncertain") for line in lines)
    assert "    minutes 0.60  report 0.30  mail 0.10" in lines
    assert any("area: not set (outside within)" in line for line in lines)
    assert lines[-1] == "  date: 2026-08-05 (name)"
