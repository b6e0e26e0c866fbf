"""Plain text and Markdown files are decoded in the syncing process, as markitdown decodes them;
every other format, and a text file with pictures for OCR to read, still goes to a worker."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex
from minirag_ingest.conversion.convert import (
    ConversionError,
    convert_file,
    strip_inline_images,
    tidy,
)
from minirag_ingest.conversion.markitdown_run import run_markitdown
from minirag_ingest.conversion.pool import ConversionPool, PoolLimits
from minirag_ingest.document.pipeline import Pipeline
from minirag_ingest.files.roots import Roots
from minirag_ingest.files.text_encoding import detect_encoding
from minirag_ingest.settings import DEFAULT_CONVERT_MAX_MEMORY, load_settings
from minirag_ingest.sync.run import sync
from testsupport.convert_tasks import WORKER_REFUSAL, UnusedOcr, refused
from testsupport.pictures import png_bytes

MAX = 10 << 20
SAMPLES = {
    "utf8.md": "# Café notes\n\nNaïve façade, 東京, ünïcode.\r\n\n| a | b |\n|---|---|\n| 1 |\n",
    "utf8-bom.txt": "\ufeffA note with a byte-order mark.\n",
    "cyrillic.txt": "Отчёт о продажах за третий квартал: выручка выросла.\n" * 3,
    "latin1.md": "Résumé of the réunion: Zürich, Ålesund, Ñandú.\n" * 3,
}
ENCODINGS = {"utf8-bom.txt": "utf-8", "cyrillic.txt": "cp1251", "latin1.md": "latin-1"}


def write_samples(folder: Path) -> list[Path]:
    folder.mkdir(exist_ok=True)
    paths = []
    for name, text in SAMPLES.items():
        path = folder / name
        path.write_bytes(text.encode(ENCODINGS.get(name, "utf-8")))
        paths.append(path)
    wide = folder / "utf16.txt"
    wide.write_bytes("A report saved as UTF-16 by an old editor.\n".encode("utf-16"))
    return [*paths, wide]


@pytest.mark.parametrize("index", range(5))
def test_a_text_file_converts_as_markitdowns_own_converter_gives_it(
    tmp_path: Path, index: int
) -> None:
    path = write_samples(tmp_path)[index]
    kind = path.suffix.lstrip(".")
    ours = convert_file(path, max_file_size=MAX).markdown
    data = path.read_bytes()
    from markitdown import StreamInfo
    from markitdown.converters import PlainTextConverter

    info = StreamInfo(extension=path.suffix, charset=detect_encoding(data))
    theirs = PlainTextConverter().convert(io.BytesIO(data), info).markdown
    assert ours == convert_file(path, max_file_size=MAX, plain_only=True).markdown
    assert ours == strip_inline_images(tidy(theirs))
    assert ours == strip_inline_images(tidy(run_markitdown(path, kind).text_content))
    assert "\ufffd" not in ours and ours.strip()


def test_binary_bytes_named_txt_fail_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(ConversionError) as raised:
        convert_file(path, max_file_size=MAX, plain_only=True)
    assert "data.txt" in str(raised.value) and "binary" in str(raised.value)


def picture_markdown() -> str:
    from PIL import Image

    picture = png_bytes(Image.new("RGB", (200, 80), "white"))
    uri = "data:image/png;base64," + base64.b64encode(picture).decode()
    return f"# Scan\n\nThe diagram:\n\n![diagram]({uri})\n"


@pytest.mark.parametrize("ocr", [None, UnusedOcr()], ids=["no OCR", "with OCR"])
def test_a_sync_sends_only_what_needs_a_converter_to_the_workers(
    model_dir: Path, tmp_path: Path, ocr: UnusedOcr | None
) -> None:
    docs = tmp_path / "docs"
    plain = {path.name for path in write_samples(docs)}
    (docs / "page.html").write_text("<html><body><h1>Page</h1><p>Some words.</p></body></html>")
    (docs / "scan.md").write_text(picture_markdown())
    settings = IndexSettings(
        DB_PATH=tmp_path / "db", MODEL_NAME=str(model_dir), CACHE_DIR=tmp_path / "cache"
    )
    index = MiniragIndex(settings, embedder=Embedder(str(model_dir), tmp_path / "cache"))
    pool = ConversionPool(
        PoolLimits(max_memory=DEFAULT_CONVERT_MAX_MEMORY, timeout=30.0),
        ocr=ocr,  # type: ignore[arg-type]
        task=refused,
    )
    pipeline = Pipeline(index, Roots([docs]), load_settings(), ocr=ocr, pool=pool)  # type: ignore[arg-type]
    try:
        report = sync(pipeline)
    finally:
        pool.stop()
    sent = {
        Path(error["path"]).name for error in report.errors if WORKER_REFUSAL in error["reason"]
    }
    expected = {"page.html", "scan.md"} if ocr is not None else {"page.html"}
    assert sent == expected, report.errors
    assert report.failed == len(expected)
    indexed = {Path(source).name for source in index.sources()}
    assert indexed == plain | ({"scan.md"} if ocr is None else set())


def test_a_large_text_file_is_left_to_a_worker(tmp_path: Path) -> None:
    from minirag_ingest.conversion.plain_text import PLAIN_TEXT_HERE_MAX, NotPlainText

    path = tmp_path / "long.txt"
    path.write_text("word " * (PLAIN_TEXT_HERE_MAX // 5 + 1))
    with pytest.raises(NotPlainText):
        convert_file(path, max_file_size=MAX, plain_only=True)
    assert convert_file(path, max_file_size=MAX).markdown.startswith("word word")
