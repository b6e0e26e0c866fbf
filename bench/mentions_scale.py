"""find_mentions at scale: N synthetic chunks in a real index, first call, p50, memory.

    uv run python bench/mentions_scale.py 100000            # writes bench/out/mentions_<N>/
    uv run python bench/mentions_scale.py 1000000 --verify  # also checks answers (slow)

The index is written once through ``Store.replace_sources`` without embedding (random unit
vectors), then optimised as a sync leaves it. Text is drawn from a Zipf vocabulary of
Russian-like (three quarters) and English-like word forms: stems built from syllables, many of
them behind a common prefix (про-, пере-, con-…), with inflected endings; most chunks repeat
their section's heading as context. Each later run measures in a fresh process: the first
find_mentions after opening the index (it builds the per-version view) and the median of
about 50 queries over terms of every frequency (open stems, quoted word forms, phrases, two
terms with match all/any), then the process's resident memory. ``--verify`` afterwards compares
each query's counts with the whole-corpus fold (the former implementation, itself checked
against a brute-force scan by tests/test_mentions_exhaustive.py).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from minirag_index import ChunkInput, IndexSettings, MiniragIndex, SourceDoc, tune_process_memory

tune_process_memory()  # measured as the server runs: its entry point tunes its process

OUT = Path(__file__).parent / "out"
DIM = 384
VOCABULARY = 60_000
WORDS_PER_CHUNK = 70
COMMIT_CHUNKS = 20_000
RU_PREFIXES = ["про", "пре", "пере", "под", "при", "раз", "вы", "за", "на", "со", "от", "по"]
EN_PREFIXES = ["con", "pro", "re", "de", "in", "ex", "pre", "sub"]
RU_ENDINGS = ["", "а", "у", "ом", "е", "ы", "ов", "ам", "ами", "ах", "ой", "ей", "и", "ого"]
EN_ENDINGS = ["", "s", "ed", "ing", "er", "ion"]


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def vocabulary(rng: np.random.Generator) -> list[str]:
    """Word forms, most frequent first."""
    ru_c, ru_v = "бвгдзклмнпрстфхцчш", "аеиоуыяё"
    en_c, en_v = "bcdfghklmnprstvw", "aeiou"
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < VOCABULARY:
        russian = rng.random() < 0.75
        cons, vows, prefixes, endings = (
            (ru_c, ru_v, RU_PREFIXES, RU_ENDINGS)
            if russian
            else (en_c, en_v, EN_PREFIXES, EN_ENDINGS)
        )
        stem = "".join(
            rng.choice(list(cons)) + rng.choice(list(vows)) for _ in range(rng.integers(1, 4))
        ) + rng.choice(list(cons))
        if rng.random() < 0.4:
            stem = rng.choice(prefixes) + stem
        for ending in rng.choice(endings, size=int(rng.integers(1, 5)), replace=False):
            word = stem + ending
            if word not in seen:
                seen.add(word)
                words.append(word)
    return words[:VOCABULARY]


def zipf_p(n: int) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** 1.07
    return p / p.sum()


def documents(n_chunks: int, seed: int = 0) -> Any:
    """Yield (doc, chunks) until ``n_chunks`` chunks are made."""
    rng = np.random.default_rng(seed)
    vocab = np.asarray(vocabulary(rng), dtype=object)
    p = zipf_p(len(vocab))
    made = 0
    d = 0
    while made < n_chunks:
        count = min(int(rng.integers(1, 21)), n_chunks - made)
        picks = rng.choice(len(vocab), size=(count, WORDS_PER_CHUNK), p=p)
        heads = rng.choice(len(vocab), size=(count, 4), p=p)
        chunks = []
        section = 0
        heading = ""
        for i in range(count):
            if i == 0 or rng.random() < 0.2:
                section += 1
                heading = "## " + " ".join(vocab[heads[i][: rng.integers(1, 5)]]).capitalize()
            words = list(vocab[picks[i]])
            for j in range(0, len(words), 12):
                words[j] = words[j].capitalize()
            body = " ".join(words) + "."
            if rng.random() < 0.7:
                chunks.append(ChunkInput(heading + "\n" + body, len(heading) + 1, section=section))
            else:
                chunks.append(ChunkInput(body, section=section))
        title = " ".join(vocab[rng.choice(len(vocab), size=3, p=p)]).capitalize()
        yield SourceDoc(f"/bench/docs/{d // 1000:03d}/{d:07d}.md", title=title), chunks
        made += count
        d += 1


def write(index: MiniragIndex, n_chunks: int) -> None:
    rng = np.random.default_rng(1)
    batch: list[Any] = []
    pending = 0
    started = time.perf_counter()

    def flush() -> None:
        vectors = rng.standard_normal((pending, DIM)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        at = 0
        items = []
        for doc, chunks in batch:
            items.append((doc, chunks, vectors[at : at + len(chunks)]))
            at += len(chunks)
        index.store.replace_sources(items)

    done = 0
    for doc, chunks in documents(n_chunks):
        batch.append((doc, chunks))
        pending += len(chunks)
        if pending >= COMMIT_CHUNKS:
            flush()
            done += pending
            batch, pending = [], 0
            print(f"  {done:,} chunks written, {time.perf_counter() - started:.0f} s", flush=True)
    if batch:
        flush()
    index.store.optimize()
    print(f"written and optimised in {time.perf_counter() - started:.0f} s", flush=True)


def queries(seed: int = 3) -> list[tuple[list[str], str]]:
    """About 50 queries over terms of every frequency."""
    rng = np.random.default_rng(seed)
    vocab = vocabulary(np.random.default_rng(0))
    ranks = sorted({int(r) for r in np.geomspace(1, len(vocab) - 1, 30)})
    out: list[tuple[list[str], str]] = []
    for k, r in enumerate(ranks):
        word = vocab[r]
        if k % 3 == 0:
            out.append(([word[: max(3, len(word) - 2)]], "all"))  # an open stem
        elif k % 3 == 1:
            out.append(([f'"{word}"'], "all"))
        else:
            out.append(([word.upper()], "all"))
    for _ in range(8):
        a, b = (vocab[int(i)] for i in rng.integers(0, 2000, size=2))
        out.append(([f"{a} {b}"], "all"))  # a phrase, mostly absent
    for _ in range(8):
        a, b = (vocab[int(i)] for i in rng.integers(0, 20_000, size=2))
        out.append(([a, b], "any" if rng.random() < 0.5 else "all"))
    out.append((["ё"], "all"))  # no prefix narrows it: every chunk is read
    out.append((["несуществующееслово"], "all"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("chunks", type=int, nargs="?", default=100_000)
    parser.add_argument("--verify", action="store_true")
    args = parser.parse_args()
    folder = OUT / f"mentions_{args.chunks}"
    settings = IndexSettings(DB_PATH=folder / "db", MODEL_NAME="bench")
    index = MiniragIndex(settings, embedder=object())  # type: ignore[arg-type]
    rows = index.store.count_rows()
    if rows != args.chunks:
        if rows:
            sys.exit(f"{folder} holds {rows} chunks, not {args.chunks}: remove it first")
        print(f"writing {args.chunks:,} chunks to {folder}", flush=True)
        write(index, args.chunks)
        print("run again to measure in a fresh process")
        return
    print(f"{rows:,} chunks in {folder}; RSS after open {rss_mib():.0f} MiB")
    qs = queries()
    started = time.perf_counter()
    first = index.find_mentions(qs[12][0], match="all")  # a word of middling frequency
    first_s = time.perf_counter() - started
    print(
        f"first call: {first_s:.2f} s ({' + '.join(qs[12][0])}: "
        f"{first.matched_documents:,} documents), RSS {rss_mib():.0f} MiB"
    )
    times = []
    for terms, match in qs:
        t0 = time.perf_counter()
        result = index.find_mentions(terms, match=match)  # type: ignore[arg-type]
        dt = time.perf_counter() - t0
        times.append(dt)
        print(
            f"  {dt * 1000:7.0f} ms  {match:3}  {' + '.join(terms)[:40]:40}  "
            f"{result.matched_documents:>7,} docs {result.matched_chunks:>8,} chunks"
        )
    print(
        f"p50 {statistics.median(times) * 1000:.0f} ms, p90 "
        f"{statistics.quantiles(times, n=10)[-1] * 1000:.0f} ms, max {max(times) * 1000:.0f} ms"
        f" over {len(times)} queries"
    )
    print(f"RSS after queries {rss_mib():.0f} MiB, peak {peak_mib():.0f} MiB")
    if args.verify:
        verify(index, qs)


def verify(index: MiniragIndex, qs: list[tuple[list[str], str]]) -> None:
    from minirag_index.search.mentions import find_mentions

    corpus = index.mention_corpus()
    bad = 0
    for terms, match in qs:
        a = index.find_mentions(terms, match=match)  # type: ignore[arg-type]
        b = find_mentions(corpus, terms, match=match)  # type: ignore[arg-type]
        same = (
            a.matched_documents == b.matched_documents
            and a.matched_chunks == b.matched_chunks
            and [(f.form, f.documents) for f in a.forms] == [(f.form, f.documents) for f in b.forms]
            and [(d.source, d.matching_chunks) for d in a.documents]
            == [(d.source, d.matching_chunks) for d in b.documents]
        )
        bad += not same
    print(f"verify: {len(qs) - bad} of {len(qs)} queries identical to the whole-corpus fold")


if __name__ == "__main__":
    main()
