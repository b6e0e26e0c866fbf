"""An empty document is reported one way, however it is empty: "converted to no text", with no
warning about undecodable characters and no converter-internal error."""

from __future__ import annotations

import io
import logging
import zipfile
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError, convert_file
from minirag_ingest.sync.run import sync
from testsupport.documents import docx_bytes

FILES = Path(__file__).parent / "files"


def without_body(docx: bytes) -> bytes:
    """``docx`` with a word/document.xml that has no body element (what mammoth calls "Could
    not find the body element")."""
    source = zipfile.ZipFile(io.BytesIO(docx))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name in source.namelist():
            data = source.read(name)
            if name == "word/document.xml":
                data = (
                    b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://'
                    b'schemas.openxmlformats.org/wordprocessingml/2006/main"></w:document>'
                )
            archive.writestr(name, data)
    return out.getvalue()


def empty_documents(folder: Path) -> list[Path]:
    """Every kind of empty document met: a Word file saved with nothing typed (python-docx's
    default), one with an empty body, one with no body, and files of 0 bytes."""
    made = {
        "saved-blank.docx": (FILES / "python-docx" / "doc-default.docx").read_bytes(),
        "empty-body.docx": docx_bytes([]),
        "no-body.docx": without_body(docx_bytes([(None, "x")])),
        "zero.docx": b"",
        "zero.pptx": b"",
        "zero.xlsx": b"",
        "zero.pdf": b"",
    }
    for name, data in made.items():
        (folder / name).write_bytes(data)
    return [folder / name for name in made]


def test_every_empty_document_converts_to_no_text_without_a_decoding_warning(
    pipeline, docs: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for path in empty_documents(docs):
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            assert convert_file(path, max_file_size=1 << 30).markdown == ""
            with pytest.raises(ConversionError) as raised:
                pipeline.ingest_file(path)
        assert raised.value.reason.startswith("converted to no text: the document is empty")
        assert not caplog.records, (path.name, [r.getMessage() for r in caplog.records])


def test_a_sync_reports_each_empty_document_the_same_way(pipeline, docs: Path) -> None:
    paths = empty_documents(docs)
    report = sync(pipeline)
    assert report.failed == len(paths) and report.ingested == 0
    reasons = {error["path"]: error["reason"] for error in report.errors}
    assert set(reasons) == {str(p) for p in paths}
    assert len(set(reasons.values())) == 1, reasons
    assert next(iter(reasons.values())).startswith("converted to no text")


def test_a_broken_word_file_still_says_it_failed(docs: Path) -> None:
    path = docs / "broken.docx"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ConversionError, match="conversion failed"):
        convert_file(path, max_file_size=1 << 30)
