"""Heatmap overlays as JPEG images at display size (st.image), and their colour bar as a small HTML strip.

A slider move re-sends one image (the noisy overlay) instead of a dense Plotly figure: resampling, colouring
and blending run in Pillow's C code on the display grid, and the clean overlay's bytes are cached, so its
image URL does not change and the browser does not fetch it again.
"""
from __future__ import annotations

import io

import numpy as np
import streamlit as st
from PIL import Image

from ui import theme
from ui.heatmaps.view import DISPLAY_WIDTH  # overlays are sent to the browser at most this wide
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


@st.cache_resource(show_spinner=False)
def _palette() -> bytes:
    """theme.HEAT_SCALE as a 256-entry RGBA palette (level 0 transparent)."""
    return theme.heat_lut(256).ravel().tobytes()


def overlay_jpeg(stim_token: str, image: np.ndarray, map_: np.ndarray, cell: int, vmax: float) -> bytes:
    """Stimulus, map on the cell grid, cell size and colour range (0..vmax) -> JPEG bytes of the overlay.

    The map is resampled bilinearly between cell centres to the display grid (values, not colours), negative
    values are transparent and values above vmax take the top colour."""
    base = _base(stim_token, image)
    dw, dh = base.size
    h, w = image.shape[:2]
    grid = Image.fromarray(np.ascontiguousarray(map_, dtype=np.float32), mode="F")
    vals = grid.resize((dw, dh), Image.BILINEAR, box=(0.0, 0.0, w / cell, h / cell))
    idx = np.clip(np.asarray(vals) * (255.0 / max(float(vmax), 1e-300)), 0.0, 255.0).astype(np.uint8)
    layer = Image.fromarray(idx, mode="L")
    layer.putpalette(_palette(), rawmode="RGBA")
    out = Image.alpha_composite(base, layer.convert("RGBA")).convert("RGB")
    buf = io.BytesIO()
    out.save(buf, format="JPEG", quality=JPEG_QUALITY)
    return buf.getvalue()


@st.cache_data(show_spinner=False, max_entries=32)
def cached_overlay_jpeg(cache_key: tuple, stim_token: str, cell: int, vmax: float, _image: np.ndarray,
                        _map: np.ndarray) -> bytes:
    """overlay_jpeg, cached on `cache_key` (everything the map depends on) and the colour range."""
    return overlay_jpeg(stim_token, _image, _map, cell, vmax)


def _tick(v: float) -> str:
    """Colour-bar tick text: short, no trailing zeros."""
    return f"{v:.2g}"


def colour_bar_html(vmax: float, unit: str) -> str:
    """Colour range and unit -> HTML of a horizontal colour bar with ticks at 0, ½ and the maximum."""
    stops = ", ".join(f"{c} {s * 100:.0f}%" for s, c in theme.HEAT_SCALE)
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
