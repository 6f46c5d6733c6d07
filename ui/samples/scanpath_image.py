"""The original and protected scanpaths as a picture over the stimulus (a JPEG at display size).

Why a picture: the time and method sliders redraw this figure on every move, and a Plotly redraw costs the browser
~40 ms (more than a trivial page's whole re-render); drawing two polylines on the stimulus with PIL costs a few
ms and the browser only swaps an image. The Plotly figure (axes in px, zoom) is one toggle away. Colours are the
page's (ui/samples/figs.METHOD_COLORS, from ui/theme.py).
"""
from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ui import theme

WIDTH = 820  # px, the figure's display width
LEGEND_FONT = 15


def _rgb(color: str) -> tuple[int, int, int]:
    """'#rrggbb' or 'rgba(r,g,b,a)' in, (r, g, b) out."""
    if color.startswith("#"):
        c = color.lstrip("#")
        return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
    r, g, b = (int(float(v)) for v in color[color.index("(") + 1:].split(",")[:3])
    return r, g, b


def background(stimulus_uri: str | None, size: tuple[int, int]) -> Image.Image:
    """A stimulus JPEG data URI (or None: the bare screen) -> the faded picture the scanpaths are drawn on."""
    white = Image.new("RGB", size, (255, 255, 255))
    if not stimulus_uri:
        return Image.new("RGB", size, (247, 248, 250))
    raw = base64.b64decode(stimulus_uri.split(",", 1)[1])
    with Image.open(io.BytesIO(raw)) as im:
        stim = im.convert("RGB").resize(size)
    return Image.blend(white, stim, 0.55)  # the Plotly figure draws it at opacity 0.55


def _segments(xy: np.ndarray) -> list[list[float]]:
    """(n, 2) points with NaN gaps (blinks) -> flat coordinate lists of the finite runs."""
    ok = np.isfinite(xy).all(axis=1)
    cuts = np.flatnonzero(np.diff(ok.astype(np.int8)) != 0) + 1
    return [run.ravel().tolist() for run, good in zip(np.split(xy, cuts), np.split(ok, cuts)) if good[0] and len(run)]


def scanpath_jpeg(original: np.ndarray, protected: np.ndarray, names: tuple[str, str], colors: tuple[str, str],
                  screen: tuple[int, int], stimulus_uri: str | None) -> bytes:
    """Trailing (x, y) px of the original and the protected stream, their names and colours, the screen size and
    the stimulus -> the scanpaths over the stimulus as JPEG bytes (a ring marks each stream's latest sample)."""
    sw, sh = screen
    size = (WIDTH, max(1, round(WIDTH * sh / sw)))
    img = background(stimulus_uri, size)
    d = ImageDraw.Draw(img)
    scale = np.array([size[0] / sw, size[1] / sh])
    for xy, color, width in ((original, colors[0], 2), (protected, colors[1], 3)):
        pts = np.asarray(xy, float).reshape(-1, 2) * scale
        rgb = _rgb(color)
        for seg in _segments(pts):
            if len(seg) >= 4:
                d.line(seg, fill=rgb, width=width, joint="curve")
        finite = pts[np.isfinite(pts).all(axis=1)]
        if len(finite):
            x, y = finite[-1]
            d.ellipse([x - 8, y - 8, x + 8, y + 8], outline=rgb, width=3)
    d.rectangle([0, 0, size[0] - 1, size[1] - 1], outline=_rgb(theme.MUTED), width=1)
    font = ImageFont.load_default(size=LEGEND_FONT)
    x = 10
    for name, color in zip(names, colors):  # the legend, top left, on a white box
        w = d.textlength(name, font=font)
        d.rectangle([x - 4, 6, x + 30 + w + 4, 30], fill=(255, 255, 255))
        d.line([x, 18, x + 24, 18], fill=_rgb(color), width=3)
        d.text((x + 30, 18), name, fill=_rgb(theme.INK), font=font, anchor="lm")
        x += int(w) + 52
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()
