"""The plug-in seam of minirag-ingest: what an OCR engine and a choice model must offer, how an
installed one is found, and how a test puts a fake in its place.

minirag-ingest never imports a plug-in package. A plug-in is a class registered under its
kind's entry-point group by the distribution that provides it (the ``[ocr]`` and ``[classify]``
extras)::

    [project.entry-points."minirag.ocr"]
    rapidocr = "minirag_ocr:RapidOcrPlugin"

    [project.entry-points."minirag.classify"]
    llama = "minirag_classify.plugin:LlamaPlugin"

:func:`find` looks once per process (:func:`forget` looks again) and returns a :class:`Found`:
the plug-in, or none and the reason - the install hint of the extra when nothing is registered
(:func:`missing_extra`), or why the registered one could not be loaded. Instantiating a plug-in
must be cheap: it may check that its libraries are importable (raising ImportError when one is
missing), but loads no model and downloads nothing.

Code, tests above all, can set the plug-in of a kind in :data:`REGISTERED` (or for one block
with :func:`registered`); that wins over whatever entry points offer.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from minirag_ingest.labels.taxonomy import ModelSpec

log = logging.getLogger(__name__)


# -- the contracts ---------------------------------------------------------------------------


@runtime_checkable
class OcrEngine(Protocol):
    """What conversion needs from an OCR engine."""

    @property
    def name(self) -> str:
        """Short engine id recorded per source as ``ocr_engine``, e.g. ``"rapidocr"``."""
        ...

    @property
    def image_extensions(self) -> frozenset[str]:
        """Lower-case suffixes with the dot (``".png"``) of image files it turns into text."""
        ...

    def recognise_image(self, path: Path) -> list[str]:
        """The text of each page or frame of an image file, in order (a multi-page TIFF gives
        one entry per page). An entry is ``""`` for a page with no text on it. Raises
        :class:`~minirag_ingest.extras.ocr.OcrError` with a one-line reason."""
        ...

    def recognise_pdf_pages(self, path: Path, page_numbers: Sequence[int]) -> dict[int, str]:
        """Rasterise and recognise the given 1-based pages of a PDF: page number -> text."""
        ...


@runtime_checkable
class OcrPlugin(Protocol):
    """What the ``minirag.ocr`` entry point names."""

    name: str

    def create_engine(self, cache_dir: Path) -> OcrEngine:
        """The engine, for its own settings (read from the environment) and with its models
        kept under ``cache_dir``. Cheap: no model is loaded or downloaded; the first
        recognition does that. A bad setting raises
        :class:`~minirag_index.settings.ConfigError` naming the variable."""
        ...


@runtime_checkable
class ChoiceModel(Protocol):
    """A loaded model that answers one closed question about one document."""

    def ask(
        self,
        question: str,
        options: Sequence[tuple[str, str]],
        document_head: str,
        file_name: str | None,
    ) -> dict[str, float]:
        """Probability of each option id (they sum to 1). ``options`` is (id, description)."""
        ...

    def close(self) -> None:
        """Free the model's memory."""
        ...


@runtime_checkable
class ClassifyPlugin(Protocol):
    """What the ``minirag.classify`` entry point names."""

    name: str

    def probe(self, spec: ModelSpec, cache_dir: Path) -> str | None:
        """Why the model cannot run, without loading or downloading it; None when it can."""
        ...

    def load(self, spec: ModelSpec, cache_dir: Path) -> ChoiceModel:
        """Download (when pinned and not cached) and load the model. Raises with a reason."""
        ...


# -- the kinds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """One kind of plug-in: where it registers, the extra that installs one, what it is for."""

    group: str  # the entry-point group
    extra: str  # the extra of minirag-mcp that installs one
    needed_for: str  # what lacks without one, as the start of a sentence
    contract: type  # the Protocol a plug-in satisfies
    preferred: str = ""  # the entry point tried first when several are installed


OCR = Kind("minirag.ocr", "ocr", "Scanned PDFs and image files", OcrPlugin, preferred="rapidocr")
CLASSIFY = Kind("minirag.classify", "classify", "model-answered facets", ClassifyPlugin)
KINDS = (OCR, CLASSIFY)


def missing_extra(kind: Kind) -> str:
    """What needs the kind's extra, and the command that adds it to this install."""
    from minirag_ingest.extras.install import install_hint

    return f"{kind.needed_for} need the [{kind.extra}] extra: {install_hint(kind.extra)}"


# -- finding one -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """The plug-in of a kind, or none and why."""

    plugin: Any = None  # satisfies the kind's contract
    name: str | None = None  # its entry point's name (or its own, when registered in code)
    missing: str | None = None  # why there is none


#: Plug-ins set in code, by entry-point group, in place of what entry points offer; None
#: means "as if none were installed". Tests set their fakes here.
REGISTERED: dict[str, object | None] = {}

_lock = threading.Lock()
_found: dict[str, Found] = {}


def find(kind: Kind) -> Found:
    """The installed plug-in of ``kind``: the first entry point (the preferred name, then by
    name) that loads, instantiates and satisfies the contract. Looked up once per process."""
    if kind.group in REGISTERED:
        return _registered(kind, REGISTERED[kind.group])
    with _lock:
        found = _found.get(kind.group)
        if found is None:
            found = _found[kind.group] = _discover(kind)
        return found


def forget() -> None:
    """Look again at the next :func:`find` (after installing or removing a plug-in)."""
    with _lock:
        _found.clear()


@contextmanager
def registered(kind: Kind, plugin: object | None) -> Iterator[None]:
    """Use ``plugin`` for ``kind`` inside the block (None: as if none were installed)."""
    absent = object()
    before = REGISTERED.get(kind.group, absent)
    REGISTERED[kind.group] = plugin
    try:
        yield
    finally:
        if before is absent:
            REGISTERED.pop(kind.group, None)
        else:
            REGISTERED[kind.group] = before


def _registered(kind: Kind, plugin: object | None) -> Found:
    if plugin is None:
        return Found(missing=missing_extra(kind))
    return Found(plugin, getattr(plugin, "name", None) or "registered")


def _discover(kind: Kind) -> Found:
    points = sorted(
        entry_points(group=kind.group), key=lambda ep: (ep.name != kind.preferred, ep.name)
    )
    reason = None
    for point in points:
        try:
            target = point.load()
            plugin = target() if isinstance(target, type) else target
        except Exception as exc:  # a broken install is a reason, not a crash
            reason = f"the {kind.extra} plug-in {point.name!r} failed to load: {exc}"
            log.warning("%s", reason)
            continue
        if not isinstance(plugin, kind.contract):
            reason = f"the {kind.extra} plug-in {point.name!r} is not a {kind.contract.__name__}"
            log.warning("%s", reason)
            continue
        return Found(plugin, point.name)
    return Found(missing=reason or missing_extra(kind))
