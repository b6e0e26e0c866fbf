"""An object store's error reaches a user as one line; its whole text (the Rust debug dump the
store libraries write) only with MINIRAG_DEBUG=1, as debug: lines on stderr."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
from minirag_mcp.commands import show_library_warnings
from minirag_index import StoreUnavailableError
show_library_warnings()
cause = OSError("Generic S3 error: connection refused\\nDebug source: Reqwest { kind: Request, "
                "source: hyper::Error(Connect) }\\n  at src/client/retry.rs:123")
error = StoreUnavailableError("s3://team/index", cause)
print(error)
"""


def run(**env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "MINIRAG_DEBUG"}
    return subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True
    )


def test_the_error_is_one_line_and_its_detail_shows_only_when_asked() -> None:
    plain = run()
    assert plain.returncode == 0, plain.stderr
    assert len(plain.stdout.strip().splitlines()) == 1
    assert "s3://team/index" in plain.stdout and "connection refused" in plain.stdout
    assert "Debug source" not in plain.stdout + plain.stderr

    verbose = run(MINIRAG_DEBUG="1")
    assert verbose.stdout == plain.stdout
    assert "debug: " in verbose.stderr and "Debug source" in verbose.stderr
