"""Pictures (PIL) of the Areas of interest view: the AOIs over the stimulus, the bar chart, the transitions."""
from __future__ import annotations

import io
import math
import unicodedata
from dataclasses import dataclass

import numpy as np
import streamlit as st
from PIL import Image, ImageDraw, ImageFont

from eyedp_core.aoi.metrics import AoiMetric, MetricResult
from eyedp_core.aoi.shapes import Aoi
from ui import picture, theme

DISPLAY_WIDTH = 900
LABEL_ANGLE = 40  # degrees: bar names slanted when they are wider than their bar group
LABEL_LINE = 16  # px: the height of one line of the bar chart's 13 px font, with its spacing


# Characters Pillow's text layout (raqm) cannot shape: controls, line and paragraph breaks, lone surrogates,
# unassigned code points. An AOI name is the user's text: it is drawn with these shown as '?'.
_UNDRAWABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def label(name: object, limit: int) -> str:
    """Any AOI name in, text Pillow can draw out: at most `limit` characters, undrawable ones as '?'."""
    text = "".join("?" if unicodedata.category(c) in _UNDRAWABLE else c for c in str(name)[:limit])
    return text if text.strip() else "?"


def _text(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, **kw: object) -> None:
    """Draw text; when the layout engine still fails on it, its ASCII spelling (a name is always drawn)."""
    try:
        d.text(xy, text, **kw)
    except (RuntimeError, SystemError, OSError, ValueError):
        d.text(xy, text.encode("ascii", "replace").decode(), **kw)


def _bbox(d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, **kw: object) -> tuple[float, ...]:
    """The box `_text` draws the text in (the ASCII spelling's when the layout engine fails)."""
    try:
        return d.textbbox(xy, text, **kw)
    except (RuntimeError, SystemError, OSError, ValueError):
        return d.textbbox(xy, text.encode("ascii", "replace").decode(), **kw)


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
        name = label(a.name, 28)
        box = _bbox(d, (x0 + 3, y0 + 2), name, font=f)
        d.rectangle(box, fill=(255, 255, 255, 200))
        _text(d, (x0 + 3, y0 + 2), name, fill=(*col, 255), font=f)
    return Image.alpha_composite(img.convert("RGBA"), over).convert("RGB")


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
        _text(d, (4, label_w + i * cell_px + cell_px / 2 - 6), f"{i + 1}. {label(names[i], 20)}", fill=(27, 36, 48),
              font=f)
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


@dataclass(frozen=True)
class _Plot:
    """Where the bar chart's plot sits in its picture, the y range it spans and how the AOI names are set."""
    left: int
    top: int
    width: float
    height: float
    lo: float
    hi: float
    group: float
    slant: bool
    every: int

    def y(self, v: float) -> float:
        """A value -> its row in the picture."""
        return self.top + (self.hi - v) / (self.hi - self.lo) * self.height


def _bar_labels(result: MetricResult) -> list[str]:
    """The AOI names as drawn under the bars: at most 18 characters, longer ones cut with '…'."""
    return [label(n, 18) if len(str(n)) <= 18 else label(n, 17) + "…" for n in result.names]


def _value_range(result: MetricResult) -> tuple[float, float]:
    """The y range of the bar chart: every finite value, interval end and 0, padded by 5 % (not below 0 when
    nothing is negative)."""
    vals = np.concatenate([np.asarray(result.clean, float), np.asarray(result.private, float),
                           np.asarray(result.lower, float), np.asarray(result.upper, float), [0.0]])
    vals = vals[np.isfinite(vals)]
    lo, hi = float(vals.min()), float(vals.max())
    if hi <= lo:
        hi = lo + 1.0
    pad = 0.05 * (hi - lo)
    return (lo - pad if lo < 0 else lo), hi + pad


def _bar_plot(result: MetricResult, names: list[str], f: ImageFont.ImageFont,
              width: int, height: int) -> tuple[_Plot, int]:
    """The plot's place in the picture and the picture's height (grown for slanted names)."""
    left, right, top, bottom = 80, 16, 34, 60
    group = (width - left - right) / max(len(names), 1)
    widest = max((f.getlength(n) for n in names), default=0.0)
    # Names wider than their bar group are slanted (and every n-th one kept when even slanted they would
    # touch); the picture grows downwards by what they need, so the plot keeps its height.
    slant = widest > group - 6
    every = max(1, math.ceil(LABEL_LINE / math.sin(math.radians(LABEL_ANGLE)) / group)) if slant else 1
    if slant:
        extra = widest * math.sin(math.radians(LABEL_ANGLE)) + LABEL_LINE * math.cos(math.radians(LABEL_ANGLE))
        height += max(0, math.ceil(extra) + 14 - bottom)
        bottom = max(bottom, math.ceil(extra) + 14)
    lo, hi = _value_range(result)
    plot = _Plot(left=left, top=top, width=width - left - right, height=height - top - bottom, lo=lo, hi=hi,
                 group=group, slant=slant, every=every)
    return plot, height


def _y_axis(d: ImageDraw.ImageDraw, plot: _Plot, unit: str, f: ImageFont.ImageFont) -> None:
    """Grid lines with their tick labels, and the unit above the axis."""
    muted, grid = picture.rgb(theme.MUTED), picture.rgb(theme.GRID)
    ticks = picture.nice_ticks(plot.lo, plot.hi, 6)
    step = float(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    for v in ticks:
        y = plot.y(float(v))
        d.line((plot.left, y, plot.left + plot.width, y), fill=grid)
        d.text((plot.left - 6, y), picture.tick_label(float(v), step), fill=muted, font=f, anchor="rm")
    d.text((8, plot.top - 24), unit, fill=muted, font=f)


def _faded_clean() -> tuple[int, ...]:
    """The clean bars' colour: the theme's clean colour, faded towards white."""
    return tuple(int(255 - 0.45 * (255 - c)) for c in picture.rgb(theme.CLEAN))


def _aoi_bars(img: Image.Image, d: ImageDraw.ImageDraw, plot: _Plot, result: MetricResult, names: list[str],
              f: ImageFont.ImageFont) -> None:
    """Per AOI: its clean and private bars, the private one's 95 % interval and the AOI's name below."""
    ink = picture.rgb(theme.INK)
    clean, private = np.asarray(result.clean, float), np.asarray(result.private, float)
    lower, upper = np.asarray(result.lower, float), np.asarray(result.upper, float)
    has_bar = np.isfinite(lower) & np.isfinite(upper) & (upper > lower)
    bar = plot.group * 0.36
    faded = _faded_clean()
    for i in range(len(clean)):
        x = plot.left + i * plot.group + plot.group * 0.14
        for j, (v, colour) in enumerate(((clean[i], faded), (private[i], picture.rgb(theme.PRIMARY)))):
            if not np.isfinite(v):
                continue
            x0 = x + j * bar
            y0, y1 = sorted((plot.y(float(v)), plot.y(max(plot.lo, 0.0))))
            d.rectangle((x0, y0, x0 + bar - 2, max(y1, y0 + 1)), fill=colour)
        if has_bar[i]:  # the interval is drawn even where no value is (TTFF below one noisy looker)
            xc = x + 1.5 * bar - 1
            ya, yb = plot.y(float(upper[i])), plot.y(float(lower[i]))
            d.line((xc, ya, xc, yb), fill=ink, width=2)
            d.line((xc - 5, ya, xc + 5, ya), fill=ink, width=2)
            d.line((xc - 5, yb, xc + 5, yb), fill=ink, width=2)
        centre = plot.left + (i + 0.5) * plot.group
        if not plot.slant:
            _text(d, (centre, plot.top + plot.height + 8), names[i], fill=ink, font=f, anchor="ma")
        elif i % plot.every == 0:
            tag = picture.slanted_text(names[i], f, ink, LABEL_ANGLE)
            img.paste(tag, (round(centre - tag.width), round(plot.top + plot.height + 6)), tag)


def _bar_legend(d: ImageDraw.ImageDraw, plot: _Plot, f: ImageFont.ImageFont) -> None:
    """The x-axis line and the legend (clean and private swatches) at the top right."""
    ink = picture.rgb(theme.INK)
    bottom = plot.top + plot.height
    d.line((plot.left, bottom, plot.left + plot.width, bottom), fill=picture.rgb(theme.MUTED))
    lx = plot.left + plot.width - 330
    d.rectangle((lx, 8, lx + 14, 22), fill=_faded_clean())
    d.text((lx + 20, 15), "clean (clipped)", fill=ink, font=f, anchor="lm")
    d.rectangle((lx + 150, 8, lx + 164, 22), fill=picture.rgb(theme.PRIMARY))
    d.text((lx + 170, 15), "private ± 95 %", fill=ink, font=f, anchor="lm")


def bar_picture(result: MetricResult, unit: str, width: int = 1100, height: int = 380) -> Image.Image:
    """One metric's result in, the bar chart as a picture at display size out: clean (faded) and private bars per
    AOI, the private ones with their 95 % error bars. A picture, not a Plotly chart: a Plotly redraw per ε move
    costs the browser more than a trivial page's whole re-render."""
    f = picture.font(13)
    names = _bar_labels(result)
    plot, height = _bar_plot(result, names, f, width, height)
    img = Image.new("RGB", (width, height), (255, 255, 255))
    d = ImageDraw.Draw(img)
    _y_axis(d, plot, unit, f)
    _aoi_bars(img, d, plot, result, names, f)
    _bar_legend(d, plot, f)
    return img


@st.cache_data(max_entries=64, show_spinner=False)
def _bar_png(names: tuple[str, ...], clean: np.ndarray, private: np.ndarray, low: np.ndarray, high: np.ndarray,
             metric: AoiMetric, unit: str) -> bytes:
    """The bar chart's values in, its PNG out (cached on the values: moving ε back and forth redraws nothing)."""
    res = MetricResult(metric=metric, names=names, clean=clean, private=private, half_width=(high - low) / 2,
                       low=low, high=high)
    buf = io.BytesIO()
    bar_picture(res, unit).save(buf, "PNG", compress_level=1)  # fast: the default level costs ~30 ms per move
    return buf.getvalue()


def bar_png(result: MetricResult, unit: str) -> bytes:
    """One metric's result in, the bar chart picture as PNG bytes out (cached on its values); the hit ratio in
    percent, as the tables beside it write it."""
    scale, unit = (100.0, "% of observers") if result.metric is AoiMetric.HIT_RATIO else (1.0, unit)
    return _bar_png(tuple(result.names), scale * np.asarray(result.clean), scale * np.asarray(result.private),
                    scale * np.asarray(result.lower, float), scale * np.asarray(result.upper, float), result.metric,
                    unit)
