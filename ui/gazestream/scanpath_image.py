"""The original and protected scanpaths as a picture over the stimulus (a JPEG at display size).

Why a picture: the time and method sliders redraw this figure on every move, and a Plotly redraw costs the browser
~40 ms (more than a trivial page's whole re-render); drawing two polylines on the stimulus with PIL costs a few
ms and the browser only swaps an image. The Plotly figure (axes in px, zoom) is one toggle away. Colours are the
page's (ui/gazestream/methods.METHOD_COLORS, from ui/theme.py).
"""
from __future__ import annotations

import base64
import io
from collections.abc import Callable

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ui import theme
from ui.picture import font, nice_ticks, rgb, tick_label

WIDTH = 820  # px, the figure's display width
LEGEND_FONT = 15


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
    if not len(xy):
        return []
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
        line_rgb = rgb(color)
        for seg in _segments(pts):
            if len(seg) >= 4:
                d.line(seg, fill=line_rgb, width=width, joint="curve")
        finite = pts[np.isfinite(pts).all(axis=1)]
        if len(finite):
            x, y = finite[-1]
            d.ellipse([x - 8, y - 8, x + 8, y + 8], outline=line_rgb, width=3)
    d.rectangle([0, 0, size[0] - 1, size[1] - 1], outline=rgb(theme.MUTED), width=1)
    legend_font = font(LEGEND_FONT)
    x = 10
    for name, color in zip(names, colors):  # the legend, top left, on a white box
        w = d.textlength(name, font=legend_font)
        d.rectangle([x - 4, 6, x + 30 + w + 4, 30], fill=(255, 255, 255))
        d.line([x, 18, x + 24, 18], fill=rgb(color), width=3)
        d.text((x + 30, 18), name, fill=rgb(theme.INK), font=legend_font, anchor="lm")
        x += int(w) + 52
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()


def _event_bands(width: int, h: int, panels: list[tuple[int, int]], bands: tuple,
                 px: Callable[[np.ndarray], np.ndarray], x_range: tuple[int, int]) -> np.ndarray:
    """White canvas -> RGB array with each (events, colour) band filled over every panel (numpy column fills)."""
    a = np.full((h, width, 3), 255, dtype=np.uint8)
    for events, color in bands:
        for (p_top, p_h) in panels:
            if len(events):
                cols = np.clip(np.round(px(np.asarray(events, float))).astype(int), *x_range)
                mask = np.zeros(width + 1, dtype=np.int32)
                np.add.at(mask, cols[:, 0], 1)
                np.add.at(mask, cols[:, 1], -1)
                inside = np.cumsum(mask)[:width] > 0
                a[p_top:p_top + p_h, inside] = color
    return a


def _draw_panel(d: ImageDraw.ImageDraw, panel: tuple[int, int], lines: list, xs: np.ndarray,
                x_frame: tuple[int, int], f: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> None:
    """One panel: y grid with tick labels, its series as lines broken at gaps, and the frame."""
    p_top, p_h = panel
    left, pw = x_frame
    vals = np.concatenate([v[np.isfinite(v)] for v, _ in lines]) if lines else np.zeros(1)
    lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 1.0)
    pad = 0.06 * (hi - lo) or 1.0
    lo, hi = lo - pad, hi + pad

    def py(v: np.ndarray) -> np.ndarray:
        return p_top + (hi - np.asarray(v, float)) / (hi - lo) * p_h

    ticks = nice_ticks(lo, hi, 5 if p_h > 150 else 3)
    step = float(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    for v, yy in zip(ticks.tolist(), py(ticks).tolist()):
        d.line([left, yy, left + pw, yy], fill=rgb(theme.GRID), width=1)
        d.text((left - 6, yy), tick_label(v, step), fill=rgb(theme.INK), font=f, anchor="rm")
    for v, color in lines:
        pts = np.column_stack([xs, py(v)])
        for seg in _segments(pts):
            if len(seg) >= 4:
                d.line(seg, fill=rgb(color), width=2)
    d.rectangle([left, p_top, left + pw, p_top + p_h], outline=rgb(theme.MUTED), width=1)


def raw_trace_image(t: np.ndarray, x: np.ndarray, y: np.ndarray, pupil: np.ndarray | None, fixations: np.ndarray,
                    blinks: np.ndarray, width: int = 1100, png: bool = False) -> bytes:
    """Samples of a time window (t in s; x, y in px; pupil in mm or None) and events as (start, end) s rows ->
    x and y (top panel) and the pupil (bottom panel) against time, fixations shaded blue and blinks orange, as
    JPEG bytes (PNG with `png`: exact colours).

    The picture of figs.raw_trace: the detector's threshold redraws it on every move (see the module docstring).
    JPEG by default: st.image sends an opaque picture as JPEG anyway (it would decode a PNG and encode it again),
    and encoding a PNG alone took ~7 ms of every window move."""
    left, right, top, bottom, gap = 92, 16, 10, 54, 22
    heights = [260, 110] if pupil is not None else [300]
    h = top + sum(heights) + gap * (len(heights) - 1) + bottom
    pw = width - left - right
    t0, t1 = (float(t[0]), float(t[-1])) if len(t) > 1 and t[-1] > t[0] else (0.0, 1.0)

    def px(v: np.ndarray) -> np.ndarray:
        return left + (np.asarray(v, float) - t0) / (t1 - t0) * pw

    panels, y0 = [], top
    for hh in heights:
        panels.append((y0, hh))
        y0 += hh + gap
    bands = ((fixations, (226, 238, 246)), (blinks, (246, 222, 204)))
    img = Image.fromarray(_event_bands(width, h, panels, bands, px, (left, left + pw)))
    d = ImageDraw.Draw(img)
    f = font(19)  # shown scaled to the column (~0.7×): about 13 px on screen
    series = [[(x, theme.CATEGORY[0]), (y, theme.CATEGORY[1])]] + ([[(pupil, theme.CATEGORY[2])]] if pupil is not None
                                                                    else [])
    titles = ["x, y (px)", "pupil (mm)"]
    xs = px(t)
    for panel, lines, title in zip(panels, series, titles):
        _draw_panel(d, panel, lines, xs, (left, pw), f)
        p_top = panel[0]
        d.text((left + 6, p_top + 4), title, fill=rgb(theme.MUTED), font=f, anchor="la")
    last_top, last_h = panels[-1]
    xt = nice_ticks(t0, t1, 10)
    xstep = float(xt[1] - xt[0]) if len(xt) > 1 else 1.0
    for v, xx in zip(xt.tolist(), px(xt).tolist()):
        d.text((xx, last_top + last_h + 6), tick_label(v, xstep), fill=rgb(theme.INK), font=f, anchor="mt")
    d.text((left + pw / 2, h - 4), "time (s)", fill=rgb(theme.INK), font=f, anchor="md")
    buf = io.BytesIO()
    if png:
        img.save(buf, "PNG", compress_level=1)
    else:
        img.save(buf, "JPEG", quality=90)  # the quality st.image re-encodes with
    return buf.getvalue()
