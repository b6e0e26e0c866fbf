"""Benchmark find_mentions against ripgrep on synthetic mixed Russian/English chunks.

    uv run python bench/mentions.py            # 10k and 100k chunks
    uv run python bench/mentions.py 20000      # other sizes

For each size it builds the mention corpus (the once-per-table-version cost), then times each
query (median of several runs, first page of 200 documents with snippets) and the same search
with ripgrep over the same documents written one file each to a temporary folder (``rg -l``
lists the files, ``rg -c`` counts matching lines; process start-up included, as a user at a
terminal would see it). ripgrep is only a yardstick for raw scanning speed: it does no ё/е or
composition folding, no escape removal and no per-document counting of forms. ripgrep is
optional: without ``rg`` on PATH only find_mentions is timed.
"""

from __future__ import annotations

import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from minirag_index.search.mentions import build_corpus, find_mentions

CHUNK_CHARS = 500
CHUNKS_PER_DOC = 20
RUNS = 5

RU_STEMS = [
    "договор",
    "поставк",
    "отчёт",
    "работ",
    "компани",
    "срок",
    "оплат",
    "счёт",
    "услуг",
    "заказчик",
    "исполнител",
    "стоимост",
    "документ",
    "приложени",
    "пункт",
    "сторон",
    "обязательств",
    "гаранти",
    "качеств",
    "объём",
    "период",
    "налог",
    "бюджет",
    "проект",
]
RU_ENDINGS = ["", "а", "у", "ом", "е", "ы", "ов", "ам", "ами", "ах", "ой", "ей", "и"]
RU_WORDS = [
    "и",
    "в",
    "на",
    "по",
    "с",
    "не",
    "за",
    "для",
    "от",
    "до",
    "что",
    "как",
    "это",
    "всё",
    "также",
    "согласно",
    "между",
    "после",
    "течение",
    "рамках",
    "контакт",
    "контакты",
    "актуально",
    "активы",
    "активов",
    "акт",
    "акта",
    "актов",
    "актом",
]
EN_WORDS = " ".join(
    [
        "the of and to in for is on that by this with you it not or be are from at as your all ",
        "have new more an was we will home can us about if page my has search free but our one ",
        "other do no information time they site he up may what which their news out use any there ",
        "see only so his when contact here business who web also now help get pm view online ",
        "first am been would how were me services some these click its like service than find ",
        "price date back top people had list name just over state year day into email two health ",
        "world next used go work last most products music buy data make them should product ",
        "system post her city add policy number such please available copyright support message ",
        "after best software then jan good video well where info rights public books high school ",
        "through each links she review years order very privacy book items company read group ",
        "need many user said de does set under general research university act actual ",
    ]
).split()
SPECIAL = [r"ТЗ\_2024\_015", "ТЗ_2024_016", "ОТЧЁТ", "до\u00adго\u00adвор", "договор поставки"]


def make_word(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return rng.choice(RU_STEMS) + rng.choice(RU_ENDINGS)
    if r < 0.70:
        return rng.choice(RU_WORDS)
    if r < 0.995:
        return rng.choice(EN_WORDS)
    return rng.choice(SPECIAL)


def make_chunk(rng: random.Random) -> str:
    words: list[str] = []
    length = 0
    while length < CHUNK_CHARS:
        w = make_word(rng)
        if rng.random() < 0.08:
            w = w.capitalize() + rng.choice([".", ",", ":", ";"])
        words.append(w)
        length += len(w) + 1
    return " ".join(words)


def make_rows(n_chunks: int, seed: int = 7):
    rng = random.Random(seed)
    rows = []
    for i in range(n_chunks):
        doc = i // CHUNKS_PER_DOC
        source = f"/docs/folder{doc % 37}/doc{doc:06d}.md"
        title = f"Документ {doc} {rng.choice(RU_STEMS)}{rng.choice(RU_ENDINGS)}"
        rows.append((source, title, i % CHUNKS_PER_DOC, make_chunk(rng), 0, None))
    return rows


QUERIES = [
    ("акт (open stem, common)", ["акт"], r"\bакт"),
    ('"акт" (exact word)', ['"акт"'], r"\bакт\b"),
    ("договор поставки (phrase)", ["договор поставки"], r"\bдоговор\s+поставки"),
    ("ТЗ_2024_015 (rare, escaped in text)", ["ТЗ_2024_015"], r"\bТЗ\\?_2024\\?_015"),
    ("zzqxj (found nowhere)", ["zzqxj"], r"\bzzqxj"),
]


def timed(fn, runs: int = RUNS) -> tuple[float, float, object]:
    """Median wall time, median CPU time (this process and its children), last result."""
    walls, cpus = [], []
    out = None
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        c0 = time.process_time()
        t = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        cpus.append(time.process_time() - c0 + child)
    return statistics.median(walls), statistics.median(cpus), out


def write_files(rows, folder: Path) -> None:
    docs: dict[str, list[str]] = {}
    for source, _title, _idx, text, _ctx, _sec in rows:
        docs.setdefault(source, []).append(text)
    for source, texts in docs.items():
        path = folder / source.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(texts), encoding="utf-8")


def rg(args: list[str], folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["rg", *args, str(folder)], capture_output=True, text=True)


def bench(n_chunks: int) -> None:
    rows = make_rows(n_chunks)
    chars = sum(len(r[3]) for r in rows)
    c = time.process_time()
    t = time.perf_counter()
    corpus = build_corpus(rows)
    build_s = time.perf_counter() - t
    build_cpu = time.process_time() - c
    print(
        f"\n## {n_chunks:,} chunks, {corpus.document_count:,} documents, {chars / 1e6:.1f} M chars"
    )
    print(
        f"build_corpus (once per table version): {build_s * 1000:.0f} ms wall, "
        f"{build_cpu * 1000:.0f} ms cpu"
    )
    have_rg = shutil.which("rg") is not None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if have_rg:
            write_files(rows, folder)
            rg(["-l", "zzz"], folder)  # warm the page cache
        header = f"{'query':38} {'docs':>5} {'chunks':>6} {'find_mentions wall/cpu':>23}"
        if have_rg:
            header += f" {'rg -l wall/cpu':>19} {'rg -c wall':>10} {'cpu ratio':>9}"
        print(header)
        for label, terms, pattern in QUERIES:
            fm_s, fm_cpu, result = timed(lambda terms=terms: find_mentions(corpus, terms))
            line = (
                f"{label:38} {result.matched_documents:>5} {result.matched_chunks:>6} "
                f"{fm_s * 1000:>9.1f} / {fm_cpu * 1000:>6.1f} ms"
            )
            if have_rg:
                args = ["-i", "--no-messages", "-e", pattern]
                rgl_s, rgl_cpu, out = timed(lambda args=args: rg(["-l", *args], folder))
                rgc_s, _, _ = timed(lambda args=args: rg(["-c", *args], folder))
                n_files = len(out.stdout.splitlines())  # type: ignore[union-attr]
                line += (
                    f" {rgl_s * 1000:>6.1f} / {rgl_cpu * 1000:>6.1f} ms {rgc_s * 1000:>7.1f} ms"
                    f" {fm_cpu / rgl_cpu:>8.2f}x  (rg files: {n_files})"
                )
            print(line)
    print(f"load average after this size: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [10_000, 100_000]
    version = sys.version.split()[0]
    print(f"python {version}, {RUNS} runs each, median; cpu ratio = find_mentions / rg -l")
    for n in sizes:
        bench(n)


if __name__ == "__main__":
    main(sys.argv[1:])
