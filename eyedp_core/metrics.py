"""Utility metrics, one definition each: NMSE of a series (normalised by its variance, range or the paper's
mean product; docs/PRIVACY_MODEL.md §5), NMSE of a map (normalised by its energy), MSE, Pearson CC, lag
correlation and ACF.

All functions are vectorised over leading axes: a 2-D input is a stack of series, one per row.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "NMSE_KINDS",
    "TAU",
    "acf",
    "lag_correlation",
    "mean_nmse_over_runs",
    "mse",
    "nmse",
    "nmse_by_energy",
    "pearson_cc",
    "utility",
    "utility_db",
    "var_degenerate",
]

NMSE_KINDS = ("var", "range", "paper", "paper_abs")
# Relative threshold below which a normaliser counts as zero (docs/PRIVACY_MODEL.md §5).
TAU = 1e-12

Bounds = tuple[Any, Any] | None


def _range_sq(bounds: Bounds) -> np.ndarray:
    if bounds is None:
        raise ValueError("this NMSE kind needs public bounds=(L, U)")
    lo, hi = (np.asarray(b, dtype=float) for b in bounds)
    rng = hi - lo
    if np.any(~np.isfinite(rng)) or np.any(rng <= 0):
        raise ValueError("bounds must satisfy L < U (finite)")
    return rng * rng


def _sq_dev(x: np.ndarray) -> np.ndarray:
    return np.sum((x - x.mean(axis=-1, keepdims=True)) ** 2, axis=-1)


def var_degenerate(x: np.ndarray, bounds: Bounds = None, axis: int = -1) -> np.ndarray:
    """Series (any shape) and optional bounds in, bool mask of rows whose variance normaliser is ~0 out.

    With bounds: Σ(x − x̄)² < τ·n·(U − L)² (NMSE_var falls back to NMSE_range there). Without
    bounds: Σ(x − x̄)² ≤ τ·Σx² (relative to the signal's energy; all-zero rows count as degenerate).
    """
    xs = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    n = xs.shape[-1]
    ss = _sq_dev(xs)
    if bounds is not None:
        return ss < TAU * n * _range_sq(bounds)
    return ss <= TAU * np.sum(xs * xs, axis=-1)


def nmse(x: np.ndarray, x_noisy: np.ndarray, kind: str = "var", bounds: Bounds = None,
         axis: int = -1) -> np.ndarray | float:
    """Clean and noisy series (same shape) in, NMSE along `axis` out (scalar for 1-D input).

    kind="var": Σ(x − x̃)²/Σ(x − x̄)², falling back to NMSE_range where the variance is degenerate
    (nan there when no bounds are given). "range": mean (x − x̃)²/(U − L)². "paper":
    mean (x − x̃)²/(x̄·mean x̃), nan where |x̄·mean x̃| < τ(U − L)² (or is 0 without bounds).
    "paper_abs": |paper|. `bounds` = (L, U), scalars or arrays broadcastable to the result.
    """
    if kind not in NMSE_KINDS:
        raise ValueError(f"kind must be one of {NMSE_KINDS}, got {kind!r}")
    xs = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    ys = np.moveaxis(np.asarray(x_noisy, dtype=float), axis, -1)
    if xs.shape != ys.shape:
        xs, ys = np.broadcast_arrays(xs, ys)
    err = np.mean((xs - ys) ** 2, axis=-1)
    return _normalise(err, xs, ys.mean(axis=-1), kind, bounds)


def _normalise(err: np.ndarray, xs: np.ndarray, noisy_mean: np.ndarray, kind: str,
               bounds: Bounds) -> np.ndarray | float:
    """Mean squared error per row, clean rows and mean of the noisy rows in, NMSE of `kind` out."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "range":
            out = err / _range_sq(bounds)
        elif kind == "var":
            n = xs.shape[-1]
            out = err / (_sq_dev(xs) / n)
            degenerate = var_degenerate(xs, bounds)
            fallback = err / _range_sq(bounds) if bounds is not None else np.nan
            out = np.where(degenerate, fallback, out)
        else:
            denom = xs.mean(axis=-1) * noisy_mean
            out = err / denom
            limit = TAU * _range_sq(bounds) if bounds is not None else 0.0
            undefined = np.abs(denom) < limit if bounds is not None else denom == 0
            out = np.where(undefined, np.nan, out)
            if kind == "paper_abs":
                out = np.abs(out)
    out = np.asarray(out, dtype=float)
    return float(out) if out.ndim == 0 else out


def mean_nmse_over_runs(x: np.ndarray, x_noisy_runs: np.ndarray, kind: str = "var",
                        bounds: Bounds = None) -> np.ndarray | float:
    """Clean series (..., T) and noisy runs (R, ..., T) in, NMSE of the run-averaged MSE out.

    Averages the MSE over runs first and normalises once (ratio of means, docs/PRIVACY_MODEL.md §5); for the
    paper kinds the noisy mean in the normaliser is also averaged over runs.
    """
    if kind not in NMSE_KINDS:
        raise ValueError(f"kind must be one of {NMSE_KINDS}, got {kind!r}")
    xs = np.asarray(x, dtype=float)
    runs = np.asarray(x_noisy_runs, dtype=float)
    if runs.shape[1:] != xs.shape:
        raise ValueError(f"x_noisy_runs must have shape (runs, *{xs.shape}), got {runs.shape}")
    err = np.mean((runs - xs) ** 2, axis=(0, -1))
    return _normalise(err, xs, runs.mean(axis=(0, -1)), kind, bounds)


def utility(nmse_value: np.ndarray | float) -> np.ndarray | float:
    """NMSE in, utility 1/NMSE out (inf at 0, nan stays nan)."""
    with np.errstate(divide="ignore"):
        out = 1.0 / np.asarray(nmse_value, dtype=float)
    return float(out) if out.ndim == 0 else out


def utility_db(nmse_value: np.ndarray | float) -> np.ndarray | float:
    """NMSE in, utility in decibels 10·log10(1/NMSE) out."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -10.0 * np.log10(np.asarray(nmse_value, dtype=float))
    return float(out) if out.ndim == 0 else out


def nmse_by_energy(reference: np.ndarray, estimate: np.ndarray) -> float:
    """Two maps in, ‖estimate − reference‖² / ‖reference‖² out (0 = perfect, 1 = as bad as an empty map).

    The heatmaps' NMSE: a gaze map has no meaningful mean to subtract (most cells are near 0), so the error is
    normalised by the clean map's energy, not by its variance as `nmse` does for a series."""
    ref = np.asarray(reference, dtype=float)
    den = float(np.sum(ref * ref))
    d = np.asarray(estimate, dtype=float) - ref
    return float(np.sum(d * d) / den) if den > 0 else float("nan")


def mse(a: np.ndarray, b: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    """Two arrays in, mean squared difference out (over all values, or along `axis`)."""
    out = np.mean((np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) ** 2, axis=axis)
    return float(out) if np.ndim(out) == 0 else out


def pearson_cc(a: np.ndarray, b: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    """Two arrays in, Pearson correlation out (flattened, or along `axis`); nan where an input is constant."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if axis is None:
        x, y = x.ravel(), y.ravel()
        axis = -1
    x, y = np.broadcast_arrays(x, y)
    xc = x - x.mean(axis=axis, keepdims=True)
    yc = y - y.mean(axis=axis, keepdims=True)
    sxy = np.sum(xc * yc, axis=axis)
    sxx = np.sum(xc * xc, axis=axis)
    syy = np.sum(yc * yc, axis=axis)
    denom = np.sqrt(sxx * syy)
    # Rounding can leave a constant series with a tiny non-zero spread; treat it as constant.
    scale = np.sqrt(np.sum(x * x, axis=axis) * np.sum(y * y, axis=axis))
    const = denom <= 1e-13 * scale
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(const, np.nan, sxy / np.where(const, 1.0, denom))
    out = np.clip(out, -1.0, 1.0)
    return float(out) if np.ndim(out) == 0 else out


def lag_correlation(signals: np.ndarray, ref_index: int = 4, max_lag: int | None = None) -> np.ndarray:
    """Signals (participants, T) in, CC across participants of column ref vs ref+Δ (Δ = 0..max_lag) out.

    Bozkir et al.'s correlation-versus-lag curve; max_lag defaults to T − 1 − ref_index.
    """
    s = np.asarray(signals, dtype=float)
    if s.ndim != 2:
        raise ValueError(f"signals must be 2-D (participants, T), got shape {s.shape}")
    t = s.shape[1]
    if not 0 <= ref_index < t:
        raise ValueError(f"ref_index must lie in [0, {t - 1}], got {ref_index}")
    if max_lag is None:
        max_lag = t - 1 - ref_index
    if not 0 <= max_lag <= t - 1 - ref_index:
        raise ValueError(f"max_lag must lie in [0, {t - 1 - ref_index}], got {max_lag}")
    ref = s[:, ref_index:ref_index + 1]
    lagged = s[:, ref_index:ref_index + max_lag + 1]
    return np.asarray(pearson_cc(ref, lagged, axis=0), dtype=float).reshape(max_lag + 1)


def acf(x: np.ndarray, max_lag: int) -> np.ndarray:
    """Series (T,) or (..., T) in, sample autocorrelation r_0..r_max_lag per row out (nan for constant rows).

    r_k = Σ_t (x_t − x̄)(x_{t+k} − x̄) / Σ_t (x_t − x̄)², the usual biased estimator.
    """
    xs = np.asarray(x, dtype=float)
    t = xs.shape[-1]
    if not 0 <= max_lag <= t - 1:
        raise ValueError(f"max_lag must lie in [0, {t - 1}], got {max_lag}")
    xc = xs - xs.mean(axis=-1, keepdims=True)
    nfft = 1 << int(np.ceil(np.log2(2 * t - 1))) if t > 1 else 1
    spec = np.fft.rfft(xc, n=nfft, axis=-1)
    cov = np.fft.irfft(spec * np.conj(spec), n=nfft, axis=-1)[..., : max_lag + 1]
    c0 = np.sum(xc * xc, axis=-1, keepdims=True)
    const = c0 <= 1e-13 * np.sum(xs * xs, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(const, np.nan, cov / np.where(const, 1.0, c0))
