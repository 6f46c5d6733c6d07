"""Fixations to AOIs, vectorised: which AOIs contain each fixation (overlaps allowed), and each fixation's
primary AOI (the first listed that contains it, or "elsewhere")."""
from __future__ import annotations

import numpy as np

from eyedp_core.aoi.shapes import Aoi

__all__ = ["contains", "membership", "primary"]

# Points per block in the point-in-polygon test: bounds the (points x edges) temporaries.
_BLOCK = 65536


def contains(aoi: Aoi, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """AOI and point coordinates in, a boolean per point out: inside by the even-odd ray-casting rule (a ray to
    the right crosses the outline an odd number of times; edges counted half-open in y)."""
    px = np.asarray(x, dtype=float).ravel()
    py = np.asarray(y, dtype=float).ravel()
    v = np.asarray(aoi.vertices, dtype=float)
    x0, y0 = v[:, 0], v[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    out = np.zeros(px.size, dtype=bool)
    bx0, by0, bx1, by1 = aoi.bounds
    near = (px >= bx0) & (px <= bx1) & (py >= by0) & (py <= by1)  # ray casting only inside the bounding box
    idx = np.flatnonzero(near)
    dy = np.where(y1 == y0, 1.0, y1 - y0)  # horizontal edges never straddle; avoid 0/0
    for s in range(0, idx.size, _BLOCK):
        i = idx[s:s + _BLOCK]
        st = (y0 > py[i, None]) != (y1 > py[i, None])
        xc = (x1 - x0) * (py[i, None] - y0) / dy + x0
        out[i] = np.count_nonzero(st & (px[i, None] < xc), axis=1) % 2 == 1
    return out


def membership(aois: tuple[Aoi, ...] | list[Aoi], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """AOIs and point coordinates in, an (N, K) boolean array out: point n lies in AOI k (NaN: in none)."""
    px = np.asarray(x, dtype=float).ravel()
    py = np.asarray(y, dtype=float).ravel()
    out = np.zeros((px.size, len(aois)), dtype=bool)
    for k, a in enumerate(aois):
        out[:, k] = contains(a, px, py)
    return out


def primary(member: np.ndarray) -> np.ndarray:
    """(N, K) membership in, each point's primary label out: the first AOI index containing it, K if none."""
    m = np.asarray(member, dtype=bool)
    k = m.shape[1]
    return np.where(m.any(axis=1), np.argmax(m, axis=1), k) if m.size else np.full(m.shape[0], k)
