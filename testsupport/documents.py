"""Small real documents built in memory: PDFs with text, picture or empty pages; page images;
a minimal .docx."""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:/Windows/Fonts/arial.ttf",
)


def font(size: int) -> Any:
    """A scalable font: a system TrueType font when there is one, else Pillow's own."""
    from PIL import ImageFont

    for candidate in FONT_CANDIDATES:
        if Path(candidate).is_file():
            return ImageFont.truetype(candidate, size)
    return ImageFont.load_default(size=size)


def page_image(lines: Sequence[str], size: tuple[int, int] = (1100, 600), text_px: int = 34) -> Any:
    """A white page with black lines of text, as a flatbed scanner would deliver it."""
    from PIL import Image, ImageDraw

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    face = font(text_px)
    y = 50
    for line in lines:
        if line:
            draw.text((60, y), line, fill=0, font=face)
        y += int(text_px * 1.8)
    return image


def pdf_with_pages(pages: Sequence[str | Any | None]) -> bytes:
    """A valid PDF whose pages are one line of Helvetica text (a str), a full-page picture (a
    Pillow image, embedded the way a scanner does it) or nothing at all (None)."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for page in pages:
        if page is None:
            content, resources = b"", "<< >>"
        elif isinstance(page, str):
            content = f"BT /F1 12 Tf 72 720 Td ({page}) Tj ET".encode()
            resources = "<< /Font << /F1 3 0 R >> >>"
        else:
            gray = page.convert("L")
            data = zlib.compress(gray.tobytes())
            objects.append(
                b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
                % (gray.width, gray.height, len(data))
                + data
                + b"\nendstream"
            )
            content = b"q 612 0 0 792 0 0 cm /Im1 Do Q"
            resources = f"<< /XObject << /Im1 {len(objects)} 0 R >> >>"
        kids.append(_add_page(objects, content, f"/Resources {resources}"))
    return _page_tree_pdf(objects, kids)


def _add_page(objects: list[bytes], content: bytes, entries: str) -> str:
    """Appends a US Letter page drawing ``content``; returns its reference for the page tree."""
    objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {len(objects)} 0 R "
        f"{entries} >>".encode()
    )
    return f"{len(objects)} 0 R"


def _page_tree_pdf(objects: list[bytes], kids: list[str]) -> bytes:
    """The file, once object 2 (left empty until now) lists the pages."""
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    return _pdf_file(objects)


def _pdf_file(objects: Sequence[bytes], trailer: bytes = b"") -> bytes:
    """Numbered objects (object 1 the catalog), the cross-reference table and the trailer."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        trailer,
        xref,
    )
    return bytes(out)


def blank_pdf(pages: int) -> bytes:
    """A PDF whose pages hold no text layer at all: what a converter sees of a scan."""
    return pdf_with_pages([None] * pages)


def docx_bytes(paragraphs: list[tuple[str | None, str]]) -> bytes:
    """A minimal .docx: (style, text) paragraphs, style "Heading1" or None."""
    body = ""
    for style, text in paragraphs:
        ppr = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        body += f"<w:p>{ppr}<w:r><w:t>{text}</w:t></w:r></w:p>"
    ns = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    files = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/word/document.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
            '<Override PartName="/word/styles.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>'
        ),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
            '2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'
        ),
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
            '2006/relationships/styles" Target="styles.xml"/></Relationships>'
        ),
        "word/styles.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><w:styles {ns}>'
            '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
            "</w:style></w:styles>"
        ),
        "word/document.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><w:document {ns}><w:body>{body}'
            "</w:body></w:document>"
        ),
    }
    return zip_bytes(files)


def zip_bytes(files: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


_PASSWORD_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def _rc4(key: bytes, data: bytes) -> bytes:
    state = list(range(256))
    j = 0
    for i in range(256):
        j = (j + state[i] + key[i % len(key)]) % 256
        state[i], state[j] = state[j], state[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + state[i]) % 256
        state[i], state[j] = state[j], state[i]
        out.append(byte ^ state[(state[i] + state[j]) % 256])
    return bytes(out)


def password_protected_pdf(text: str, password: str) -> bytes:
    """A one-page PDF that opens only with ``password``: the standard security handler,
    revision 2 (40-bit RC4), as the PDF reference describes it."""
    import hashlib

    padded = (password.encode("latin-1") + _PASSWORD_PAD)[:32]
    owner = _rc4(hashlib.md5(padded).digest()[:5], padded)
    permissions = (-4).to_bytes(4, "little", signed=True)
    file_id = hashlib.md5(text.encode()).digest()
    key = hashlib.md5(padded + owner + permissions + file_id).digest()[:5]
    user = _rc4(key, _PASSWORD_PAD)
    content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    object_key = hashlib.md5(key + (4).to_bytes(3, "little") + b"\0\0").digest()[:10]
    stream = _rc4(object_key, content)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>"
        % (owner.hex().encode(), user.hex().encode()),
    ]
    ident = file_id.hex().encode()
    return _pdf_file(objects, b" /Encrypt 6 0 R /ID [<%s> <%s>]" % (ident, ident))


# A page of a ruled-table PDF: prose lines above the table, the table's rows (the first is its
# header) or None for a page without one, prose lines below it.
TablePage = tuple[Sequence[str], Sequence[Sequence[str]] | None, Sequence[str]]


def pdf_with_ruled_tables(pages: Sequence[TablePage], rotate: int = 0) -> bytes:
    """A PDF of Helvetica prose pages, each optionally holding one table drawn as a word
    processor prints it: every cell framed by ruling lines, the text in 10 pt inside. With
    ``rotate`` (90, 180, 270) every page is shown turned by that many degrees."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for before, rows, after in pages:
        ops: list[str] = []
        y = 740.0
        for line in before:
            ops.append(f"BT /F1 11 Tf 72 {y:.0f} Td ({_pdf_string(line)}) Tj ET")
            y -= 16
        if rows:
            y = _ruled_table(ops, rows, top=y - 6)
        for line in after:
            ops.append(f"BT /F1 11 Tf 72 {y:.0f} Td ({_pdf_string(line)}) Tj ET")
            y -= 16
        content = "\n".join(ops).encode("latin-1")
        kids.append(
            _add_page(objects, content, f"/Rotate {rotate} /Resources << /Font << /F1 3 0 R >> >>")
        )
    return _page_tree_pdf(objects, kids)


def _ruled_table(ops: list[str], rows: Sequence[Sequence[str]], top: float) -> float:
    """Draws ``rows`` framed by lines from ``top`` down; returns the baseline below it."""
    widths = [max(len(row[col]) for row in rows) * 6 + 16 for col in range(len(rows[0]))]
    row_height = 18
    lefts = [72.0]
    for width in widths:
        lefts.append(lefts[-1] + width)
    bottom = top - row_height * len(rows)
    for index, row in enumerate(rows):
        baseline = top - row_height * index - 13
        for col, cell in enumerate(row):
            ops.append(
                f"BT /F1 10 Tf {lefts[col] + 5:.0f} {baseline:.0f} Td ({_pdf_string(cell)}) Tj ET"
            )
    for index in range(len(rows) + 1):
        y = top - row_height * index
        ops.append(f"{lefts[0]:.0f} {y:.0f} m {lefts[-1]:.0f} {y:.0f} l S")
    for x in lefts:
        ops.append(f"{x:.0f} {top:.0f} m {x:.0f} {bottom:.0f} l S")
    return bottom - 22


def _pdf_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
