"""ui.heatmaps.images: the overlay JPEG at display size and its colour bar."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from ui import theme
from ui.heatmaps import images, view


def _decode(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=float)


def test_overlay_is_display_sized_and_matches_the_reference_composite():
    """A 1280 x 800 stimulus comes back 960 px wide; the colours agree with view.composite (the full-size
    reference used for PNG downloads) up to JPEG and resampling differences."""
    rng = np.random.default_rng(0)
    stim = rng.integers(0, 255, (800, 1280, 3)).astype(np.uint8)
    grid = rng.random((25, 40)).astype(np.float32)
    out = _decode(images.overlay_jpeg("t-images-1", stim, grid, 32, 1.0))
    assert out.shape == (600, 960, 3)
    ref = view.composite("t-images-1", stim, grid, 32, 1.0).astype(float)
    assert ref.shape == out.shape
    assert np.abs(out - ref).mean() < 12.0  # JPEG on a noisy stimulus; a wrong colour map would be ~100


def test_zero_map_leaves_the_stimulus_and_a_full_map_takes_the_top_colour():
    """Level 0 is transparent (the stimulus shows through); values at or above vmax take the top colour."""
    stim = np.full((100, 160, 3), 200, np.uint8)
    clear = _decode(images.overlay_jpeg("t-images-2", stim, np.zeros((4, 5), np.float32), 32, 1.0))
    assert np.abs(clear - 200).max() <= 3
    top = theme.heat_lut(256)[255].astype(float)
    full = _decode(images.overlay_jpeg("t-images-2", stim, np.full((4, 5), 5.0, np.float32), 32, 1.0))
    alpha = top[3] / 255.0
    expected = 200 * (1 - alpha) + top[:3] * alpha
    assert np.abs(full.reshape(-1, 3).mean(axis=0) - expected).max() <= 3
    # Negative (noisy) cells are transparent, not a colour.
    neg = _decode(images.overlay_jpeg("t-images-2", stim, np.full((4, 5), -3.0, np.float32), 32, 1.0))
    assert np.abs(neg - 200).max() <= 3


def test_colour_bar_names_the_range_and_unit():
    html = images.colour_bar_html(0.032, "fixations / observer / cell")
    assert "linear-gradient" in html and ">0<" in html and ">0.032<" in html and ">0.016<" in html
    assert "fixations / observer / cell" in html
