"""Counting tokens the way the encoder will see them, for the chunk budget.

A WordPiece tokenizer (the BERT family, MiniLM among them) gives up on a word longer than its
``max_input_chars_per_word`` (100 characters) and emits a single unknown token for all of it.
Counted as is, a 2 MB run without whitespace - a base64 blob, a minified script - is "3
tokens" and would be stored as one chunk holding two million characters the encoder never
reads. Here such a word counts one token per character instead, an upper bound that makes the
chunker cut it into pieces short enough for the tokenizer to read for real.

A long text is counted in pieces of at most :data:`PIECE_CHARS` characters, cut after a space
or line break where there is one. The tokenizer keeps several records per token until
the call returns: counting 5,000,000 ">" in one call took 2.7 GB, and the freed Rust heap stayed
resident. No token crosses whitespace, so the pieces add up to the same count; a run without
whitespace cut in two may count a token or two more, never fewer than it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

PIECE_CHARS = 20_000


def make_token_counter(tokenizer: Any, prefix: str = "") -> Callable[[str], int]:
    """A counter over a ``tokenizers.Tokenizer`` that already has truncation and padding off.

    ``prefix`` (a model's passage prefix, such as e5's "passage: ") is counted with each text,
    as the model will read it."""
    model = tokenizer.model
    longest = getattr(model, "max_input_chars_per_word", None)
    unknown = getattr(model, "unk_token", None)
    unknown_id = tokenizer.token_to_id(unknown) if longest and unknown else None

    def count_one(text: str, add_special_tokens: bool = True) -> int:
        encoding = tokenizer.encode(text, add_special_tokens=add_special_tokens)
        ids = encoding.ids
        if unknown_id is None or unknown_id not in ids:
            return len(ids)
        total = len(ids)
        for token_id, (start, end) in zip(ids, encoding.offsets, strict=True):
            if token_id == unknown_id and end - start > longest:
                total += end - start - 1
        return total

    def count(text: str) -> int:
        if len(text) <= PIECE_CHARS:
            return count_one(prefix + text)
        total = count_one(prefix)  # the prefix and the special tokens, once
        return total + sum(count_one(piece, False) for piece in pieces(text, PIECE_CHARS))

    return count


def pieces(text: str, size: int) -> Iterator[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, each cut just after the
    last space or line break in its second half, or at ``size`` when that half has none."""
    start = 0
    while len(text) - start > size:
        end = start + size
        cut = max(text.rfind(" ", start + size // 2, end), text.rfind("\n", start + size // 2, end))
        end = cut + 1 if cut >= 0 else end
        yield text[start:end]
        start = end
    if start < len(text):
        yield text[start:]
