"""The confidence interval of a ratio of two Laplace-noised sums (the mean time to first fixation, S/H).

With S̃ = S + b_S·L1 and H̃ = H + b_H·L2 (independent Lap(1) L1, L2), the pivot S̃ − r·H̃ at the true ratio r = S/H
is b_S·L1 − r·b_H·L2, whose law is known for every r. The set of r in the ratio's public range [0, upper] whose
pivot lies within its own 95 % quantile, {r : |S̃ − r·H̃| ≤ q(r)}, therefore holds the true ratio with probability
exactly 95 % (Fieller's construction with the Laplace law): no plug-in of the noisy H̃ and no linearisation. The
interval reported is the smallest one holding that set (the set is an interval in practice; a gap would only
make the interval cover more); an empty set (no ratio in the range fits the noisy sums) reports no interval, and
counts among the 5 % that miss. The exactness is that of continuous Laplace noise (the preview); a release draws
on a lattice and uses its slightly larger scale, within the rounding of the lattice.
"""
from __future__ import annotations

import numpy as np

__all__ = ["abs_quantile", "ratio_interval", "two_laplace_tail"]

_GRID = 513  # candidate ratios over [0, upper]: q(r) is computed at each, once per release
_QUANTILE_STEPS = 42  # bisection steps: the quantile to 2^-42 of its bracket


def two_laplace_tail(t: np.ndarray, a: float | np.ndarray, c: float | np.ndarray) -> np.ndarray:
    """P(|a·L1 + c·L2| > t) for independent Lap(1) L1, L2 and scales a, c >= 0, element-wise."""
    t, a, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (t, a, c)))
    big, small = np.maximum(a, c), np.minimum(a, c)
    safe_big = np.where(big > 0, big, 1.0)
    one = np.exp(-t / safe_big)
    near = np.abs(big - small) <= 1e-6 * safe_big  # equal scales: the limit, (1 + t/2a)·e^(−t/a)
    tiny = small <= 1e-12 * safe_big
    denom = np.where(near | tiny, 1.0, big * big - small * small)
    safe_small = np.where(tiny, 1.0, small)
    with np.errstate(over="ignore", invalid="ignore"):
        general = (big * big * one - small * small * np.exp(-t / safe_small)) / denom
    out = np.where(tiny, one, np.where(near, one * (1.0 + t / (2.0 * safe_big)), general))
    return np.where(big > 0, out, (t < 0).astype(float))


def abs_quantile(a: float, c: np.ndarray, confidence: float) -> np.ndarray:
    """Scale a and scales c (an array) in, the `confidence` quantile of |a·L1 + c·L2| for each c out (bisection
    on the exact tail)."""
    c = np.asarray(c, dtype=float)
    alpha = 1.0 - confidence
    lo = np.zeros_like(c)
    hi = (a + c) * np.log(2.0 / alpha) * 2.0 + 1e-300
    for _ in range(_QUANTILE_STEPS):
        mid = 0.5 * (lo + hi)
        above = two_laplace_tail(mid, a, c) > alpha
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    return hi


def ratio_interval(s_noisy: np.ndarray, h_noisy: np.ndarray, b_s: float, b_h: float, upper: float,
                   confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Noisy sums S̃, H̃ (one per AOI), their Laplace scales, the ratio's public upper bound and the confidence in,
    each AOI's interval (low, high) out: the smallest interval in [0, upper] holding every r with
    |S̃ − r·H̃| <= q(r); NaN where no r in the range fits. q is computed once on a grid of ratios (it does not
    depend on the AOI) and each end is placed where the margin q(r) − |S̃ − r·H̃| crosses 0 between two grid
    ratios (linear in between: q is smooth, so the end is off by far less than a grid step)."""
    s = np.asarray(s_noisy, dtype=float).ravel()[:, None]
    h = np.asarray(h_noisy, dtype=float).ravel()[:, None]
    grid = np.linspace(0.0, float(upper), _GRID)
    margin = abs_quantile(b_s, grid * b_h, confidence)[None, :] - np.abs(s - grid[None, :] * h)
    inside = margin >= 0
    fits = inside.any(axis=1)
    rows = np.arange(s.shape[0])
    first = np.argmax(inside, axis=1)
    last = _GRID - 1 - np.argmax(inside[:, ::-1], axis=1)
    low = _crossing(grid, margin, rows, np.maximum(first - 1, 0), first)
    high = _crossing(grid, margin, rows, np.minimum(last + 1, _GRID - 1), last)
    low = np.where(first == 0, 0.0, low)
    high = np.where(last == _GRID - 1, float(upper), high)
    return np.where(fits, low, np.nan), np.where(fits, high, np.nan)


def _crossing(grid: np.ndarray, margin: np.ndarray, rows: np.ndarray, out_idx: np.ndarray,
              in_idx: np.ndarray) -> np.ndarray:
    """Grid, margins (AOIs x grid), a grid index outside and one inside the set per AOI in, where the margin
    crosses 0 between them out (linear interpolation; the inside index where they coincide)."""
    m_out, m_in = margin[rows, out_idx], margin[rows, in_idx]
    r_out, r_in = grid[out_idx], grid[in_idx]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(m_in > m_out, m_in / (m_in - m_out), 0.0)
    return r_in + w * (r_out - r_in)
