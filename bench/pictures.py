"""Text in embedded pictures: recognition throughput, and what it costs a real folder's sync.

    uv run python bench/pictures.py [FOLDER] [--pictures 20] [--parts generated,real,sync]

Needs the [ocr] extra (minirag-ocr); uses RAG_OCR_LANG=ch, the Chinese/English model bundled
in the rapidocr-onnxruntime wheel.

1. Generated pictures: screenshot-like PNGs drawn with Pillow (a form of eight labelled fields,
   1024x640; a one-word banner, 640x200), embedded as data: URIs and read by
   :func:`minirag_ingest.conversion.pictures.read_pictures`. Prints pictures per second and the
   share of
   words read back, and what the size rule costs for pictures it skips (icons, rules).
2. Real files: every .docx .pptx .xlsx .epub .html under FOLDER (default: the real-files
   benchmark data) converted with and without the engine: pictures held, read and skipped,
   characters added, seconds.
3. Sync: the same folder synced into a fresh index with the test model, in conversion workers
   (as the server does), without the engine and with it: wall time and the sync report.
"""

from __future__ import annotations

import argparse
import base64
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _common import data, footer, header, model_folder  # noqa: E402

OFFICE = {".docx", ".pptx", ".xlsx", ".epub", ".html", ".htm"}
WORDS = [
    "order",
    "customer",
    "invoice",
    "valve",
    "pump",
    "pressure",
    "account",
    "station",
    "delivery",
    "budget",
]


def form_picture(rng: random.Random) -> tuple[bytes, list[str]]:
    from PIL import Image, ImageDraw

    from testsupport.documents import font
    from testsupport.pictures import png_bytes

    image = Image.new("RGB", (1024, 640), (240, 240, 240))
    draw = ImageDraw.Draw(image)
    words = []
    for row in range(8):
        label = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} CX-{rng.randint(1000, 9999)}"
        words += label.split()
        top = 60 + row * 65
        draw.rectangle((40, top, 980, top + 40), outline=(0, 0, 0), fill=(255, 255, 255))
        draw.text((50, top + 8), label, fill=(0, 0, 0), font=font(20))
    return png_bytes(image), words


def banner_picture(rng: random.Random) -> tuple[bytes, list[str]]:
    from testsupport.pictures import word_picture

    word = f"{rng.choice(WORDS).upper()}-{rng.randint(10, 99)}"
    return word_picture(word), [word]


def squash(text: str) -> str:
    return "".join(text.split()).lower()


def markdown_of(pictures: list[bytes]) -> str:
    return "\n\n".join(
        f"![picture {n}](data:image/png;base64,{base64.b64encode(png).decode()})"
        for n, png in enumerate(pictures)
    )


def bench_generated(engine: Any, count: int) -> None:
    from minirag_ingest.conversion.pictures import read_pictures
    from testsupport.pictures import icon_picture, logo_picture, rule_picture

    rng = random.Random(39)
    read_pictures(markdown_of([banner_picture(rng)[0]]), engine)  # loads the models
    for name, make in (("form 1024x640", form_picture), ("banner 640x200", banner_picture)):
        made = [make(rng) for _ in range(count)]
        started = time.perf_counter()
        text, counts, _ = read_pictures(
            markdown_of([png for png, _ in made]), engine, seconds=float("inf")
        )
        took = time.perf_counter() - started
        words = [w for _, ws in made for w in ws if any(ch.isdigit() for ch in w)]  # unique
        found = sum(squash(w) in squash(text) for w in words)
        print(
            f"  {name}: {counts.read} pictures in {took:.2f} s, {counts.read / took:.2f}/s "
            f"({1000 * took / counts.read:.0f} ms each); codes read back {found}/{len(words)}"
        )
    small = [icon_picture(), rule_picture(), icon_picture(48), rule_picture(1200, 8)] * 25
    small = [png + bytes([n % 256]) for n, png in enumerate(small)]  # distinct, still PNGs
    started = time.perf_counter()
    _, counts, _ = read_pictures(markdown_of(small), engine)
    took = time.perf_counter() - started
    print(f"  icons and rules: {counts.skipped} skipped in {1000 * took:.1f} ms")
    logos = [logo_picture(200 + n) for n in range(5)]
    started = time.perf_counter()
    text, counts, added = read_pictures(markdown_of(logos), engine)
    took = time.perf_counter() - started
    print(f"  logos without text: {counts.read} read in {took:.2f} s, text added: {added}")


def bench_real(engine: Any, folder: Path) -> None:
    from minirag_ingest.conversion.convert import ConversionError, convert_file, visible_chars

    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix.lower() in OFFICE)
    total = [0, 0, 0]
    for path in files:
        name = path.relative_to(folder)
        try:
            started = time.perf_counter()
            plain = convert_file(path, max_file_size=1 << 30)
            base = time.perf_counter() - started
            started = time.perf_counter()
            read = convert_file(path, max_file_size=1 << 30, ocr=engine)
            took = time.perf_counter() - started
        except ConversionError as exc:
            print(f"  {name}: failed: {exc.reason}")
            continue
        if read.pictures is None:
            continue
        c = read.pictures
        total = [total[0] + c.held, total[1] + c.read, total[2] + c.skipped]
        added = visible_chars(read.markdown) - visible_chars(plain.markdown)
        print(
            f"  {name}: {c.held} pictures, {c.read} read, {c.skipped} skipped; "
            f"+{added} characters; {base:.2f} s without, {took:.2f} s with"
        )
    print(f"  all: {total[0]} pictures held, {total[1]} read, {total[2]} skipped")


def bench_sync(engine: Any, folder: Path, work: Path) -> None:
    from minirag_index import Embedder, IndexSettings, MiniragIndex
    from minirag_ingest.conversion.pool import ConversionPool, PoolLimits
    from minirag_ingest.document.pipeline import Pipeline
    from minirag_ingest.files.roots import Roots
    from minirag_ingest.settings import load_settings
    from minirag_ingest.sync.run import sync

    model, _ = model_folder(None, work)
    docs = work / "docs"
    shutil.copytree(folder, docs)
    for name, label, ocr in (
        ("plain", "without the extra", None),
        ("ocr", "with the extra", engine),
    ):
        embedder = Embedder(str(model), work / "cache")
        settings = IndexSettings(
            DB_PATH=work / f"db-{name}",
            MODEL_NAME=embedder.model_name,
            CACHE_DIR=embedder.cache_dir,
        )
        index = MiniragIndex(settings, embedder=embedder)
        ingest = load_settings()
        pool = ConversionPool(
            PoolLimits(ingest.rag_convert_max_memory, ingest.rag_convert_timeout), ocr=ocr
        )
        pipeline = Pipeline(index, Roots([docs]), ingest, ocr=ocr, pool=pool)
        started = time.perf_counter()
        report = sync(pipeline)
        took = time.perf_counter() - started
        pool.stop()
        pictures = report.pictures
        print(
            f"  {label}: {took:.1f} s; ingested {report.ingested}, failed {report.failed}; "
            f"pictures held {pictures.held}, read {pictures.read}, skipped {pictures.skipped}"
        )
        for error in report.errors:
            print(f"    failed: {error['path']}: {error['reason']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--pictures", type=int, default=20)
    parser.add_argument(
        "--parts", default="generated,real,sync", help="which of generated,real,sync to run"
    )
    args = parser.parse_args()
    folder = args.folder or data("real-files")
    os.environ.setdefault("RAG_OCR_LANG", "ch")
    from minirag_ocr import OcrSettings, RapidOcrPlugin

    header("Pictures: text in embedded pictures (issue 39)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        engine = RapidOcrPlugin(OcrSettings(RAG_OCR_LANG="ch")).create_engine(work / "cache")
        parts = set(args.parts.split(","))
        if "generated" in parts:
            print(f"\ngenerated pictures ({args.pictures} of each kind)")
            bench_generated(engine, args.pictures)
        if "real" in parts:
            print(f"\nreal files under {folder}")
            bench_real(engine, folder)
        if "sync" in parts:
            print(f"\nsync of {folder} (conversion workers, test model)")
            bench_sync(engine, folder, work)
    footer()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
