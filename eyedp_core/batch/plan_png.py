"""A bundle's heatmap picture says what it is: the released map (batch.outputs.png_bytes, unchanged) above a band
with its colour legend (the app's ramp, eyedp_core.heatmaps.colour, over white, from 0 to the top of the colour
range, which is read off the released map) and a caption with the output, ε and δ. Everything drawn is
post-processing of the released map."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from eyedp_core.batch.outputs import png_bytes
from eyedp_core.heatmaps.colour import heat_rgb
from eyedp_core.heatmaps.maps import smooth
from eyedp_core.heatmaps.release import colour_range

__all__ = ["BAND_PX", "LEGEND_PX", "legend_png"]

BAND_PX = 44  # height of the band under the map
LEGEND_PX = 12  # height of the colour bar inside it
_MARGIN = 8


def legend_png(values: np.ndarray, cell_px: int, sigma_px: float, width: int, height: int, caption: str) -> bytes:
    """Released map, grid, smoothing, canvas and caption in, a PNG of the map with its colour legend and caption
    under it out (the canvas grows by BAND_PX rows; the map's own pixels are png_bytes')."""
    top = colour_range(smooth(values, sigma_px, cell_px))
    picture = Image.open(io.BytesIO(png_bytes(values, cell_px, sigma_px, width, height))).convert("RGB")
    w, h = picture.size
    out = Image.new("RGB", (w, h + BAND_PX), (255, 255, 255))
    out.paste(picture, (0, 0))
    bar_w = max(2, w - 2 * _MARGIN)
    bar = np.repeat(heat_rgb(np.linspace(0.0, 1.0, bar_w))[None, :, :], LEGEND_PX, axis=0)
    out.paste(Image.fromarray(bar, "RGB"), (_MARGIN, h + 4))
    draw = ImageDraw.Draw(out)
    font = ImageFont.load_default()
    draw.text((_MARGIN, h + 4 + LEGEND_PX + 2), "0", fill=(0, 0, 0), font=font)
    label = f"{top:.3g} fixations per observer and cell (and above)"
    tw = draw.textlength(label, font=font)
    draw.text((max(_MARGIN, _MARGIN + bar_w - tw), h + 4 + LEGEND_PX + 2), label, fill=(0, 0, 0), font=font)
    draw.text((_MARGIN, h + 4 + LEGEND_PX + 14), caption, fill=(0, 0, 0), font=font)
    buf = io.BytesIO()
    out.save(buf, format="PNG")
    return buf.getvalue()
