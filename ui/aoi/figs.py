"""Pictures (PIL) and the one Plotly chart of the Areas of interest view."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from PIL import Image, ImageDraw

from eyedp_core.aoi.metrics import MetricResult
from eyedp_core.aoi.shapes import Aoi
from ui import picture, theme
from ui.text import html_text

DISPLAY_WIDTH = 900


def aoi_picture(image: np.ndarray, aois: tuple[Aoi, ...]) -> Image.Image:
    """Stimulus pixels and AOIs in, the stimulus at display width with each AOI outlined and named out."""
    img = Image.fromarray(np.asarray(image, dtype=np.uint8)).convert("RGB")
    s = min(1.0, DISPLAY_WIDTH / img.width)
    img = img.resize((max(1, round(img.width * s)), max(1, round(img.height * s))))
    over = Image.new("RGBA", img.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(over)
    f = picture.font(12)
    for i, a in enumerate(aois):
        col = picture.rgb(theme.CATEGORY[i % len(theme.CATEGORY)])
        pts = [(x * s, y * s) for x, y in a.vertices]
        d.polygon(pts, fill=(*col, 40), outline=(*col, 255), width=2)
        x0, y0 = min(p[0] for p in pts), min(p[1] for p in pts)
        label = a.name[:28]
        box = d.textbbox((x0 + 3, y0 + 2), label, font=f)
        d.rectangle(box, fill=(255, 255, 255, 200))
        d.text((x0 + 3, y0 + 2), label, fill=(*col, 255), font=f)
    return Image.alpha_composite(img.convert("RGBA"), over).convert("RGB")


def bar_chart(result: MetricResult, unit: str) -> go.Figure:
    """One metric's result in, clean and private bars per AOI with 95 % error bars on the private ones out."""
    names = [html_text(n) for n in result.names]  # Plotly renders tags in category labels and hovers
    fig = go.Figure()
    fig.add_bar(name="clean (clipped)", x=names, y=result.clean, marker_color=theme.CLEAN, opacity=0.45)
    hw = np.where(np.isfinite(result.half_width), result.half_width, np.nan)
    fig.add_bar(name="private ± 95 %", x=names, y=result.private, marker_color=theme.PRIMARY,
                error_y={"type": "data", "array": hw, "visible": True, "color": theme.INK})
    fig.update_layout(barmode="group", yaxis_title=unit, legend={"orientation": "h", "y": 1.12})
    return theme.style(fig, height=380)


def matrix_picture(matrix: np.ndarray, names: tuple[str, ...], cell_px: int = 34) -> Image.Image:
    """(K+1) x (K+1) transitions per observer in, a picture (rows: from, columns: to; darker = more) out."""
    m = np.asarray(matrix, dtype=float)
    k = m.shape[0]
    label_w = 150
    img = Image.new("RGB", (label_w + k * cell_px + 10, label_w + k * cell_px + 10), (255, 255, 255))
    d = ImageDraw.Draw(img)
    f = picture.font(10)
    hi = max(float(np.nanmax(np.clip(m, 0, None))), 1e-12)
    for i in range(k):
        d.text((4, label_w + i * cell_px + cell_px / 2 - 6), f"{i + 1}. {names[i][:20]}", fill=(27, 36, 48), font=f)
        d.text((label_w + i * cell_px + 4, label_w - 14), str(i + 1), fill=(27, 36, 48), font=f)
        for j in range(k):
            v = float(np.clip(m[i, j], 0, None)) / hi
            shade = tuple(int(255 - v * (255 - c)) for c in (31, 95, 139))
            x0, y0 = label_w + j * cell_px, label_w + i * cell_px
            d.rectangle((x0, y0, x0 + cell_px - 1, y0 + cell_px - 1), fill=shade)
    # Names do not fit above narrow columns: columns are numbered in the rows' order.
    d.text((4, label_w - 30), "from (rows) → to (columns,", fill=(107, 119, 133), font=f)
    d.text((4, label_w - 18), "numbered as the rows)", fill=(107, 119, 133), font=f)
    return img
