"""Time-series view, the preview as a PNG at display size: clean and noisy series, chunk boundaries, padding.

Why an image: a Plotly chart whose data changes costs the browser ~50 ms per slider move (a full Plotly redraw),
more than twice a trivial page's whole re-render; a cached PNG costs a few ms. The interactive Plotly chart
(hover, zoom) stays one toggle away (ui/timeseries/figs.preview_figure). Colours come from ui/theme.py.
The picture is drawn on a palette image: grid, chunk boundaries and shading as numpy slices, the curves and the
text with PIL (C loops), so no Python loop runs over samples.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from ui import theme
from ui.picture import font as _font
from ui.picture import nice_ticks, tick_label
from ui.picture import rgb as _rgb

W, H = 1100, 400  # pixels; shown at the column's width
LEFT, RIGHT, TOP, BOTTOM = 96, 16, 12, 52
# Palette indices: background, ink, grid, muted, padding shade, clean, noisy, paper's DCFPA.
BG, INK, GRID, MUTED, SHADE, CLEAN, NOISY, PAPER = range(8)


@dataclass(frozen=True)
class _Frame:
    """The plot area: data limits and their mapping to pixels."""

    x0: float
    x1: float
    lo_y: float
    hi_y: float
    pw: int = W - LEFT - RIGHT
    ph: int = H - TOP - BOTTOM

    def px(self, v: np.ndarray) -> np.ndarray:
        """Times -> pixel columns."""
        return LEFT + (np.asarray(v, float) - self.x0) / (self.x1 - self.x0) * self.pw

    def py(self, v: np.ndarray) -> np.ndarray:
        """Values -> pixel rows."""
        # Clipped a little outside the plot: zoomed views cut the noise at the frame instead of drawing far off.
        return np.clip(TOP + (self.hi_y - np.asarray(v, float)) / (self.hi_y - self.lo_y) * self.ph, TOP - 2,
                       TOP + self.ph + 2)


@dataclass(frozen=True)
class PreviewLayout:
    """How the preview is drawn: the mechanism label (its colour), the recording's true length (padding past it is
    shaded), the chunk length (dotted boundaries), a fixed y range (None: the data's) and the axis titles."""

    label: str
    true_length: int
    chunk: int | None = None
    y_range: tuple[float, float] | None = None
    x_title: str = ""
    y_title: str = ""


def _frame(t: np.ndarray, series: list[np.ndarray], y_range: tuple[float, float] | None) -> _Frame:
    """Time axis, the drawn series and an optional fixed y range -> the plot frame (6 % margin in y)."""
    if y_range is None:
        finite = np.concatenate([s[np.isfinite(s)] for s in series]) if series else np.zeros(1)
        lo_y, hi_y = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    else:
        lo_y, hi_y = y_range
    if hi_y <= lo_y:
        lo_y, hi_y = lo_y - 1.0, hi_y + 1.0
    pad = 0.06 * (hi_y - lo_y)
    x0, x1 = float(t[0]), float(t[-1]) if len(t) > 1 else float(t[0]) + 1.0
    return _Frame(x0, x1, lo_y - pad, hi_y + pad)


def _background(fr: _Frame, t: np.ndarray, true_length: int, chunk: int | None, xt: np.ndarray,
                yt: np.ndarray) -> np.ndarray:
    """Palette indices of the background: padding shade, grid and dotted chunk boundaries."""
    pw, ph = fr.pw, fr.ph
    a = np.full((H, W), BG, dtype=np.uint8)
    if true_length < len(t):  # padding to the public T
        a[TOP:TOP + ph, int(fr.px(t[true_length - 1])):LEFT + pw] = SHADE
    a[np.round(fr.py(yt)).astype(int)[:, None], np.arange(LEFT, LEFT + pw)[None, :]] = GRID
    a[TOP:TOP + ph, np.round(fr.px(xt)).astype(int)] = GRID
    if chunk and chunk < len(t):  # chunk boundaries, dotted
        step = t[1] - t[0] if len(t) > 1 else 1.0
        bx = np.round(fr.px(t[0] + (np.arange(chunk, len(t), chunk) - 0.5) * step)).astype(int)
        dots = np.arange(TOP, TOP + ph, 4)
        a[dots[:, None], bx[None, :]] = MUTED
    return a


def _label_axes(img: Image.Image, d: ImageDraw.ImageDraw, fr: _Frame, xt: np.ndarray, yt: np.ndarray,
                titles: tuple[str, str]) -> None:
    """Tick labels on both axes and the axis titles (the y title rotated)."""
    pw, ph = fr.pw, fr.ph
    x_title, y_title = titles
    f = _font(15)
    ystep = float(yt[1] - yt[0]) if len(yt) > 1 else 1.0
    for v, y in zip(yt.tolist(), fr.py(yt).tolist()):
        d.text((LEFT - 6, y), tick_label(v, ystep), fill=INK, font=f, anchor="rm")
    xstep = float(xt[1] - xt[0]) if len(xt) > 1 else 1.0
    for v, x in zip(xt.tolist(), fr.px(xt).tolist()):
        d.text((x, TOP + ph + 6), tick_label(v, xstep), fill=INK, font=f, anchor="mt")
    if x_title:
        d.text((LEFT + pw / 2, H - 4), x_title, fill=INK, font=f, anchor="md")
    if y_title:
        box = d.textbbox((0, 0), y_title, font=f)
        lab = Image.new("P", (box[2] - box[0] + 4, box[3] - box[1] + 6), BG)
        lab.putpalette(img.getpalette())
        ImageDraw.Draw(lab).text((2, -box[1] + 2), y_title, fill=INK, font=f)
        lab = lab.rotate(90, expand=True)
        img.paste(lab, (4, max(0, int(TOP + ph / 2 - lab.height / 2))))


def preview_png(t: np.ndarray, clean: np.ndarray, noisy: np.ndarray, paper: np.ndarray | None,
                layout: PreviewLayout) -> bytes:
    """Time axis, clean and noisy series (and the paper's DCFPA), the layout in, the preview chart as PNG bytes out."""
    label, true_length, chunk = layout.label, layout.true_length, layout.chunk
    fr = _frame(t, [s for s in (clean, noisy, paper) if s is not None], layout.y_range)
    pw, ph = fr.pw, fr.ph
    xt, yt = nice_ticks(fr.x0, fr.x1, 8), nice_ticks(fr.lo_y, fr.hi_y, 6)
    img = Image.fromarray(_background(fr, t, true_length, chunk, xt, yt), "P")
    colors = [theme.BG if hasattr(theme, "BG") else "#ffffff", theme.INK, theme.GRID, theme.MUTED, "#eceff3",
              theme.CLEAN, theme.color_for(label, 1), theme.DANGER]
    img.putpalette([c for col in colors for c in _rgb(col)])
    d = ImageDraw.Draw(img)
    zero = fr.py(np.array([0.0]))[0]
    if fr.lo_y < 0 < fr.hi_y:
        d.line([(LEFT, zero), (LEFT + pw, zero)], fill=MUTED, width=1)
    xs = fr.px(t)
    for s, color, width in ((paper, PAPER, 1), (noisy, NOISY, 2), (clean, CLEAN, 3)):
        if s is not None:
            ok = np.isfinite(s)
            d.line(np.column_stack([xs[ok], fr.py(s[ok])]).ravel().tolist(), fill=color, width=width, joint="curve")
    d.rectangle([LEFT, TOP, LEFT + pw, TOP + ph], outline=MUTED, width=1)
    _label_axes(img, d, fr, xt, yt, (layout.x_title, layout.y_title))
    if true_length < len(t):
        d.text((LEFT + pw - 6, TOP + 6), "padding to the public T", fill=MUTED, font=_font(13), anchor="rt")
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()
