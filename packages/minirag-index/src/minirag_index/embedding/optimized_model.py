"""A copy of the embedding model that onnxruntime has already optimised, kept under CACHE_DIR.

Why: the int8 MiniLM stores its weights as int8 tensors that the graph multiplies back into
float32 at every run; onnxruntime's graph optimisation folds those into float32 weights (90 MB
for a 23 MB file) when it loads the model, and while it does that the process holds the file,
the int8 weights and the float32 ones at once: loading took a process from 45 to a peak of 260
MiB and settled at 143. That peak was the highest point of a server's whole sync. Loading a
copy saved after that optimisation, its weights in a file of their own beside it, peaks at 99
MiB and settles at 97: onnxruntime maps the weights file instead of building the tensors, and
the runs are as fast (docs/benchmarks.md, "Memory, issue 22").

The copy is made once per model file and onnxruntime version, in a child process, so the
optimisation's own peak never happens in the server; it is saved at the basic level (constant
folding and other rewrites that do not depend on the machine), and the full optimisation still
runs on the copy when it loads. Anything that goes wrong making the copy leaves the model
loading from its own file, as before, with a warning saying why.

Only a model whose optimised weights come out much larger than its file keeps a copy: for a
float32 model (fastembed's default) the copy would double the disk it takes for little, so a
small note records that the model loads from its own file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

MODEL_FILE = "model.onnx"
WEIGHTS_FILE = "model.weights"
# Written last: "copy" (the copy is whole) or "original" (none kept), then the model's path.
READY_FILE = "ready"
# A copy is kept when its weights take more than this many times the model's own files.
_WORTH_GROWTH = 1.5
_FORMAT = "2"  # bump when what is saved changes
_MAKE_TIMEOUT_SECONDS = 600.0
_CHILD = (
    "import sys; from pathlib import Path; from minirag_index.embedding.optimized_model import "
    "save_optimized; save_optimized(Path(sys.argv[1]), Path(sys.argv[2]))"
)
_failed: set[Path] = set()  # sources whose copy could not be made: not retried in this process


def _runtime_version() -> str:
    import onnxruntime as ort  # type: ignore[import-untyped]

    return str(ort.__version__)


def _model_files(model: Path) -> list[Path]:
    """``model`` and the files beside it that can hold its external weights."""
    return [
        path
        for path in sorted(model.parent.iterdir())
        if path == model or path.suffix in (".data", ".onnx_data", ".bin", ".weights")
    ]


def copy_key(model: Path) -> str:
    """Names the copy of ``model``: its path, size and modification time, the model's other
    files in its folder (external weights), and the onnxruntime version that optimised it."""
    digest = hashlib.blake2b(digest_size=10)
    digest.update(f"{_FORMAT}\0{_runtime_version()}\0{model.resolve()}\0".encode())
    for path in _model_files(model):
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def optimized_copy(model: Path, cache_dir: Path) -> Path | None:
    """The optimised copy of ``model`` under ``cache_dir``, made now if it is missing; None
    when the model is better loaded from its own file, or the copy cannot be made."""
    model = Path(model)
    if model in _failed:
        return None
    try:
        folder = Path(cache_dir) / "optimized" / copy_key(model)
        copy = folder / MODEL_FILE
        ready = _ready_note(folder)
        if ready is None:
            shutil.rmtree(folder, ignore_errors=True)  # a damaged note: made again
            folder.parent.mkdir(parents=True, exist_ok=True)
            _make(model, folder)
            _forget_older_copies(model, folder)
            ready = _read_ready(folder)
        return copy if ready[0] else None
    except (OSError, ValueError, subprocess.SubprocessError, RuntimeError) as exc:
        _failed.add(model)
        log.warning(
            "The embedding model %s loads without its optimised copy under %s (%s); it "
            "works as before, with a higher memory peak while it loads.",
            model,
            Path(cache_dir) / "optimized",
            exc,
        )
        return None


def _ready_note(folder: Path) -> tuple[bool, str] | None:
    """:func:`_read_ready`, or None when there is no readable note."""
    try:
        return _read_ready(folder)
    except (OSError, UnicodeDecodeError):
        return None


def _read_ready(folder: Path) -> tuple[bool, str]:
    """Whether ``folder`` keeps a copy, and the model file it was made from."""
    kept, _, source = (folder / READY_FILE).read_text(encoding="utf-8").partition("\n")
    return kept.strip() == "copy", source.strip()


def _forget_older_copies(model: Path, made: Path) -> None:
    """Delete the copies of ``model`` made before ``made`` (an older file, another
    onnxruntime) and those whose model file is gone: each takes as much disk as the weights."""
    for folder in made.parent.iterdir():
        ready = None if folder == made or folder.name.startswith(".") else _ready_note(folder)
        if ready is None:
            continue
        source = ready[1]
        if source == str(model.resolve()) or not Path(source).is_file():
            shutil.rmtree(folder, ignore_errors=True)


def _make(model: Path, folder: Path) -> None:
    """Optimise ``model`` into ``folder`` in a child process, written to a temporary folder
    first so a copy is either whole or absent, whoever else makes it at the same time."""
    work = Path(tempfile.mkdtemp(prefix=".making-", dir=folder.parent))
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(model), str(work)],
            capture_output=True,
            text=True,
            timeout=_MAKE_TIMEOUT_SECONDS,
            check=False,
        )
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise RuntimeError(lines[-1] if lines else f"exit status {done.returncode}")
        try:
            os.rename(work, folder)
        except OSError:
            if not (folder / READY_FILE).is_file():  # not another process's finished copy
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def save_optimized(model: Path, folder: Path) -> None:
    """What the child process does: load ``model`` with the basic optimisations and save the
    result as ``folder/model.onnx`` with its weights in ``folder/model.weights``, kept only
    when those weights outgrew the model's files (see the module docstring)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folder / MODEL_FILE)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", WEIGHTS_FILE
    )
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "1024"
    )
    ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    if not (folder / MODEL_FILE).is_file():
        raise RuntimeError(f"onnxruntime saved no optimised model in {folder}")
    saved = sum(path.stat().st_size for path in folder.iterdir())
    original = sum(path.stat().st_size for path in _model_files(model))
    kept = saved > _WORTH_GROWTH * original
    if not kept:
        for path in folder.iterdir():
            path.unlink()
    ready = f"{'copy' if kept else 'original'}\n{model.resolve()}\n"
    (folder / READY_FILE).write_text(ready, encoding="utf-8")
