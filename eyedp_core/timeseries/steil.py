"""Steil et al.'s per-feature mechanism: the provable Laplace form and the published sampler (not DP).

docs/PRIVACY_MODEL.md §7. The faithful replacement (§7.3) releases every element of a (possibly subsampled)
series with i.i.d. Lap(T'·R_i/ε_i) noise, T' the released length, R_i the public range. The published
sampler (§7.1) moves every element by the same random magnitude; it is NOT differentially private
(§7.2) and exists here only to reproduce the paper, labelled `PUBLISHED_LABEL`.

Noise: the faithful form draws through the `eyedp_core.dp.noise` Laplace mechanism at the scale of its
`Calibration` (built in `timeseries.calibration`). The published sampler keeps its OWN exponential
draw on purpose: it is the paper's non-DP algorithm, has no calibration, and is never a DP release.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from eyedp_core.dp.registry import Mech
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.timeseries.calibration import ChunkCalibration, steil_calibration, steil_scale, subsampled_length
from eyedp_core.timeseries.private import PrivateSeries, group_invocations, group_scales, noise_source
from eyedp_core.timeseries.release import lattice_arrays, release_lattices
from eyedp_core.timeseries.sensitivity import as_float_series, clamp, row_param, value_range

__all__ = [
    "PUBLISHED_LABEL",
    "faithful",
    "published",
    "published_log_density",
    "published_range",
    "published_worst_log_ratio",
    "steil_calibration",
    "steil_laplace",
    "steil_published",
    "steil_scale",
    "subsample",
    "subsampled_length",
]

PUBLISHED_LABEL = "Steil et al. sampler, as published — not differentially private"


def subsample(x: np.ndarray, w: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Series (..., T), window w, rng in, (one sample per non-overlapping window (..., T'), positions) out.

    Positions are drawn uniformly inside each window, independently per series and of the data
    (§7.3); the last window may be partial. w = 1 returns the series and 0 … T−1.
    """
    arr = np.asarray(x, dtype=float)
    t = arr.shape[-1]
    tp = subsampled_length(t, w)
    starts = np.arange(tp) * int(w)
    widths = np.minimum(int(w), t - starts)
    if w == 1:
        return arr.copy(), np.broadcast_to(starts, arr.shape).copy()
    offsets = np.floor(rng.random(arr.shape[:-1] + (tp,)) * widths).astype(int)
    pos = starts + offsets
    return np.take_along_axis(arr, pos, axis=-1), pos


def _group(length: int, epsilon: float, *, w: int, sensitivity_type: str, value_range: float | None = None,
           sensitivity: float | None = None) -> ChunkCalibration:
    """One Steil parameter combination in, its calibration (b = T'·R/ε) out."""
    cal = steil_calibration(int(length), w, epsilon, value_range, sensitivity_type, sensitivity=sensitivity)
    return ChunkCalibration(length=subsampled_length(int(length), w), count=0, k=None, calibration=cal)


def faithful(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    rng: np.random.Generator,
    bounds: tuple | None = None,
    sensitivity: float | np.ndarray | None = None,
    w: int = 1,
    sensitivity_type: str = "public",
) -> PrivateSeries:
    """Series (..., T), per-feature ε_i, bounds or L1 sensitivity of the RELEASED series, window w in,
    subsampled series + i.i.d. Lap(T'·R_i/ε_i) (..., T') with its calibrations out (§7.3)."""
    if sensitivity is None and bounds is None:
        raise ValueError("give either public bounds=(L, U) or the L1 sensitivity of the released series")
    arr = as_float_series(x)
    release = isinstance(rng, ReleaseSource)
    if release and (bounds is None or int(w) != 1):
        raise ValueError("a Steil release needs public bounds and w = 1 (its subsampling positions are drawn "
                         "from a preview Generator)")
    if bounds is not None:
        arr = clamp(arr, bounds)
    sub, pos = subsample(arr, w, rng)
    lead = arr.shape[:-1]
    cols = {"length": np.asarray(arr.shape[-1]), "epsilon": row_param(epsilon, lead, "epsilon")[..., None]}
    if sensitivity is None:
        cols["value_range"] = value_range(bounds, lead)[..., None]
    else:
        cols["sensitivity"] = row_param(sensitivity, lead, "sensitivity")[..., None]
    groups, which = group_invocations(cols, partial(_group, w=int(w), sensitivity_type=sensitivity_type))
    if release:
        # Every clamped sample rounded to its lattice before OpenDP's noise (docs/PRIVACY_MODEL.md §11.2).
        lattices = release_lattices(groups, magnitude=0.0)
        scales, ks = lattice_arrays(lattices, which)
        values = noise_source(groups).perturb(rng, sub, scales, ks)
        return PrivateSeries(values, Mech.STEIL, groups, which, chunk=int(w), positions=pos, lattice=lattices)
    noise = noise_source(groups).sample(rng, sub.shape, scale=group_scales(groups, which))
    return PrivateSeries(sub + noise, Mech.STEIL, groups, which, chunk=int(w), positions=pos)


def steil_laplace(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    rng: np.random.Generator,
    bounds: tuple | None = None,
    sensitivity: float | np.ndarray | None = None,
    w: int = 1,
    return_positions: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Series (..., T), per-feature ε_i, bounds or L1 sensitivity of the RELEASED series, window w in,
    subsampled series + i.i.d. Lap(T'·R_i/ε_i) (..., T') out (provable replacement, §7.3)."""
    out = faithful(x, epsilon=epsilon, rng=rng, bounds=bounds, sensitivity=sensitivity, w=w)
    return (out.values, out.positions) if return_positions else out.values


def published_range(x: np.ndarray, axis: tuple[int, ...] | int | None = None) -> np.ndarray | float:
    """Data (participants, …, T) in, Steil's data-derived δ_i = max − min out (NOT a DP sensitivity)."""
    arr = np.asarray(x, dtype=float)
    return np.nanmax(arr, axis=axis) - np.nanmin(arr, axis=axis)


def published(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    value_range: float | np.ndarray,
    rng: np.random.Generator,
    w: int = 1,
) -> PrivateSeries:
    """Series (..., T), nominal ε_i, range δ_i, window w in, the paper's sampler output (..., T') out,
    with NO calibration (groups empty, invocations −1): NOT DIFFERENTIALLY PRIVATE (§7.2).

    Reproduction only, with its own exponential draw (it is not a noise mechanism of dp.noise): one
    y ~ Exp(scale 1/λ_i) per series with λ_i = ε_i/(2·t_max·δ_i), and r_j = p_j ± ln(y)/(λ_i·t_max) with
    a random sign per element, t_max the released length.
    """
    arr = as_float_series(x)
    sub, pos = subsample(arr, w, rng)
    lead, t_max = sub.shape[:-1], sub.shape[-1]
    eps = row_param(epsilon, lead, "epsilon")
    delta = row_param(value_range, lead, "value_range")
    lam = eps / (2.0 * t_max * delta)
    y = rng.exponential(scale=1.0 / lam)
    signs = rng.choice(np.array([-1.0, 1.0]), size=sub.shape)
    values = sub + signs * (np.log(y) / (lam * t_max))[..., None]
    none = np.full(lead + (1,), -1, dtype=int)
    return PrivateSeries(values, Mech.STEIL_PUBLISHED, (), none, chunk=int(w), positions=pos)


def steil_published(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    value_range: float | np.ndarray,
    rng: np.random.Generator,
    w: int = 1,
) -> np.ndarray:
    """Series (..., T), nominal ε_i, range δ_i, window w in, the paper's sampler output (..., T') out.

    NOT DIFFERENTIALLY PRIVATE (docs/PRIVACY_MODEL.md §7.2) — reproduction only; see `published`.
    """
    return published(x, epsilon=epsilon, value_range=value_range, rng=rng, w=w).values


def published_log_density(z: np.ndarray, epsilon: float, value_range: float) -> np.ndarray:
    """Displacement z, nominal ε, range δ in, log density of the published sampler for T = 1 out.

    Z = S·ln(Y)/λ, Y ~ Exp(rate λ), λ = ε/(2δ), S a fair sign: f_Z(z) = (f_W(z) + f_W(−z))/2 with
    f_W(w) = λ²·e^{λw}·exp(−λe^{λw}).
    """
    lam = float(epsilon) / (2.0 * float(value_range))
    zz = np.asarray(z, dtype=float)

    def log_fw(v: np.ndarray) -> np.ndarray:
        return 2.0 * math.log(lam) + lam * v - lam * np.exp(lam * v)

    return np.logaddexp(log_fw(zz), log_fw(-zz)) - math.log(2.0)


def published_worst_log_ratio(epsilon: float, value_range: float, grid: np.ndarray | None = None) -> float:
    """Nominal ε, range δ (optional z grid) in, max_z |ln f_Z(z) − ln f_Z(z − δ)| of the published sampler.

    A true ε-DP mechanism keeps this ≤ ε; the published sampler exceeds it (V-STEIL-3).
    """
    delta = float(value_range)
    if grid is None:
        scale = 2.0 * delta / float(epsilon)
        grid = np.linspace(-40.0 * scale, 40.0 * scale, 400_001)
    diff = published_log_density(grid, epsilon, delta) - published_log_density(grid - delta, epsilon, delta)
    return float(np.max(np.abs(diff)))
