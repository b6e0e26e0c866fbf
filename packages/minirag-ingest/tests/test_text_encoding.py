"""Text formats: encodings told by their bytes, and binary content refused naming the file."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from minirag_ingest.conversion.convert import ConversionError, convert_file

TEXT = "Quarterly report: the pump station at Riverside was inspected in March.\n" * 5
RUSSIAN = "Отчёт за квартал: насосную станцию проверили в марте.\n" * 5


def convert(path: Path) -> str:
    return convert_file(path, max_file_size=1 << 24).markdown


@pytest.mark.parametrize(
    ("name", "data", "word"),
    [
        ("utf16le.txt", TEXT.encode("utf-16-le"), "Riverside"),
        ("utf16be.txt", TEXT.encode("utf-16-be"), "Riverside"),
        ("russian-utf16le.md", RUSSIAN.encode("utf-16-le"), "насосную"),
        ("utf32le.txt", TEXT.encode("utf-32-le"), "Riverside"),
        ("utf32be.csv", "name,value\npump,42\n".encode("utf-32-be"), "pump"),
        ("page.html", f"<p>{TEXT}</p>".encode("utf-16-le"), "Riverside"),
    ],
)
def test_utf16_and_utf32_without_a_bom_are_read_as_text(
    tmp_path: Path, name: str, data: bytes, word: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    markdown = convert(path)
    assert "\x00" not in markdown
    assert word in markdown


def test_a_legacy_encoding_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "cp1251.txt"
    path.write_bytes(RUSSIAN.encode("cp1251"))
    assert "насосную станцию" in convert(path)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("nuls.txt", b"\x00" * 5000),
        ("nuls.csv", b"a,b\n" + b"\x00" * 3000),
        ("picture.md", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40),
        ("archive.txt", gzip.compress(TEXT.encode() * 50)),
        ("controls.txt", b"\x01\x02\x03\x04abc" * 200),
    ],
)
def test_binary_content_in_a_text_format_is_refused_naming_the_file(
    tmp_path: Path, name: str, data: bytes
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ConversionError) as caught:
        convert(path)
    message = str(caught.value)
    assert message.startswith(f"{name}: ")
    assert "not text" in message and "save it as UTF-8" in message
