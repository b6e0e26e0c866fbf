"""Look-alike signatures and the LSH index."""

from __future__ import annotations

import random
import subprocess
import sys
import unicodedata

import numpy as np
import pytest

from minirag_index.search.lookalike import (
    EMPTY_SIGNATURE,
    LOOKALIKE_THRESHOLD,
    SIGNATURE_BYTES,
    LookAlikeIndex,
    overlap,
    shingles,
    signature,
    signature_bytes,
    signature_from_bytes,
)


def random_words(n: int, seed: int, alphabet: str = "абвгдежзиклмнопрстуфхцчшэюя") -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(4, 9))) for _ in range(n)]


def true_jaccard(a: str, b: str) -> float:
    sa, sb = set(shingles(a)), set(shingles(b))
    return len(sa & sb) / len(sa | sb)


def edited_copy(words: list[str], every: int, seed: int) -> list[str]:
    """Replace one word in every ``every`` words, spread evenly."""
    replacements = random_words(len(words) // every + 1, seed)
    out = list(words)
    for k, i in enumerate(range(every // 2, len(out), every)):
        out[i] = replacements[k]
    return out


# --------------------------------------------------------------------------- signatures


def test_shingles_are_five_word_runs_of_folded_text():
    assert set(shingles("Раз два ТРИ четыре пять шесть")) == set(
        shingles("раз  два\nтри, четыре — пять; шесть")
    )
    assert set(shingles("a b c d e f")) == {b"a b c d e", b"b c d e f"}
    assert shingles("only three words") == [b"only three words"]
    assert shingles("  ... ") == []
    assert set(shingles(unicodedata.normalize("NFD", "Ёлка й ё ж з и"))) == set(
        shingles("елка й е ж з и")
    )


def test_signature_bytes_roundtrip_and_determinism():
    text = " ".join(random_words(300, 1))
    a, b = signature_bytes(text), signature_bytes(text)
    assert a == b
    assert len(a) == SIGNATURE_BYTES
    values = signature_from_bytes(a)
    assert values.dtype == np.uint32 and values.shape == (128,)
    assert np.array_equal(values, signature(text))
    with pytest.raises(ValueError):
        signature_from_bytes(a[:-1])


def test_signature_is_the_same_in_another_process():
    text = "Договор поставки номер 15 от первого марта, стороны согласовали условия"
    code = (
        "import sys; from minirag_index.search.lookalike import signature_bytes; "
        "sys.stdout.write(signature_bytes(sys.argv[1]).hex())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, text], check=True, capture_output=True, text=True
    ).stdout
    assert bytes.fromhex(out) == signature_bytes(text)


def test_empty_text_has_the_empty_signature():
    assert signature_bytes("") == EMPTY_SIGNATURE
    assert signature_bytes("—  ,") == EMPTY_SIGNATURE
    assert overlap(EMPTY_SIGNATURE, EMPTY_SIGNATURE) == 0.0


def test_overlap_estimates_jaccard():
    words = random_words(1000, 2)
    base = " ".join(words)
    assert overlap(signature_bytes(base), signature_bytes(base)) == 1.0
    copy = " ".join(edited_copy(words, 28, seed=3))
    truth = true_jaccard(base, copy)
    assert 0.65 <= truth <= 0.75
    assert abs(overlap(signature_bytes(base), signature_bytes(copy)) - truth) < 0.15


# --------------------------------------------------------------------------- index


def build(texts: dict[str, str]) -> LookAlikeIndex:
    return LookAlikeIndex({source: signature_bytes(text) for source, text in texts.items()})


def test_edited_copy_and_original_name_each_other():
    words = random_words(1200, 10)
    base = " ".join(words)
    # One word in 28 replaced (about 3.5%): each edit breaks the five runs through it, so the
    # five-word-run Jaccard is about (1 - 5/28) / (1 + 5/28) = 0.70.
    copy = " ".join(edited_copy(words, 28, seed=11))
    assert 0.65 <= true_jaccard(base, copy) <= 0.75
    unrelated = {f"/docs/other{i}.md": " ".join(random_words(400, 100 + i)) for i in range(20)}
    index = build({"/docs/v1.md": base, "/docs/archive/v2.md": copy, **unrelated})
    v1 = index.look_alikes("/docs/v1.md")
    v2 = index.look_alikes("/docs/archive/v2.md")
    assert [s for s, _ in v1] == ["/docs/archive/v2.md"]
    assert [s for s, _ in v2] == ["/docs/v1.md"]
    assert v1[0][1] == v2[0][1] >= LOOKALIKE_THRESHOLD
    assert 0.55 <= v1[0][1] <= 0.85
    for source in unrelated:
        assert index.look_alikes(source) == []


def test_short_text_contained_in_three_times_longer_is_not_flagged():
    words = random_words(1500, 20)
    short = " ".join(words[500:1000])
    long = " ".join(words)
    assert 0.3 <= true_jaccard(short, long) <= 0.36
    index = build({"short": short, "long": long})
    assert index.look_alikes("short") == []
    assert index.look_alikes("long") == []


def test_unrelated_documents_are_not_flagged_english_and_russian():
    texts = {
        "en1": "The quarterly report covers revenue, costs and the outlook for the next year "
        "in every region where the company operates, with tables for each market.",
        "en2": "Installation guide: download the package, unpack it into a folder of your "
        "choice, then run the setup script and follow the prompts on the screen.",
        "ru1": "Отчёт о проделанной работе за третий квартал включает сведения о закупках, "
        "расходах на персонал и планах на следующий год по всем направлениям.",
        "ru2": "Инструкция по установке: скачайте архив, распакуйте его в любую папку, "
        "затем запустите программу установки и следуйте подсказкам на экране.",
    }
    index = build(texts)
    for source in texts:
        assert index.look_alikes(source) == []


def test_ranking_limit_and_self_exclusion():
    words = random_words(1000, 30)
    docs = {"orig": " ".join(words)}
    # Progressively more edited copies: fewer edits, more overlap.
    for name, every in (("close", 200), ("mid", 60), ("far", 35), ("farther", 30)):
        docs[name] = " ".join(edited_copy(words, every, seed=every))
    index = build(docs)
    alikes = index.look_alikes("orig", limit=None)
    names = [s for s, _ in alikes]
    assert "orig" not in names
    assert names[:2] == ["close", "mid"]
    scores = [o for _, o in alikes]
    assert scores == sorted(scores, reverse=True)
    assert all(o >= LOOKALIKE_THRESHOLD for o in scores)
    assert len(index.look_alikes("orig")) <= 3
    assert len(index.look_alikes("orig", limit=1)) == 1
    assert "orig" in index.sources_with_look_alikes()


def test_identical_documents_overlap_fully():
    text = " ".join(random_words(50, 40))
    index = build({"a": text, "b": text, "c": " ".join(random_words(50, 41))})
    assert index.look_alikes("a") == [("b", 1.0)]


def test_unknown_empty_and_none_signatures_are_skipped():
    text = " ".join(random_words(50, 50))
    index = LookAlikeIndex(
        {"a": signature_bytes(text), "b": signature(text), "empty": EMPTY_SIGNATURE, "none": None}
    )
    assert len(index) == 2
    assert "empty" not in index and "none" not in index
    assert index.look_alikes("empty") == []
    assert index.look_alikes("nowhere") == []
    assert index.look_alikes("a") == [("b", 1.0)]
    assert LookAlikeIndex({}).look_alikes("a") == []


def test_signing_and_looking_up_import_neither_datasketch_scipy_nor_converters():
    # datasketch's package imports scipy: 53 MiB and over a second, in the process that syncs.
    code = (
        "import sys\n"
        "from minirag_index.search.lookalike import LookAlikeIndex, EMPTY_SIGNATURE\n"
        "from minirag_index.search.lookalike import signature_bytes\n"
        "assert signature_bytes('a text of a few more than five words') != EMPTY_SIGNATURE\n"
        "from minirag_index.search.mentions import build_corpus, find_mentions\n"
        "sig = bytes([1]) + bytes(range(128)) * 4\n"
        "index = LookAlikeIndex({'a': sig, 'b': sig, 'c': EMPTY_SIGNATURE})\n"
        "assert index.look_alikes('a') == [('b', 1.0)]\n"
        "find_mentions(build_corpus([('a', 'A', 0, 'акт', 0, None)]), ['акт'])\n"
        "loaded = ('datasketch.minhash', 'datasketch.lsh', 'scipy', 'markitdown', 'mcp')\n"
        "loaded += ('fastmcp',)\n"
        "bad = [m for m in loaded if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_signatures_are_datasketchs_affine32_minhash_value_for_value():
    # Signatures stored by earlier versions (datasketch's MinHash) stay comparable with new ones.
    from datasketch import MinHash

    from minirag_index.search.lookalike import HASH_BATCH, NUM_PERM, SEED

    rng = random.Random(7)
    texts = [
        "",
        "one",
        "four words in all",
        "exactly five words stand here",
        "Ünïcode façade — naïve café, 東京 and Ελληνικά words repeated repeated repeated",
        *(" ".join(random_words(rng.randint(6, 400), seed)) for seed in range(40)),
        " ".join(random_words(HASH_BATCH + 500, 99, "abcdefghij")),  # more than one batch
    ]
    for text in texts:
        theirs = MinHash(num_perm=NUM_PERM, seed=SEED, scheme="affine32")
        theirs.update_batch(shingles(text))
        expected = np.asarray(theirs.hashvalues, dtype=np.uint32)
        assert np.array_equal(signature(text), expected), text[:60]
