"""Counting tokens the way the encoder will see them, for the chunk budget.

A WordPiece tokenizer (the BERT family, MiniLM among them) gives up on a word longer than its
``max_input_chars_per_word`` (100 characters) and emits a single unknown token for all of it.
Counted as is, a 2 MB run without whitespace - a base64 blob, a minified script - is "3
tokens" and would be stored as one chunk holding two million characters the encoder never
reads. Here such a word counts one token per character instead, an upper bound that makes the
chunker cut it into pieces short enough for the tokenizer to read for real.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def make_token_counter(tokenizer: Any, prefix: str = "") -> Callable[[str], int]:
    """A counter over a ``tokenizers.Tokenizer`` that already has truncation and padding off.

    ``prefix`` (a model's passage prefix, such as e5's "passage: ") is counted with each text,
    as the model will read it."""
    model = tokenizer.model
    longest = getattr(model, "max_input_chars_per_word", None)
    unknown = getattr(model, "unk_token", None)
    unknown_id = tokenizer.token_to_id(unknown) if longest and unknown else None

    def count(text: str) -> int:
        encoding = tokenizer.encode(prefix + text)
        ids = encoding.ids
        if unknown_id is None or unknown_id not in ids:
            return len(ids)
        total = len(ids)
        for token_id, (start, end) in zip(ids, encoding.offsets, strict=True):
            if token_id == unknown_id and end - start > longest:
                total += end - start - 1
        return total

    return count
