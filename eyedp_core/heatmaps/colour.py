"""The heatmap colour ramp, one definition for the app's pictures and the batch PNGs: stops from transparent (zero,
so the stimulus shows through) through blue and yellow to dark red, a 256-level RGBA look-up table of it, and the
one rule that paints values with it over a background (level = value / colour range, clipped to [0, 1], times 255;
alpha-composited by Pillow)."""
from __future__ import annotations

from functools import cache

import numpy as np
from PIL import Image

__all__ = ["HEAT_SCALE", "LEVELS", "heat_lut", "heat_rgb", "paint"]

# Sequential scale for densities: transparent at zero so the stimulus stays visible under a heatmap.
HEAT_SCALE = [
    [0.0, "rgba(255,255,255,0)"],
    [0.08, "rgba(49,54,149,0.35)"],
    [0.3, "rgba(69,117,180,0.6)"],
    [0.5, "rgba(254,224,144,0.75)"],
    [0.75, "rgba(244,109,67,0.85)"],
    [1.0, "rgba(165,0,38,0.95)"],
]
LEVELS = 256
_WHITE = (255, 255, 255)


def _rgba(text: str) -> tuple[float, float, float, float]:
    """'rgba(r,g,b,a)', 'rgb(r,g,b)' or '#rrggbb' -> (r, g, b, a) floats (r, g, b in 0..255, a in 0..1)."""
    t = text.strip()
    if t.startswith("#"):
        return float(int(t[1:3], 16)), float(int(t[3:5], 16)), float(int(t[5:7], 16)), 1.0
    parts = [float(p) for p in t[t.index("(") + 1:t.index(")")].split(",")]
    return parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0


def heat_lut(size: int = LEVELS) -> np.ndarray:
    """Number of levels -> (size, 4) uint8 RGBA look-up table interpolated from HEAT_SCALE (level 0 transparent)."""
    stops = np.array([s for s, _ in HEAT_SCALE], dtype=float)
    cols = np.array([_rgba(c) for _, c in HEAT_SCALE], dtype=float)
    cols[:, 3] *= 255.0
    x = np.linspace(0.0, 1.0, size)
    lut = np.stack([np.interp(x, stops, cols[:, k]) for k in range(4)], axis=1)
    return np.clip(np.rint(lut), 0, 255).astype(np.uint8)


@cache
def _palette() -> bytes:
    """The look-up table as a Pillow RGBA palette (built once: every overlay of a slider move uses it)."""
    return heat_lut(LEVELS).ravel().tobytes()


def paint(base: Image.Image, values: np.ndarray, vmax: float) -> Image.Image:
    """An RGBA background, values at its size and the colour range (0..vmax) in, the values coloured by the ramp
    and composited over the background out (RGB): negative values are transparent, values above vmax take the
    top colour."""
    vals = np.asarray(values, dtype=np.float32)  # the app's values arrive as a float32 image: one rounding for all
    idx = np.clip(vals * (255.0 / max(float(vmax), 1e-300)), 0.0, 255.0).astype(np.uint8)
    layer = Image.fromarray(idx, mode="L")
    layer.putpalette(_palette(), rawmode="RGBA")
    return Image.alpha_composite(base, layer.convert("RGBA")).convert("RGB")


def heat_rgb(shares: np.ndarray) -> np.ndarray:
    """Shares of the colour range (any shape) in, their colours over white out (uint8, …×3): what `paint` draws
    for a value of that share of vmax on a white background."""
    t = np.atleast_2d(np.asarray(shares, dtype=float))
    white = Image.new("RGBA", (t.shape[1], t.shape[0]), (*_WHITE, 255))
    rgb = np.asarray(paint(white, t, 1.0))
    return rgb.reshape(*np.shape(shares), 3)
