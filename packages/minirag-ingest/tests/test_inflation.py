"""Zip bombs and looping PDF page trees are refused before any converter runs."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError, convert_file
from minirag_ingest.conversion.inflation import MAX_ZIP_ENTRIES
from testsupport.documents import docx_bytes
from testsupport.hostile import looping_pdf, zip_bomb


def test_a_small_docx_that_unpacks_to_gigabytes_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    path.write_bytes(zip_bomb(3 << 30))
    assert path.stat().st_size < 4 << 20
    with pytest.raises(ConversionError) as caught:
        convert_file(path, max_file_size=100 << 20)
    assert "unpacks to 3 GB" in str(caught.value) and "zip bomb" in str(caught.value)


def test_the_bound_follows_max_file_size(tmp_path: Path) -> None:
    path = tmp_path / "big.xlsx"
    path.write_bytes(zip_bomb(300 << 20))
    with pytest.raises(ConversionError, match=r"20 x MAX_FILE_SIZE \(200 MB\)"):
        convert_file(path, max_file_size=10 << 20)


def test_a_zip_of_absurdly_many_entries_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "many.epub"
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(MAX_ZIP_ENTRIES + 1):
            archive.writestr(f"e{number}", b"")
    with pytest.raises(ConversionError, match="entries"):
        convert_file(path, max_file_size=100 << 20)


def test_a_pdf_whose_page_tree_loops_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "loop.pdf"
    path.write_bytes(looping_pdf())
    with pytest.raises(ConversionError, match="page tree leads back"):
        convert_file(path, max_file_size=100 << 20)


def test_an_ordinary_docx_is_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "ordinary.docx"
    path.write_bytes(docx_bytes([(None, "An ordinary document about pumps.")]))
    assert "pumps" in convert_file(path, max_file_size=1 << 20).markdown
