"""onnxruntime's telemetry is off before onnxruntime loads in a process that loads an embedding
model through minirag_index (the namespace test in minirag-server shows what it did otherwise);
importing the package alone sets nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
    )


def test_loading_a_model_turns_it_off_first_even_when_asked_on(
    model_dir: Path, tmp_path: Path
) -> None:
    done = run(
        "import os, sys, minirag_index\n"
        "before = os.environ['ORT_DISABLE_TELEMETRY'], 'onnxruntime' in sys.modules\n"
        f"e = minirag_index.Embedder({str(model_dir)!r}, {str(tmp_path)!r})\n"
        "e.embed_query('x')\n"
        "print(*before, os.environ['ORT_DISABLE_TELEMETRY'], 'onnxruntime' in sys.modules)",
        ORT_DISABLE_TELEMETRY="0",
    )
    # import sets nothing; loading the model sets it, before onnxruntime is imported
    assert done.stdout.split() == ["0", "False", "1", "True"]
