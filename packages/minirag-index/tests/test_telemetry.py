"""onnxruntime's telemetry is off in every process that imports minirag_index, before onnxruntime
loads (the namespace test in minirag-server shows what it did otherwise)."""

from __future__ import annotations

import os
import subprocess
import sys


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )


def test_importing_the_index_turns_it_off_even_when_asked_on() -> None:
    done = run(
        "import os, sys, minirag_index; "
        "print(os.environ['ORT_DISABLE_TELEMETRY'], 'onnxruntime' in sys.modules)",
        ORT_DISABLE_TELEMETRY="0",
    )
    assert done.stdout.split() == ["1", "False"], "set before onnxruntime is loaded"


def test_onnxruntime_loaded_first_is_warned_about() -> None:
    done = run(
        "import logging; logging.basicConfig(); import onnxruntime, minirag_index",
        ORT_DISABLE_TELEMETRY="",
    )
    assert "ORT_DISABLE_TELEMETRY=1" in done.stderr
