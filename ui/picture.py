"""Helpers for charts drawn as pictures (PIL) where a Plotly redraw per slider move would cost too much: colours,
the font, round tick values and their labels, slanted names. Used by the time-series preview, the gaze-samples
pictures and the areas-of-interest charts."""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def rgb(color: str) -> tuple[int, int, int]:
    """'#rrggbb' or 'rgba(r, g, b, a)' in, (r, g, b) out."""
    if not color.startswith("#"):
        r, g, b = (int(float(v)) for v in color[color.index("(") + 1:].split(",")[:3])
        return r, g, b
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


@lru_cache(maxsize=4)
def font(size: int) -> ImageFont.ImageFont:
    """DejaVu Sans at `size` px (PIL's own font when the file is missing)."""
    try:
        return ImageFont.truetype(FONT_PATH, size)
    except OSError:
        return ImageFont.load_default(size=size)


def nice_ticks(lo: float, hi: float, n: int = 6) -> np.ndarray:
    """Range in, about n round tick values inside it out (1, 2, 5 × 10^e steps)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return np.array([lo])
    raw = (hi - lo) / n
    mag = 10.0 ** math.floor(math.log10(raw))
    step = mag * min((s for s in (1, 2, 2.5, 5, 10) if s * mag >= raw), default=10)
    return np.arange(math.ceil(lo / step), math.floor(hi / step) + 1) * step


def tick_label(v: float, step: float) -> str:
    """Tick value in, short text out (thousands separators, scientific beyond 10⁶)."""
    if v == 0:
        return "0"
    if abs(v) >= 1e6 or abs(v) < 1e-3:
        return f"{v:.1e}".replace("e+0", "e").replace("e-0", "e-")
    # As many decimals as the step needs to be written exactly (2.5 -> 1, 0.25 -> 2): ticks are multiples of it.
    decimals = next((d for d in range(7) if abs(round(step, d) - step) <= 1e-9 * max(1.0, abs(step))), 6)
    return f"{v:,.{decimals}f}"


def slanted_text(text: str, font_: ImageFont.ImageFont, fill: tuple[int, int, int], angle: float) -> Image.Image:
    """Text in, a transparent picture of it rotated `angle` degrees anticlockwise out (the text's end at the top
    right: paste its top-right corner under the point it names)."""
    box = font_.getbbox(text)
    img = Image.new("RGBA", (box[2] - box[0] + 2, box[3] - box[1] + 2), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((1 - box[0], 1 - box[1]), text, fill=(*fill, 255), font=font_)
    return img.rotate(angle, expand=True, resample=Image.BICUBIC)
