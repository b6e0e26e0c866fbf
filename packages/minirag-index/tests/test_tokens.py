"""The budget counter: a word the tokenizer would reduce to one unknown token is counted as
long as it is, so nothing unread hides inside a chunk."""

from __future__ import annotations

from pathlib import Path

from tokenizers import Tokenizer

from minirag_index import Embedder
from minirag_index.text.tokens import PIECE_CHARS, make_token_counter, pieces


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


class Spy:
    """A tokenizer that records the longest text it was handed."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer, self.model, self.longest = tokenizer, tokenizer.model, 0

    def token_to_id(self, token: str) -> int | None:
        return self.tokenizer.token_to_id(token)

    def encode(self, text: str, add_special_tokens: bool = True):
        self.longest = max(self.longest, len(text))
        return self.tokenizer.encode(text, add_special_tokens=add_special_tokens)


PROSE = (
    "The pump station at Riverside was inspected in March, and the report\n"
    "listed three valves (two of them corroded) for replacement before winter. "
)


def test_a_long_text_is_counted_in_pieces_with_the_same_result(model_dir: Path) -> None:
    tokenizer, _ = raw_counter(model_dir)
    spy = Spy(tokenizer)
    for prefix in ("", "passage: "):
        count = make_token_counter(spy, prefix=prefix)  # type: ignore[arg-type]
        for text in (PROSE * 1000, "-" * 70_000, "Longline " + PROSE.replace("\n", " ") * 900):
            whole = len(tokenizer.encode(prefix + text).ids)
            assert count(text) == whole, (prefix, text[:20])
    # no call saw the whole text: the tokenizer's memory follows the piece, not the text
    assert spy.longest <= PIECE_CHARS + len("passage: ")


def test_a_long_run_without_whitespace_still_counts_a_token_per_character(
    model_dir: Path,
) -> None:
    _, count = raw_counter(model_dir)
    run = "Q7x" * 30_000
    assert count(run) >= len(run)


def test_pieces_cover_the_text_and_cut_after_a_space() -> None:
    text = ("word " * 30 + "\n") * 200 + "x" * 1000
    parts = list(pieces(text, 500))
    assert "".join(parts) == text
    assert all(len(p) <= 500 for p in parts)
    assert all(p[-1] in " \n" for p in parts[:-3])
