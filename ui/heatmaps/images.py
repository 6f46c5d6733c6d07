"""The one heatmap-overlay renderer: JPEG at display size (st.image, the clean | noisy pair as one picture, or
inside a Plotly figure with a colour bar), PNG at stimulus size (downloads), and the colour bar as a small HTML strip.

A slider move re-sends one image (the pair) instead of a dense Plotly figure: resampling, colouring and blending
run in Pillow's C code on the display grid, and the clean half is cached, so a move renders the noisy half only.
"""
from __future__ import annotations

import base64
import io

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from PIL import Image

from eyedp_core.heatmaps.colour import HEAT_SCALE, paint
from ui.heatmaps import figs
from ui.heatmaps.view import BAR_UNITS, DISPLAY_WIDTH, Context  # overlays go to the browser at most this wide

JPEG_QUALITY = 85


@st.cache_resource(show_spinner=False, max_entries=16)
def _base(stim_token: str, _image: np.ndarray) -> Image.Image:
    """Stimulus token and pixels -> the stimulus at display size as an RGBA Pillow image (never mutated)."""
    h, w = _image.shape[:2]
    dw = min(w, DISPLAY_WIDTH)
    dh = max(1, int(round(h * dw / w)))
    pixels = np.ascontiguousarray(_image if _image.ndim == 2 else _image[..., :3], dtype=np.uint8)
    img = Image.fromarray(pixels).convert("RGB")  # grey or blank canvases too
    return (img.resize((dw, dh), Image.BILINEAR) if dw != w else img).convert("RGBA")


def _overlay(base: Image.Image, image: np.ndarray, map_: np.ndarray, cell: int, vmax: float) -> Image.Image:
    """Stimulus as an RGBA image at output size, the stimulus pixels, map on the cell grid, cell size and colour
    range (0..vmax) -> the overlay as an RGB image of the same size.

    The map is resampled bilinearly between cell centres to the output grid (values, not colours), negative
    values are transparent and values above vmax take the top colour."""
    dw, dh = base.size
    h, w = image.shape[:2]
    grid = Image.fromarray(np.ascontiguousarray(map_, dtype=np.float32), mode="F")
    vals = grid.resize((dw, dh), Image.BILINEAR, box=(0.0, 0.0, w / cell, h / cell))
    return paint(base, np.asarray(vals), vmax)


def overlay_jpeg(stim_token: str, image: np.ndarray, map_: np.ndarray, cell: int, vmax: float) -> bytes:
    """Stimulus, map on the cell grid, cell size and colour range (0..vmax) -> JPEG bytes of the overlay at
    display size."""
    buf = io.BytesIO()
    _overlay(_base(stim_token, image), image, map_, cell, vmax).save(buf, format="JPEG", quality=JPEG_QUALITY)
    return buf.getvalue()


def overlay_png(image: np.ndarray, map_: np.ndarray, cell: int, vmax: float) -> bytes:
    """Stimulus, map on the cell grid, cell size and colour range -> PNG bytes of the overlay at stimulus size
    (for downloads)."""
    pixels = np.ascontiguousarray(image if image.ndim == 2 else image[..., :3], dtype=np.uint8)
    base = Image.fromarray(pixels).convert("RGB").convert("RGBA")
    buf = io.BytesIO()
    _overlay(base, image, map_, cell, vmax).save(buf, format="PNG")
    return buf.getvalue()


@st.cache_data(show_spinner=False, max_entries=32)
def cached_overlay_jpeg(cache_key: tuple, stim_token: str, cell: int, vmax: float, _image: np.ndarray,
                        _map: np.ndarray) -> bytes:
    """overlay_jpeg, cached on `cache_key` (everything the map depends on) and the colour range."""
    return overlay_jpeg(stim_token, _image, _map, cell, vmax)


PAIR_HALF_WIDTH = 720  # each half of the clean | noisy pair: the page's column is about 700 px wide
PAIR_GAP = 12  # px of white between the halves


@st.cache_resource(show_spinner=False, max_entries=16)
def _pair_base(stim_token: str, _image: np.ndarray) -> Image.Image:
    """Stimulus token and pixels -> the stimulus at half the pair's width as an RGBA Pillow image (never mutated)."""
    base = _base(stim_token, _image)
    w, h = base.size
    dw = min(w, PAIR_HALF_WIDTH)
    return base if dw == w else base.resize((dw, max(1, int(round(h * dw / w)))), Image.BILINEAR)


@st.cache_resource(show_spinner=False, max_entries=16)
def _pair_half(cache_key: tuple, stim_token: str, cell: int, vmax: float, _image: np.ndarray,
               _map: np.ndarray) -> Image.Image:
    """One half of the pair (the clean overlay), cached on `cache_key` and the colour range (never mutated)."""
    return _overlay(_pair_base(stim_token, _image), _image, _map, cell, vmax)


@st.cache_data(show_spinner=False, max_entries=32)
def pair_jpeg(clean_key: tuple, noisy_key: tuple, stim_token: str, cell: int, vmax: float, _image: np.ndarray,
              _clean: np.ndarray, _noisy: np.ndarray) -> bytes:
    """The clean and the noisy overlay side by side in ONE JPEG (one picture per slider move instead of a row of
    columns with two), same colour range; cached on both maps' keys and the colour range."""
    left = _pair_half(clean_key, stim_token, cell, vmax, _image, _clean)
    right = _overlay(_pair_base(stim_token, _image), _image, _noisy, cell, vmax)
    w, h = left.size
    pair = Image.new("RGB", (2 * w + PAIR_GAP, h), "white")
    pair.paste(left, (0, 0))
    pair.paste(right, (w + PAIR_GAP, 0))
    buf = io.BytesIO()
    pair.save(buf, format="JPEG", quality=JPEG_QUALITY)
    return buf.getvalue()


def overlay_figure(ctx: Context, map_: np.ndarray, vmax: float, title: str, plot_width: int = 420,
                   cache_key: tuple | None = None, unit: str | None = None) -> go.Figure:
    """Context, map on the cell grid, colour range, title and the expected plot width in px -> Plotly figure of
    the overlay with a colour bar (axes in stimulus pixels). With a cache_key (everything the map depends on)
    the image is cached."""
    stim = ctx.stimulus
    jpeg = (overlay_jpeg(stim.token, stim.image, map_, ctx.cell_px, vmax) if cache_key is None else
            cached_overlay_jpeg(cache_key, stim.token, ctx.cell_px, vmax, stim.image, map_))
    uri = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
    fig_height = int(np.clip(plot_width * ctx.height / ctx.width + 140, 240, 700))
    return figs.overlay_figure(uri, ctx.width, ctx.height, _base(stim.token, stim.image).size[0], vmax, title,
                               unit or BAR_UNITS[ctx.weight], fig_height)


def _tick(v: float) -> str:
    """Colour-bar tick text: short, no trailing zeros."""
    return f"{v:.2g}"


def colour_bar_html(vmax: float, unit: str) -> str:
    """Colour range and unit -> HTML of a horizontal colour bar with ticks at 0, ½ and the maximum."""
    stops = ", ".join(f"{c} {s * 100:.0f}%" for s, c in HEAT_SCALE)
    ticks = "".join(f'<span style="position:absolute;left:{p}%;transform:translateX(-{p}%);">{_tick(vmax * p / 100)}'
                    f"</span>" for p in (0, 50, 100))
    return (
        '<div style="max-width:520px;margin:0.2rem auto 0 auto;font-size:0.78rem;color:#4a5563;">'
        f'<div style="height:10px;border:1px solid #d6dde5;border-radius:3px;'
        f'background:linear-gradient(to right, {stops}), repeating-conic-gradient(#f2f4f7 0% 25%, #ffffff 0% 50%) '
        '0 0/8px 8px;"></div>'
        f'<div style="position:relative;height:1.1rem;">{ticks}</div>'
        f'<div style="text-align:center;">{unit} (0 = transparent: the stimulus shows through)</div></div>'
    )
