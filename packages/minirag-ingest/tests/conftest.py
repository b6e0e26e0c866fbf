"""Fixtures for tests that ingest for real: a document root and a pipeline over it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from minirag_index import Embedder, IndexSettings, MiniragIndex
from minirag_ingest.pipeline import Pipeline
from minirag_ingest.roots import Roots
from minirag_ingest.settings import load_settings


def build_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page."""
    objects: list[bytes] = []
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


@pytest.fixture(scope="session")
def make_pdf() -> Callable[[list[str]], bytes]:
    return build_pdf


@pytest.fixture(scope="session")
def embedder(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return Embedder(str(model_dir), tmp_path_factory.mktemp("cache"))


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """An empty document root."""
    root = tmp_path / "docs"
    root.mkdir()
    return root


@pytest.fixture
def make_pipeline(tmp_path: Path, embedder: Embedder) -> Callable[..., Pipeline]:
    """Build a pipeline over the given roots (default: the ``docs`` root) with its own index."""

    def make(*roots: Path, db_path: Path | None = None, **ingest: object) -> Pipeline:
        settings = IndexSettings(
            DB_PATH=db_path or tmp_path / "db",
            MODEL_NAME=embedder.model_name,
            CACHE_DIR=embedder.cache_dir,
        )
        index = MiniragIndex(settings, embedder=embedder)
        paths = list(roots) or [tmp_path / "docs"]
        return Pipeline(index, Roots(paths), load_settings(**ingest))

    return make


@pytest.fixture
def pipeline(make_pipeline: Callable[..., Pipeline], docs: Path) -> Pipeline:
    return make_pipeline(docs)
