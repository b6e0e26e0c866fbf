"""A generated fuzz set: broken and hostile files mixed with good ones, as an untrusted folder
holds them. Nothing here is committed as a binary; every file is written by this script.

    python -m testsupport.hostile OUT [--scale 1.0]

``scale`` sizes the costly cases: at 1.0 the single-line text is 50 MB and the run without
whitespace 2 MB, as in issue 21; the tests use a small scale, since every chunk of them is
embedded. Each :class:`Case` says what must become of its file:

* ``indexed`` - a good file: it must be indexed, and its text must contain ``find``;
* ``refused`` - it must be a per-file error (binary content, bombs, files with no text);
* ``either`` - a broken file: a per-file error or indexed text, but never a crash;
* ``skipped`` - not a regular file inside the root (FIFO, links out, hidden): never listed.

``forbid`` is text that must never reach the index (an external entity's target, a file
outside the root).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from testsupport.documents import _pdf_file as pdf_file
from testsupport.documents import docx_bytes, pdf_with_pages

Expect = Literal["indexed", "refused", "either", "skipped"]
SECRET = "PRIVATE-KEY-OUTSIDE-THE-ROOT"
PROSE = (
    "The pump station at Riverside was inspected in March and the valves were replaced. "
    "Maintenance crews logged every reading in the quarterly report. "
)


@dataclass(frozen=True)
class Case:
    name: str  # relative path under the set's folder, as os.fsdecode gives it
    expect: Expect
    why: str
    find: str | None = None  # a word the indexed text must hold
    forbid: str | None = None  # text that must never be indexed

    def path(self, folder: Path) -> Path:
        return folder / self.name


# --- small real files --------------------------------------------------------------------------


def docx(text: str) -> bytes:
    return docx_bytes([("Heading1", "Inspection"), (None, text)])


def with_entry(archive: bytes, name: str, data: bytes | str) -> bytes:
    """``archive`` with the entry ``name`` replaced by ``data``."""
    source = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            payload = data if item.filename == name else source.read(item.filename)
            target.writestr(item.filename, payload)
    return out.getvalue()


def pptx(text: str) -> bytes:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Inspection"
    slide.placeholders[1].text = text
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def xlsx(rows: list[list[object]]) -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def epub(text: str, *, with_opf: bool = True) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        if with_opf:
            archive.writestr(
                "content.opf",
                '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                'version="3.0" unique-identifier="id"><metadata '
                'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Field book</dc:title>'
                '<dc:identifier id="id">x</dc:identifier></metadata><manifest>'
                '<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>'
                '</manifest><spine><itemref idref="c1"/></spine></package>',
            )
        archive.writestr(
            "c1.xhtml",
            f'<html xmlns="http://www.w3.org/1999/xhtml"><body><p>{text}</p></body></html>',
        )
    return out.getvalue()


def notebook(text: str) -> bytes:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"# Notes\n\n{text}"]}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def vtt(text: str) -> bytes:
    return f"WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Anna>{text}\n".encode()


# --- hostile files ------------------------------------------------------------------------------


def repeated_deflate(block: bytes, count: int) -> bytes:
    """Raw deflate of ``block`` repeated ``count`` times, made in milliseconds: after a full
    flush a deflate stream holds no history, so one flushed segment can simply be repeated."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    return segment * count + b"\x03\x00"  # ends with an empty final block


def zip_bomb(declared: int, name: str = "word/document.xml") -> bytes:
    """A zip whose one entry inflates to ``declared`` bytes of zeros (a few MB on disk);
    ``declared`` is a whole number of MB. Its CRC is not even right: nothing should read that
    far."""
    return _raw_zip(name, repeated_deflate(bytes(1 << 20), declared >> 20), declared, 0)


def lying_zip(real: int, declared: int = 1000) -> bytes:
    """A zip whose entry claims ``declared`` bytes but inflates to ``real``."""
    data = zlib.compress(bytes(real), 9)[2:-4]
    return _raw_zip("word/document.xml", data, declared, 0)


def _raw_zip(name: str, deflated: bytes, size: int, crc: int) -> bytes:
    encoded = name.encode()
    big = size >= 0xFFFFFFFF
    extra = struct.pack("<HHQQ", 1, 16, size, len(deflated)) if big else b""
    shown_size = 0xFFFFFFFF if big else size
    shown_packed = 0xFFFFFFFF if big else len(deflated)
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0, crc, shown_packed, shown_size,
        len(encoded), len(extra),
    )  # fmt: skip
    body = local + encoded + extra + deflated
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0, crc, shown_packed, shown_size,
        len(encoded), len(extra), 0, 0, 0, 0, 0,
    )  # fmt: skip
    directory = central + encoded + extra
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(directory), len(body), 0)
    return body + directory + end


def many_entries(count: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for number in range(count):
            archive.writestr(f"xl/e{number}.xml", b"")
    return out.getvalue()


def looping_pdf() -> bytes:
    """A PDF whose page tree leads back to its own root."""
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Pages /Kids [2 0 R 4 0 R] /Count 1 /Parent 2 0 R >>",
            b"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 200 200] >>",
        ]
    )


def pdf_stream_bomb(inflated: int) -> bytes:
    """A one-page PDF whose content stream inflates to ``inflated`` bytes (whole MB) of spaces."""
    block = b" " * (1 << 20)
    adler = 1
    for _ in range(inflated >> 20):
        adler = zlib.adler32(block, adler)
    stream = b"\x78\xda" + repeated_deflate(block, inflated >> 20) + struct.pack(">I", adler)
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R >>",
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream)
            + stream
            + b"\nendstream",
        ]
    )


def billion_laughs() -> str:
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 10)
    )
    return (
        f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
    )


def external_entity(target: Path) -> str:
    return (
        f'<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY x SYSTEM "file://{target}">]>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>before &x; after</w:t></w:r></w:p></w:body></w:document>"
    )


def elf_like() -> bytes:
    return b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHI", 2, 62, 1) + bytes(4000)


# --- the set -----------------------------------------------------------------------------------


def build_fuzz_set(folder: Path, *, scale: float = 1.0, seed: int = 21) -> list[Case]:
    """Write the fuzz set into ``folder`` (created) and return what must become of each file.

    ``folder`` is meant to be a document root; a sibling ``outside`` folder holds the file the
    links out of the root point at.
    """
    chance = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    outside = folder.parent / f"{folder.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "id_rsa").write_text(f"{SECRET}\n", encoding="utf-8")
    cases: list[Case] = []
    good_docx = docx(f"Valve pressure logged. {PROSE}")

    def add(name: str, data: bytes | str, expect: Expect, why: str, **more: str) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            data = data.encode("utf-8")
        try:
            with open(os.fsencode(path), "wb") as handle:
                handle.write(data)
        except (OSError, UnicodeError):  # a name this filesystem does not allow
            return
        cases.append(Case(name, expect, why, **more))

    def special(name: str, make: Callable[[Path], None], why: str, **more: str) -> None:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        try:
            make(folder / name)
        except OSError:
            return
        cases.append(Case(name, "skipped", why, **more))

    # Good files of every format.
    add("good/plain.md", f"# Riverside\n\n{PROSE}\n", "indexed", "markdown", find="Riverside")
    add("good/notes.txt", f"Budget meeting notes. {PROSE}\n", "indexed", "text", find="Budget")
    add("good/report.docx", good_docx, "indexed", "docx", find="Valve")
    add("good/slides.pptx", pptx(f"Slide about turbines. {PROSE}"), "indexed", "pptx",
        find="turbines")  # fmt: skip
    add("good/sheet.xlsx", xlsx([["item", "count"], ["gaskets", 40]]), "indexed", "xlsx",
        find="gaskets")  # fmt: skip
    add("good/paper.pdf", pdf_with_pages([f"Conveyor belts manual. {PROSE}"]), "indexed", "pdf",
        find="Conveyor")  # fmt: skip
    add("good/book.epub", epub(f"Harbour chapter. {PROSE}"), "indexed", "epub", find="Harbour")
    add("good/page.html", f"<html><body><h1>Lighthouse</h1><p>{PROSE}</p></body></html>",
        "indexed", "html", find="Lighthouse")  # fmt: skip
    add("good/table.csv", "name,qty\nflanges,12\nbolts,90\n", "indexed", "csv", find="flanges")
    add("good/notebook.ipynb", notebook(f"Calibration steps. {PROSE}"), "indexed", "notebook",
        find="Calibration")  # fmt: skip
    add("good/call.vtt", vtt(f"We agreed on the dredging plan. {PROSE}"), "indexed", "vtt",
        find="dredging")  # fmt: skip
    add("good/zalgo.md", "# Z̸̢a̶l̷g̵o̸\n\nשלום עולם مرحبا Ελληνικά 中文文本 emoji 📄\n",
        "indexed", "mixed scripts", find="Ελληνικά")  # fmt: skip

    # Names that are data, not syntax.
    body = f"# Names\n\nQuoted names are data. {PROSE}\n"
    for name in (
        'names/it\'s "quoted".md',
        "names/line\nbreak.md",
        os.fsdecode(b"names/caf\xe9 latin1.md"),
        os.fsdecode(b"names/\xff\xfe bytes.md"),
        "names/-rf.md",
        "names/--json.txt",
        "names/back\\slash.md",
        "names/looks\\xe9escaped.md",
        "names/$(touch pwned).md",
        "names/ leading space.md",
        "names/tab\there.md",
        "names/percent %41.md",
        "names/emoji 📄.md",
        "names/" + "long" * 60 + ".md",
    ):
        add(name, body, "indexed", "an odd but legal file name", find="Quoted")

    # Text that is not UTF-8, or not text.
    text = f"Turbine inspection log. {PROSE}" * 3
    add("enc/utf16le-no-bom.txt", text.encode("utf-16-le"), "indexed", "UTF-16 LE, no BOM",
        find="Turbine")  # fmt: skip
    add("enc/utf16be-no-bom.txt", text.encode("utf-16-be"), "indexed", "UTF-16 BE, no BOM",
        find="Turbine")  # fmt: skip
    add("enc/utf32-no-bom.md", text.encode("utf-32-le"), "indexed", "UTF-32, no BOM",
        find="Turbine")  # fmt: skip
    add("enc/cp1251.txt", ("Отчёт о проверке насосов. " * 20).encode("cp1251"), "indexed",
        "a legacy Cyrillic encoding", find="насосов")  # fmt: skip
    add("enc/latin1.txt", (f"Caf\xe9 cr\xe8me report. {PROSE}").encode("latin-1"), "either",
        "not UTF-8, read by a guessed encoding")  # fmt: skip
    add("enc/one-bad-byte.md", PROSE.encode() + b"\xff" + PROSE.encode(), "either",
        "UTF-8 with one invalid byte")  # fmt: skip
    add("enc/nuls.txt", bytes(5000), "refused", "5,000 NUL bytes")
    add("enc/nuls.csv", b"a,b\n" + bytes(3000), "refused", "a CSV of NULs")
    add("enc/nuls.md", b"# Title\n" + bytes(2000), "refused", "markdown with NULs")
    add("enc/nuls.html", b"<html>" + bytes(2000), "refused", "HTML with NULs")
    add("enc/random.txt", chance.randbytes(20000), "refused", "random bytes")
    add("enc/png.md", b"\x89PNG\r\n\x1a\n" + chance.randbytes(5000), "refused", "a PNG as .md")
    add("enc/elf.txt", elf_like(), "refused", "an executable as .txt")
    add("enc/gzip.txt", gzip.compress(PROSE.encode() * 100), "refused", "gzip as .txt")
    add("enc/controls.txt", b"\x01\x02\x03\x04\x05abc" * 500, "refused", "control characters")
    add("enc/empty.txt", b"", "either", "an empty file (indexed by its name, or refused)")
    add("enc/blank.md", " \n\t\n" * 50, "either", "only whitespace")

    # Office files: truncated, garbage, bombs.
    add("office/truncated.docx", good_docx[: len(good_docx) // 2], "either", "cut in half")
    add("office/garbage.docx", chance.randbytes(8000), "refused", "random bytes as .docx")
    add("office/empty.docx", b"", "refused", "0 bytes")
    add("office/no-document.docx", with_entry(good_docx, "word/document.xml", ""), "either",
        "a zip whose document part is empty")  # fmt: skip
    add("office/bomb.docx", zip_bomb(3 << 30), "refused", "3 GB declared in a few MB")
    add("office/lying-bomb.docx", lying_zip(200 << 20), "either",
        "declares 1 KB, inflates to 200 MB")  # fmt: skip
    add("office/laughs.docx", with_entry(good_docx, "word/document.xml", billion_laughs()),
        "either", "an XML entity expansion bomb")  # fmt: skip
    add("office/xxe.docx",
        with_entry(good_docx, "word/document.xml", external_entity(outside / "id_rsa")),
        "either", "an external entity naming a file outside the root", forbid=SECRET)  # fmt: skip
    add("office/pdf-inside.docx", pdf_with_pages(["not a docx"]), "either", "a PDF as .docx")
    add("office/truncated.xlsx", xlsx([["a", 1]])[:900], "either", "cut short")
    add("office/garbage.xlsx", chance.randbytes(4000), "refused", "random bytes as .xlsx")
    add("office/many-entries.xlsx", many_entries(12_000), "refused", "12,000 zip entries")
    add("office/formula.xlsx", xlsx([["=cmd|' /C calc'!A0", "=HYPERLINK(\"http://x\")"]]),
        "either", "formula injection text")  # fmt: skip
    deck = pptx("A slide")
    add("office/truncated.pptx", deck[: len(deck) // 3], "either", "cut short")
    add("office/garbage.pptx", chance.randbytes(4000), "refused", "random bytes as .pptx")
    book = epub("A chapter")
    add("office/truncated.epub", book[: len(book) // 2], "either", "cut short")
    add("office/garbage.epub", chance.randbytes(3000), "refused", "random bytes as .epub")
    add("office/no-opf.epub", epub("Orphan chapter", with_opf=False), "either",
        "an epub without its package file")  # fmt: skip

    # PDFs.
    good_pdf = pdf_with_pages([f"Conveyor {PROSE}"])
    add("pdf/truncated.pdf", good_pdf[: len(good_pdf) // 2], "either", "cut in half")
    add("pdf/garbage.pdf", chance.randbytes(6000), "refused", "random bytes as .pdf")
    add("pdf/empty.pdf", b"", "refused", "0 bytes")
    add("pdf/loop.pdf", looping_pdf(), "refused", "a page tree that loops")
    add("pdf/no-text.pdf", pdf_with_pages([None, None]), "refused", "pages without text")
    add("pdf/stream-bomb.pdf", pdf_stream_bomb(1536 << 20), "either",
        "a content stream that inflates to 1.5 GB")  # fmt: skip
    add("pdf/docx-inside.pdf", good_docx, "refused", "a docx as .pdf")

    # HTML, notebooks, transcripts.
    depth = max(1000, int(100_000 * scale))
    add("html/nested.html", "<div>" * depth + "deep" + "</div>" * depth, "either",
        f"{depth:,} nested elements")  # fmt: skip
    add("html/script-only.html", "<html><script>var a = 1;</script></html>", "either",
        "no text at all")  # fmt: skip
    add("html/huge-attribute.html", f'<p title="{"a" * 100_000}">Attribute</p>', "either",
        "a 100 KB attribute")  # fmt: skip
    add("nb/not-json.ipynb", "this is not JSON {", "refused", "a notebook that is not JSON")
    add("nb/list.ipynb", "[1, 2, 3]", "either", "JSON, but not a notebook")
    add("nb/truncated.ipynb", notebook("cut")[:40], "refused", "a notebook cut short")
    add("vtt/no-header.vtt", "00:00:01.000 --> 00:00:02.000\nHello\n", "refused",
        "a transcript without its WEBVTT line")  # fmt: skip
    add("vtt/utf16.vtt", vtt("Hello there").decode().encode("utf-16-le"), "refused",
        "a transcript in UTF-16 without a BOM")  # fmt: skip
    add("vtt/garbage.vtt", chance.randbytes(2000), "refused", "random bytes as .vtt")

    # Size and shape.
    line_bytes = max(20_000, int(50_000_000 * scale))
    words = (PROSE * (line_bytes // len(PROSE) + 1))[:line_bytes]
    add("size/one-line.txt", "Longline " + words.replace("\n", " "), "indexed",
        f"{line_bytes:,} bytes on one line", find="Longline")  # fmt: skip
    run = max(5_000, int(2_000_000 * scale))
    add("size/unbroken.md", "Unbroken token follows: " + "Q7x" * (run // 3), "indexed",
        f"a {run:,}-character run without whitespace", find="Unbroken")  # fmt: skip
    cells = max(300, int(3_000_000 * scale))
    add("size/huge-row.md", "| a | b |\n|---|---|\n| " + "cell " * cells + "| end |\n",
        "indexed", f"a table row of {cells:,} words", find="cell")  # fmt: skip
    lines = max(300, int(3_000_000 * scale))
    add("size/open-fence.md", "# Code\n\n```python\n" + "x = 1\n" * lines, "indexed",
        "a code fence that never closes", find="Code")  # fmt: skip
    quotes = max(500, int(5_000_000 * scale))
    add("size/quotes.md", ">" * quotes + " deep quote\n", "either", f"{quotes:,} nested quotes")
    dashes = max(2_000, int(4_000_000 * scale))
    add("size/dashes.txt", "-" * dashes, "either", f"{dashes:,} dashes, one token each")

    # Not regular files, or not inside the root.
    if hasattr(os, "mkfifo"):
        special("special/pipe.txt", os.mkfifo, "a FIFO named .txt")
    if hasattr(os, "symlink"):
        special("special/passwd.md", lambda p: p.symlink_to(outside / "id_rsa"),
                "a link out of the root", forbid=SECRET)  # fmt: skip
        special("special/broken.md", lambda p: p.symlink_to(folder / "nowhere.md"),
                "a link to nothing")  # fmt: skip
        special("special/loop.md", lambda p: p.symlink_to(p), "a link to itself")
    special("special/.hidden.md", lambda p: p.write_text("hidden"), "a hidden file")
    special("special/~$lock.docx", lambda p: p.write_bytes(b"lock"), "an Office lock file")
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    cases = build_fuzz_set(args.folder, scale=args.scale)
    for case in cases:
        print(f"{case.expect:<8} {case.name!r}: {case.why}")
    print(f"{len(cases)} files in {args.folder}")


if __name__ == "__main__":
    main()
