"""Draw the Desktop extension's icon, ``mcpb/icon.png`` (512 x 512 PNG), with Pillow.

    uv run python mcpb/make_icon.py

A page with lines of text under a magnifying glass, on a rounded dark-teal square. The PNG is
committed; re-run this only to change the drawing. Drawn at 4x and scaled down for smooth edges.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

SIZE = 512
SCALE = 4
BACKGROUND = (18, 78, 92)
PAGE = (246, 244, 238)
INK = (120, 140, 150)
GLASS = (255, 196, 61)
OUTPUT = Path(__file__).resolve().parent / "icon.png"


def draw() -> Image.Image:
    s = SIZE * SCALE
    image = Image.new("RGBA", (s, s), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        return (int(x0 * s), int(y0 * s), int(x1 * s), int(y1 * s))

    pen.rounded_rectangle(box(0.02, 0.02, 0.98, 0.98), radius=int(0.2 * s), fill=BACKGROUND)
    pen.rounded_rectangle(box(0.2, 0.14, 0.68, 0.8), radius=int(0.04 * s), fill=PAGE)
    for i, length in enumerate((0.34, 0.28, 0.36, 0.22, 0.3)):
        y = 0.24 + i * 0.1
        pen.rounded_rectangle(
            box(0.27, y, 0.27 + length, y + 0.035), radius=int(0.017 * s), fill=INK
        )
    # The magnifier: a ring with a handle towards the lower right.
    x0, y0, x1, y1 = box(0.62, 0.62, 0.84, 0.84)
    pen.line([(x0, y0), (x1, y1)], fill=GLASS, width=int(0.075 * s))
    pen.ellipse(box(0.42, 0.42, 0.72, 0.72), outline=GLASS, width=int(0.055 * s))
    return image.resize((SIZE, SIZE), Image.Resampling.LANCZOS)


def main() -> None:
    draw().save(OUTPUT, optimize=True)
    print(f"wrote {OUTPUT} ({OUTPUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
