"""OCR throughput on generated pages, and what OCR recovers from real scanned PDFs.

    uv run --with-editable packages/minirag-ocr python bench/ocr.py [FOLDER ...] [--pages 6]

Needs the [ocr] extra (minirag-ocr) installed. Uses RAG_OCR_LANG=ch, the Chinese/English model
bundled in the rapidocr-onnxruntime wheel, unless --lang names another rapidocr language id
(which is then downloaded once into --cache-dir).

1. Generated pages: letter-size pages of English text drawn with a system font, rendered the
   way a scan is (a full-page grayscale picture inside a PDF), recognised page by page. Prints
   the time to load the models, then pages per second and the share of words read back.
2. Real files: every PDF under the folders (default: the real-files benchmark data) whose text
   layer is short on some page (fewer than RAG_OCR_MIN_CHARS_PER_PAGE characters, default 25)
   is converted with and without OCR; prints the characters the text layer gave, the pages
   recognised, the characters OCR added, and the time. Image files are recognised too.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "packages" / "minirag-ocr" / "tests"))

WORDS = [
    "inspection",
    "pump",
    "valve",
    "pressure",
    "report",
    "quarterly",
    "maintenance",
    "station",
    "invoice",
    "delivery",
    "pallet",
    "signature",
    "contract",
    "supplier",
    "warehouse",
    "schedule",
    "budget",
    "meeting",
    "minutes",
    "project",
    "customer",
    "order",
    "payment",
    "account",
    "balance",
    "total",
    "amount",
    "review",
    "approval",
    "engineer",
    "safety",
    "boiler",
    "turbine",
    "replacement",
    "measured",
    "checked",
    "recorded",
    "completed",
    "pending",
    "urgent",
    "standard",
]


def page_lines(rng: random.Random, count: int) -> list[str]:
    lines = []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 8))]
        if rng.random() < 0.3:
            words.append(str(rng.randint(100, 99999)))
        lines.append(" ".join(words).capitalize())
    return lines


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def bench_generated(engine, pages: int) -> None:  # type: ignore[no-untyped-def]
    from conftest import page_image, pdf_with_pages  # the test helpers: same page generator

    rng = random.Random(7)
    texts = [page_lines(rng, 22) for _ in range(pages)]
    images = [page_image(lines, size=(1275, 1650), text_px=30) for lines in texts]
    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "generated.pdf"
        pdf.write_bytes(pdf_with_pages(images))
        started = time.perf_counter()
        engine.recognise_pdf_pages(pdf, [1])  # loads the models
        load = time.perf_counter() - started
        started = time.perf_counter()
        result = engine.recognise_pdf_pages(pdf, list(range(1, pages + 1)))
        elapsed = time.perf_counter() - started
    words = found = 0
    for number, lines in enumerate(texts, 1):
        got = squash(result.get(number, ""))
        for word in " ".join(lines).split():
            words += 1
            found += squash(word) in got
    print("generated pages (letter size, 22 lines of 30 px text on a 1275x1650 scan)")
    print(f"  first page incl. model load: {load:.2f} s")
    print(f"  {pages} pages in {elapsed:.2f} s: {pages / elapsed:.2f} pages/s")
    print(f"  words read back: {found}/{words} ({100 * found / words:.1f}%)")


def bench_real(engine, folders: list[Path], min_chars: int) -> None:  # type: ignore[no-untyped-def]
    from minirag_ingest.conversion.convert import ConversionError, convert_file, visible_chars
    from minirag_ingest.extras.ocr import IMAGE_EXTENSIONS

    print(f"\nreal files (RAG_OCR_MIN_CHARS_PER_PAGE={min_chars})")
    files = sorted(
        p
        for folder in folders
        for p in folder.rglob("*")
        if p.is_file() and p.suffix.lower() in {".pdf", *IMAGE_EXTENSIONS}
    )
    for path in files:
        name = path.relative_to(path.parents[1]) if len(path.parents) > 1 else path.name
        if path.suffix.lower() != ".pdf":
            started = time.perf_counter()
            try:
                converted = convert_file(path, max_file_size=1 << 30, ocr=engine)
            except ConversionError as exc:
                print(f"  {name}: failed: {exc.reason}")
                continue
            chars = visible_chars(converted.markdown)
            took = time.perf_counter() - started
            print(f"  {name}: image, {chars} characters recognised in {took:.2f} s")
            continue
        try:
            plain = convert_file(path, max_file_size=1 << 30)
            before, pages = visible_chars(plain.markdown), plain.pages or []
        except ConversionError as exc:
            before, pages = 0, []
            if "looks like a scan" not in exc.reason:
                print(f"  {name}: failed without OCR: {exc.reason}")
                continue
        if pages and not any(visible_chars(t) < min_chars for t in pages):
            continue  # every page has a real text layer: OCR would not run
        started = time.perf_counter()
        try:
            converted = convert_file(
                path, max_file_size=1 << 30, ocr=engine, ocr_min_chars_per_page=min_chars
            )
        except ConversionError as exc:
            print(f"  {name}: failed with OCR: {exc.reason}")
            continue
        took = time.perf_counter() - started
        scanned = sum(1 for t in pages if visible_chars(t) < min_chars) if pages else "all"
        added = visible_chars(converted.markdown) - before
        print(
            f"  {name}: {len(converted.pages or [])} pages, text layer {before} characters, "
            f"{scanned} pages OCRed, OCR added {added} characters in {took:.2f} s"
        )
        sample = " ".join(converted.markdown.split())[-300:]
        print(f"    ...{sample}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--pages", type=int, default=6)
    parser.add_argument("--lang", default="ch")
    parser.add_argument("--min-chars", type=int, default=25)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()
    from minirag_index.settings import default_cache_dir

    try:
        from minirag_ocr import OcrSettings, RapidOcrPlugin
    except ImportError:
        engine = None
    else:
        cache_dir = Path(args.cache_dir) if args.cache_dir else default_cache_dir()
        engine = RapidOcrPlugin(OcrSettings(RAG_OCR_LANG=args.lang)).create_engine(cache_dir)
    if engine is None:
        print("no OCR engine installed: install minirag-ocr (the [ocr] extra)", file=sys.stderr)
        return 1
    print(f"engine {engine.name}, RAG_OCR_LANG={args.lang}, {os.cpu_count()} CPUs")
    bench_generated(engine, args.pages)
    if not args.folders:
        sys.path.insert(0, str(HERE))
        from _common import data

        args.folders = [data("real-files")]
    folders = args.folders
    bench_real(engine, [f for f in folders if f.is_dir()], args.min_chars)
    return 0


if __name__ == "__main__":
    sys.exit(main())
