"""The budget counter: a word the tokenizer would reduce to one unknown token is counted as
long as it is, so nothing unread hides inside a chunk."""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer

from minirag_index import Embedder
from minirag_index.tokens import make_token_counter


def raw_counter(model_dir: Path):
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer, make_token_counter(tokenizer)


def test_ordinary_text_counts_what_the_tokenizer_counts(model_dir: Path) -> None:
    tokenizer, count = raw_counter(model_dir)
    text = "The pump station at Riverside was inspected in March."
    assert count(text) == len(tokenizer.encode(text).ids)


def test_a_word_past_the_tokenizers_limit_counts_a_token_per_character(model_dir: Path) -> None:
    tokenizer, count = raw_counter(model_dir)
    run = "Q7x" * 700  # 2,100 characters without whitespace
    assert len(tokenizer.encode(run).ids) == 3, "the tokenizer alone sees one unknown token"
    assert count(run) >= len(run)
    assert count(f"before {run} after") >= len(run) + 2


def test_the_embedders_counter_is_that_counter(model_dir: Path, tmp_path: Path) -> None:
    count = Embedder(str(model_dir), tmp_path).token_counter()
    assert count("z" * 5000) >= 5000


def test_a_passage_prefix_is_counted_with_each_text(model_dir: Path) -> None:
    tokenizer, _ = raw_counter(model_dir)
    count = make_token_counter(tokenizer, prefix="passage: ")
    text = "The pump station at Riverside was inspected in March."
    assert count(text) == len(tokenizer.encode("passage: " + text).ids)
    assert count("Q7x" * 700) > 2100, "a long word still counts a token per character"
