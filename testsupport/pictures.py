"""Office documents with embedded pictures, built in memory: pictures drawn with Pillow (a word
in a large font, a logo without text, an icon, a rule), a .docx written by hand (the parts
mammoth reads) and a .pptx written with python-pptx."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from testsupport.documents import font, zip_bytes


@dataclass(frozen=True)
class Picture:
    """A PNG to embed, with its alt text (the description Word and PowerPoint store)."""

    png: bytes
    alt: str = ""


def png_bytes(image: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def word_picture(text: str, size: tuple[int, int] = (640, 200), text_px: int = 56) -> bytes:
    """A screenshot-like PNG: ``text`` in black on a pale grey field with a border."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, (236, 238, 242))
    draw = ImageDraw.Draw(image)
    draw.rectangle((6, 6, size[0] - 7, size[1] - 7), outline=(90, 90, 90), width=2)
    draw.text((30, (size[1] - text_px) // 2 - 4), text, fill=(0, 0, 0), font=font(text_px))
    return png_bytes(image)


def logo_picture(side: int = 220) -> bytes:
    """A logo without letters: a coloured disc with a square and a bar in it."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (side, side), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.ellipse((8, 8, side - 8, side - 8), fill=(240, 140, 20))
    draw.rectangle((side // 3, side // 4, side * 2 // 3, side * 3 // 4), fill=(20, 60, 160))
    draw.rectangle((side // 5, side // 2 - 6, side * 4 // 5, side // 2 + 6), fill=(255, 255, 255))
    return png_bytes(image)


def icon_picture(side: int = 32) -> bytes:
    """A small square icon."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (side, side), (30, 80, 200))
    ImageDraw.Draw(image).ellipse((4, 4, side - 4, side - 4), fill=(255, 255, 255))
    return png_bytes(image)


def rule_picture(width: int = 600, height: int = 4) -> bytes:
    """A horizontal rule, as documents embed between sections."""
    from PIL import Image

    return png_bytes(Image.new("RGB", (width, height), (120, 120, 120)))


# -- .docx -------------------------------------------------------------------------------------

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_PIC = "http://schemas.openxmlformats.org/drawingml/2006/picture"
_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"


def _drawing(number: int, alt: str) -> str:
    emu = 914400 * 3
    return (
        f'<w:r><w:drawing><wp:inline><wp:extent cx="{emu}" cy="{emu // 3}"/>'
        f'<wp:docPr id="{number}" name="Picture {number}" descr="{alt}"/>'
        f'<a:graphic><a:graphicData uri="{_PIC}"><pic:pic>'
        f'<pic:nvPicPr><pic:cNvPr id="{number}" name="p{number}.png" descr="{alt}"/>'
        "<pic:cNvPicPr/></pic:nvPicPr>"
        f'<pic:blipFill><a:blip r:embed="rIdPic{number}"/></pic:blipFill>'
        f'<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="{emu}" cy="{emu // 3}"/></a:xfrm>'
        '<a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic>'
        "</wp:inline></w:drawing></w:r>"
    )


def docx_with_pictures(items: Sequence[str | Picture]) -> bytes:
    """A .docx whose paragraphs are text (a str) or one embedded picture each (a Picture)."""
    body, rels, media = "", "", {}
    for number, item in enumerate(items, start=1):
        if isinstance(item, str):
            body += f"<w:p><w:r><w:t>{item}</w:t></w:r></w:p>"
            continue
        body += f"<w:p>{_drawing(number, item.alt)}</w:p>"
        rels += (
            f'<Relationship Id="rIdPic{number}" Type="{_R}/image" '
            f'Target="media/image{number}.png"/>'
        )
        media[f"word/media/image{number}.png"] = item.png
    namespaces = f'xmlns:w="{_W}" xmlns:r="{_R}" xmlns:wp="{_WP}" xmlns:a="{_A}" xmlns:pic="{_PIC}"'
    files: dict[str, str | bytes] = {
        "[Content_Types].xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="{_TYPES}">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Default Extension="png" ContentType="image/png"/>'
            f'<Override PartName="/word/document.xml" ContentType="{_MAIN}"/></Types>'
        ),
        "_rels/.rels": (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_REL}">'
            f'<Relationship Id="rId1" Type="{_R}/officeDocument" Target="word/document.xml"/>'
            "</Relationships>"
        ),
        "word/_rels/document.xml.rels": (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{_REL}">{rels}'
            "</Relationships>"
        ),
        "word/document.xml": (
            f'<?xml version="1.0" encoding="UTF-8"?><w:document {namespaces}><w:body>{body}'
            "</w:body></w:document>"
        ),
        **media,
    }
    return zip_bytes(files)


# -- .pptx -------------------------------------------------------------------------------------


def pptx_with_pictures(slides: Sequence[tuple[str, Sequence[Picture]]]) -> bytes:
    """A .pptx of (title, pictures) slides, each picture placed on its slide with its alt."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    layout = deck.slide_layouts[5]  # title only
    for title, pictures in slides:
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        for number, picture in enumerate(pictures):
            shape = slide.shapes.add_picture(
                io.BytesIO(picture.png), Inches(0.5), Inches(1.5 + number * 0.2), Inches(4)
            )
            shape._element.nvPicPr.cNvPr.set("descr", picture.alt)
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def html_with_pictures(items: Sequence[str | Picture]) -> str:
    """An HTML page of paragraphs and ``<img src="data:...">`` pictures."""
    import base64

    parts = []
    for item in items:
        if isinstance(item, str):
            parts.append(f"<p>{item}</p>")
        else:
            data = base64.b64encode(item.png).decode()
            parts.append(f'<p><img alt="{item.alt}" src="data:image/png;base64,{data}"></p>')
    return f"<html><head><title>Pictures</title></head><body>{''.join(parts)}</body></html>"
