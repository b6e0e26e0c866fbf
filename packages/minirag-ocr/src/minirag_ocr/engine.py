"""RapidOCR behind minirag-ingest's OCR interface: image files and rasterised PDF pages.

The RapidOCR pipeline (detection, orientation, recognition on onnxruntime) is built on the
first recognition, not when the engine is created, so discovering the engine costs nothing and
a missing model is an error for the file that needed it. One lock serialises recognition and
rendering: pdfium is not thread-safe, and onnxruntime already spreads one image over all cores.
"""

from __future__ import annotations

import re
import statistics
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from minirag_ingest.extras.ocr import IMAGE_EXTENSIONS, OcrError
from minirag_ocr.models import BUNDLED_LANG, LANGUAGE_IDS, MODEL_BASE_URL, ModelStore

ENGINE_NAME = "rapidocr"

# Pages are rendered so their longer side is about this many pixels: RapidOCR scales anything
# larger down to 2000 before detection, so more would only cost time.
RENDER_LONG_SIDE = 2000
MAX_RENDER_SCALE = 300 / 72  # never above 300 dpi, for small pages


class RapidOcrEngine:
    """Recognises text with RapidOCR in the language ``lang`` (a rapidocr language id)."""

    name = ENGINE_NAME
    image_extensions = IMAGE_EXTENSIONS

    def __init__(self, lang: str, cache_dir: Path, *, model_base_url: str = MODEL_BASE_URL):
        if lang not in LANGUAGE_IDS:
            raise ValueError(unknown_language_message(lang))
        self.lang = lang
        self.models = ModelStore(cache_dir, base_url=model_base_url)
        self._lock = threading.RLock()
        self._ocr: Any = None

    def __getstate__(self) -> dict[str, Any]:
        """Sent to a conversion worker as its settings: the worker loads its own models."""
        return {"lang": self.lang, "models": self.models}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.lang = state["lang"]
        self.models = state["models"]
        self._lock = threading.RLock()
        self._ocr = None

    # -- the interface -----------------------------------------------------------------------
    def recognise_image(self, path: Path) -> list[str]:
        from PIL import Image, ImageOps, ImageSequence

        with self._lock:
            ocr = self._engine()
            try:
                with Image.open(path) as image:
                    texts = []
                    for frame in ImageSequence.Iterator(image):
                        texts.append(self._read(ocr, _as_rgb(ImageOps.exif_transpose(frame))))
                    return texts
            except OcrError:
                raise
            except (OSError, ValueError, Image.DecompressionBombError) as exc:
                raise OcrError(f"cannot read the image: {_describe(exc)}") from exc

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        import pypdfium2 as pdfium

        with self._lock:
            ocr = self._engine()
            try:
                document = pdfium.PdfDocument(str(path))
            except (pdfium.PdfiumError, OSError) as exc:
                raise OcrError(f"cannot open the PDF to render it: {_describe(exc)}") from exc
            try:
                out: dict[int, str] = {}
                for number in page_numbers:
                    if not 1 <= number <= len(document):
                        continue
                    out[number] = self._read(ocr, _render(document, number))
                return out
            except pdfium.PdfiumError as exc:
                raise OcrError(f"cannot render a PDF page: {_describe(exc)}") from exc
            finally:
                document.close()

    # -- internals ---------------------------------------------------------------------------
    def _engine(self) -> Any:
        if self._ocr is None:
            rec_model = self.models.path_for(self.lang)  # raises OcrError on a failed download
            from minirag_index.embedding.telemetry import keep_onnxruntime_offline

            keep_onnxruntime_offline()  # before RapidOCR loads onnxruntime
            from rapidocr_onnxruntime import RapidOCR

            # The text-line orientation classifier is off: on clean scans it turned whole lines
            # upside down (10 of 22 lines of a generated page were lost with it on), it costs
            # time on every line, and scanners deliver pages upright.
            kwargs: dict[str, Any] = {"use_cls": False}
            if rec_model is not None:
                kwargs["rec_model_path"] = str(rec_model)
            try:
                self._ocr = RapidOCR(**kwargs)
            except Exception as exc:
                raise OcrError(
                    f"cannot load the OCR model for RAG_OCR_LANG={self.lang}: {_describe(exc)}"
                ) from exc
        return self._ocr

    def _read(self, ocr: Any, image: Any) -> str:
        try:
            result, _ = ocr(image)
        except MemoryError:
            raise
        except Exception as exc:
            if "bad_alloc" in str(exc):  # onnxruntime out of memory: the worker's ceiling says so
                raise MemoryError(f"text recognition ran out of memory: {_describe(exc)}") from exc
            raise OcrError(f"text recognition failed: {_describe(exc)}") from exc
        return layout_text(result or [])


def unknown_language_message(lang: str) -> str:
    return (
        f"RAG_OCR_LANG={lang!r} is not a rapidocr language id this install knows; "
        f"use one of: {', '.join(LANGUAGE_IDS)} "
        f"({BUNDLED_LANG} is the Chinese/English model bundled with rapidocr, the others are "
        "downloaded once into CACHE_DIR)"
    )


def _render(document: Any, number: int) -> Any:
    page = document[number - 1]
    try:
        width, height = page.get_size()
        scale = min(MAX_RENDER_SCALE, RENDER_LONG_SIDE / max(width, height, 1.0))
        bitmap = page.render(scale=scale, fill_color=(255, 255, 255, 255))
        try:
            return _as_rgb(bitmap.to_pil())
        finally:
            bitmap.close()
    finally:
        page.close()


def _as_rgb(image: Any) -> Any:
    """An RGB copy, with transparency laid over white (a transparent PNG reads as black)."""
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    if image.mode.startswith("I;16") or image.mode in ("I", "F"):
        image = image.point(lambda v: v / 256).convert("L")
    return image.convert("RGB")


# -- layout: boxes to lines and paragraphs ------------------------------------------------------

_HEADING_LIKE = re.compile(r"^(\s*)#")


def layout_text(result: Sequence[Sequence[Any]]) -> str:
    """Join RapidOCR's ``[box, text, score]`` items into reading order.

    Boxes whose vertical middles fall within one another's height form a line, read left to
    right; a gap between lines taller than a line starts a new paragraph. A line that would
    read as a Markdown heading has its ``#`` escaped.
    """
    items = []
    for box, text, *_ in result:
        text = " ".join(str(text).split())
        if not text:
            continue
        ys = [float(point[1]) for point in box]
        xs = [float(point[0]) for point in box]
        items.append((min(ys), max(ys), min(xs), text))
    if not items:
        return ""
    items.sort(key=lambda item: (item[0] + item[1]) / 2)
    lines: list[list[tuple[float, float, float, str]]] = []
    for item in items:
        middle = (item[0] + item[1]) / 2
        if lines:
            top = min(i[0] for i in lines[-1])
            bottom = max(i[1] for i in lines[-1])
            if top <= middle <= bottom:
                lines[-1].append(item)
                continue
        lines.append([item])
    heights = [max(i[1] for i in line) - min(i[0] for i in line) for line in lines]
    typical = statistics.median(heights) or 1.0
    paragraphs: list[list[str]] = [[]]
    previous_bottom: float | None = None
    for line in lines:
        top = min(i[0] for i in line)
        if previous_bottom is not None and top - previous_bottom > typical:
            paragraphs.append([])
        previous_bottom = max(i[1] for i in line)
        words = " ".join(i[3] for i in sorted(line, key=lambda i: i[2]))
        paragraphs[-1].append(_HEADING_LIKE.sub(r"\1\\#", words))
    return "\n\n".join("\n".join(p) for p in paragraphs if p)


def _describe(exc: BaseException) -> str:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"{type(exc).__name__}: {message}"[:300]
