"""ui.heatmaps.images: the overlay JPEG at display size, the PNG at stimulus size and the colour bar."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from eyedp_core.heatmaps.colour import heat_lut
from ui.heatmaps import images


def _decode(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=float)


def _reference(stim: np.ndarray, grid: np.ndarray, cell: int, vmax: float, dw: int, dh: int) -> np.ndarray:
    """Independent numpy overlay: the stimulus resized to (dw, dh), the map bilinear between cell centres,
    coloured through heat_lut and alpha-blended."""
    h, w = stim.shape[:2]
    base = np.asarray(Image.fromarray(stim).resize((dw, dh), Image.BILINEAR), dtype=float)
    ys = np.clip((np.arange(dh) + 0.5) * h / dh / cell - 0.5, 0, grid.shape[0] - 1)
    xs = np.clip((np.arange(dw) + 0.5) * w / dw / cell - 0.5, 0, grid.shape[1] - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, grid.shape[0] - 1), np.minimum(x0 + 1, grid.shape[1] - 1)
    fy, fx = (ys - y0)[:, None], (xs - x0)[None, :]
    g = grid.astype(float)
    vals = ((g[np.ix_(y0, x0)] * (1 - fx) + g[np.ix_(y0, x1)] * fx) * (1 - fy)
            + (g[np.ix_(y1, x0)] * (1 - fx) + g[np.ix_(y1, x1)] * fx) * fy)
    rgba = heat_lut(256)[(np.clip(vals / vmax, 0, 1) * 255).astype(np.uint8)].astype(float)
    alpha = rgba[..., 3:4] / 255.0
    return base * (1 - alpha) + rgba[..., :3] * alpha


def test_overlay_is_display_sized_and_matches_an_independent_composite():
    """A 1280 x 800 stimulus comes back 960 px wide as JPEG and at full size as PNG; the colours agree with a
    numpy composite up to JPEG and resampling differences."""
    rng = np.random.default_rng(0)
    stim = rng.integers(0, 255, (800, 1280, 3)).astype(np.uint8)
    grid = rng.random((25, 40)).astype(np.float32)
    out = _decode(images.overlay_jpeg("t-images-1", stim, grid, 32, 1.0))
    assert out.shape == (600, 960, 3)
    assert np.abs(out - _reference(stim, grid, 32, 1.0, 960, 600)).mean() < 12.0  # a wrong colour map: ~100
    full = _decode(images.overlay_png(stim, grid, 32, 1.0))
    assert full.shape == (800, 1280, 3)
    assert np.abs(full - _reference(stim, grid, 32, 1.0, 1280, 800)).mean() < 3.0  # PNG: resampling only


def test_pair_puts_the_clean_overlay_left_and_the_noisy_one_right():
    """One JPEG of both overlays: each half 720 px wide with a white gap, each matching its own composite."""
    rng = np.random.default_rng(1)
    stim = rng.integers(0, 255, (800, 1280, 3)).astype(np.uint8)
    clean, noisy = rng.random((25, 40)).astype(np.float32), rng.random((25, 40)).astype(np.float32)
    out = _decode(images.pair_jpeg(("c", 1), ("n", 1), "t-images-pair", 32, 1.0, stim, clean, noisy))
    half, gap = images.PAIR_HALF_WIDTH, images.PAIR_GAP
    assert out.shape == (450, 2 * half + gap, 3)
    assert np.abs(out[:, :half] - _reference(stim, clean, 32, 1.0, half, 450)).mean() < 14.0
    assert np.abs(out[:, half + gap:] - _reference(stim, noisy, 32, 1.0, half, 450)).mean() < 14.0
    assert np.abs(out[:, half + gap:] - _reference(stim, clean, 32, 1.0, half, 450)).mean() > 20.0  # not the clean
    assert out[:, half + 3:half + gap - 3].min() > 200  # the white gap


def test_zero_map_leaves_the_stimulus_and_a_full_map_takes_the_top_colour():
    """Level 0 is transparent (the stimulus shows through); values at or above vmax take the top colour."""
    stim = np.full((100, 160, 3), 200, np.uint8)
    clear = _decode(images.overlay_jpeg("t-images-2", stim, np.zeros((4, 5), np.float32), 32, 1.0))
    assert np.abs(clear - 200).max() <= 3
    top = heat_lut(256)[255].astype(float)
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


def test_the_batch_png_draws_each_value_in_the_apps_colour():
    """A released map with known cells: each cell's block in the batch PNG (eyedp_core.batch.outputs, no
    smoothing) has the colour the app's overlay gives that value on a white stimulus with the same colour range
    (the range read off the map as the batch does); 0 and negative cells stay white, cells above the range take
    the top colour."""
    from eyedp_core.batch.outputs import png_bytes
    from eyedp_core.heatmaps.release import colour_range

    cell = 10
    levels = np.array([[0.0, 0.011, 0.05, 0.13], [0.21, 0.33, 0.47, 0.52], [0.68, 0.74, 0.9, -0.2]])
    values = np.kron(np.ones((10, 10)), levels)  # 30 x 40 cells, every level many times
    values[0, 0] = 50.0  # one cell above the 99.9 % quantile: the colour range stays below it
    top = colour_range(values)
    assert top < 50.0
    h, w = values.shape[0] * cell, values.shape[1] * cell
    batch = _decode(png_bytes(values, cell, 0.0, w, h))
    white = np.full((40, 40, 3), 255, np.uint8)
    seen = set()
    for r in range(3):
        for c in range(4):
            for v in (levels[r, c], 50.0):
                i, j = (0, 0) if v == 50.0 else (3 + r, 8 + c)  # a cell holding v (values[i % 3, j % 4])
                app = _decode(images.overlay_png(white, np.full((4, 4), v, np.float32), cell, top))
                assert np.ptp(app.reshape(-1, 3), axis=0).max() == 0  # one colour over the whole canvas
                block = batch[i * cell:(i + 1) * cell, j * cell:(j + 1) * cell].reshape(-1, 3)
                np.testing.assert_array_equal(block, np.broadcast_to(app[0, 0], block.shape), err_msg=f"value {v}")
                seen.add(tuple(app[0, 0]))
    assert (255.0, 255.0, 255.0) in seen and len(seen) >= 10  # white for 0 and below, distinct colours above
