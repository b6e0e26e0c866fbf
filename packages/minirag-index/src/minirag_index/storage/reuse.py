"""Vectors for passages, embedding only the ones the index does not hold yet.

A chunk is embedded from its exact text, so a chunk whose text the index already holds,
embedded by the same model, has its vector there: a document re-read after a one-paragraph
edit, a second copy under another name, a new version sharing most of its paragraphs. Each is
found by its passage key (:func:`minirag_index.embedding.model_spec.passage_key`), which names the
model
too, so a vector is never reused across models. Texts repeated within one call are embedded
once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from minirag_index.embedding.model_spec import ModelSpec, passage_key

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
