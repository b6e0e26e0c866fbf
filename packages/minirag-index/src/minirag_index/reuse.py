"""Vectors for passages, embedding only the ones the index does not hold yet.

A chunk is embedded from its exact text, so a chunk whose text the index already holds,
embedded by the same model, has its vector there: a document re-read after a one-paragraph
edit, a second copy under another name, a new version sharing most of its paragraphs. Each is
found by its passage key (:func:`minirag_index.model_spec.passage_key`), which names the model
too, so a vector is never reused across models. Texts repeated within one call are embedded
once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from minirag_index.model_spec import ModelSpec, passage_key

Lookup = Callable[[Iterable[str]], dict[str, Any]]
Embed = Callable[[Sequence[str]], Sequence[Any]]


def passage_vectors(
    texts: Sequence[str],
    model: ModelSpec,
    stored: Lookup,
    embed: Embed,
    *,
    slice_size: int,
    on_embedded: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """One vector per text, in order: the stored one (``stored`` maps passage keys to the
    vectors the index holds), else one ``embed`` made, ``slice_size`` texts per call.

    ``on_embedded(done, total)`` follows each call when the new texts take more than one."""
    keys = [passage_key(model, text) for text in texts]
    vectors = stored(keys) if keys else {}
    text_of = dict(zip(keys, texts, strict=True))
    new = [key for key in dict.fromkeys(keys) if key not in vectors]
    for start in range(0, len(new), slice_size):
        part = new[start : start + slice_size]
        vectors.update(zip(part, embed([text_of[key] for key in part]), strict=True))
        if on_embedded is not None and len(new) > slice_size:
            on_embedded(start + len(part), len(new))
    return [vectors[key] for key in keys]


_MERGE_ADDED = 4096  # keys told since the last merge, kept in a set until there are more


class KnownPassages:
    """Whether the index holds a vector for a chunk text: a hint for the chunker, which ends a
    piece of a long paragraph where it would read exactly as a stored chunk (docs/chunking.md,
    "Cuts the index already holds"), so that text added at a paragraph's end leaves the chunks
    before it as they were.

    The index's passage keys are read on first use (the first 8 bytes of each, sorted: 0.8 MB
    for 100k chunks) and every text stored through the same index is added, so most texts are
    answered "no" without asking the index. A "yes" is confirmed by the index itself
    (``holds``): the chunk may have been deleted since. A chunk another process stored may be
    missed; that only leaves a cut where the document alone puts it."""

    def __init__(
        self,
        model: ModelSpec,
        load: Callable[[], Iterable[str]],
        holds: Callable[[str], bool],
    ) -> None:
        self._model = model
        self._load = load
        self._holds = holds
        self._loaded: Any = None  # numpy uint64 array, sorted
        self._added: set[int] = set()
        self._lock = threading.Lock()

    @staticmethod
    def _short(key: str) -> int:
        return int(key[:16], 16)

    def _seen(self, short: int) -> bool:
        import numpy as np

        with self._lock:
            if self._loaded is None:
                shorts = [self._short(key) for key in self._load()]
                self._loaded = np.unique(np.array(shorts, dtype=np.uint64))
            if short in self._added:
                return True
            at = int(np.searchsorted(self._loaded, np.uint64(short)))
            return at < len(self._loaded) and int(self._loaded[at]) == short

    def __contains__(self, text: object) -> bool:
        if not isinstance(text, str):
            return False
        key = passage_key(self._model, text)
        return self._seen(self._short(key)) and self._holds(key)

    def add(self, texts: Iterable[str]) -> None:
        shorts = {self._short(passage_key(self._model, text)) for text in texts}
        with self._lock:
            self._added |= shorts
            if self._loaded is not None and len(self._added) > _MERGE_ADDED:
                import numpy as np  # a long sync's keys, 8 bytes each rather than ~70 in a set

                added = np.fromiter(self._added, dtype=np.uint64, count=len(self._added))
                self._loaded = np.union1d(self._loaded, added)
                self._added.clear()
