"""onnxruntime session settings that fastembed does not expose, applied to the sessions it
creates.

Spinning: onnxruntime's intra-op threads spin for a while after each run, waiting for the next
one, which keeps every core busy. A search embeds its query while its keyword search and vector
scan run beside it, and on two cores the spinning took their CPU: the in-process search of the
XQuAD index went from 8.2-12.7 to 6.6-8.2 ms at the median and 11.5-19.7 to 8.3-10.4 ms at p95
with spinning off, at 17k chunks from 15.4-23.0 to 11.4-13.0 ms, while a sync of the same
240 paragraphs took as long (10.1-10.5 against 10.0-10.2 s; docs/benchmarks.md, "Query path:
onnxruntime's threads no longer spin"). Through the MCP server the difference was within the
noise of the runs.

fastembed builds its ``SessionOptions`` and its ``InferenceSession`` inside its loader, so while
a model loads, the ``onnxruntime`` it refers to is one whose ``SessionOptions`` comes with these
entries set, and whose ``InferenceSession`` loads the already-optimised copy of the model file
when one can be had (:mod:`minirag_index.embedding.optimized_model`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from minirag_index.embedding.optimized_model import optimized_copy

SESSION_CONFIG = {"session.intra_op.allow_spinning": "0"}


def _options_with(runtime: Any, entries: dict[str, str]) -> Any:
    """New session options of ``runtime`` carrying the config ``entries``."""
    options = runtime.SessionOptions()
    for key, value in entries.items():
        options.add_session_config_entry(key, value)
    return options


class _ConfiguredRuntime:
    """onnxruntime, except that new session options carry ``entries`` and, with a
    ``cache_dir``, a session loads the optimised copy of its model file."""

    def __init__(self, runtime: Any, entries: dict[str, str], cache_dir: Path | None) -> None:
        self._runtime = runtime
        self._entries = entries
        self._cache_dir = cache_dir

    def __getattr__(self, name: str) -> Any:
        return getattr(self._runtime, name)

    def SessionOptions(self) -> Any:  # the name fastembed calls
        return _options_with(self._runtime, self._entries)

    def InferenceSession(self, path_or_bytes: Any, *args: Any, **kwargs: Any) -> Any:
        if self._cache_dir is not None and isinstance(path_or_bytes, (str, Path)):
            copy = optimized_copy(Path(path_or_bytes), self._cache_dir)
            if copy is not None:
                path_or_bytes = str(copy)
        return self._runtime.InferenceSession(path_or_bytes, *args, **kwargs)


def folder_session(model: Path, cache_dir: Path, threads: int) -> tuple[Any, Path]:
    """Session options and the model file for a session this project creates itself (a model
    folder's, see :mod:`minirag_index.embedding.folder_encoder`): fastembed's settings (all graph
    optimisations, ``threads`` intra- and inter-op threads) with :data:`SESSION_CONFIG`, and
    the optimised copy of ``model`` when one can be had."""
    import onnxruntime as ort  # type: ignore[import-untyped]

    options = _options_with(ort, SESSION_CONFIG)
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = threads
    return options, optimized_copy(model, cache_dir) or model


@contextlib.contextmanager
def configured_sessions(
    entries: dict[str, str] = SESSION_CONFIG, cache_dir: Path | None = None
) -> Iterator[None]:
    """Sessions fastembed creates inside the block get ``entries`` and, with ``cache_dir``,
    load the optimised copy of their model kept there; elsewhere nothing changes.
    Not thread-safe against another model load at the same time (the embedder loads under
    its lock). With a fastembed laid out otherwise, its defaults stay."""
    try:
        from fastembed.common import onnx_model as loaded
    except ImportError:
        yield
        return
    onnx_model: Any = loaded
    runtime = getattr(onnx_model, "ort", None)
    if runtime is None:
        yield
        return
    onnx_model.ort = _ConfiguredRuntime(runtime, entries, cache_dir)
    try:
        yield
    finally:
        onnx_model.ort = runtime
