"""Record-release mechanisms for feature series: LPA, FPA, CFPA, DCFPA (Bozkir et al., corrected).

docs/PRIVACY_MODEL.md §1–§4. Every function takes a series `x` of shape (T,) or (..., T) (rows are independent
series: participants × features × recordings), perturbs each row with its own noise and returns an
array of the same shape. `epsilon` is the budget of ONE invocation: per series for LPA/FPA, per chunk
for CFPA/DCFPA, exactly as the paper states it; the participant-level total is in `ts_accounting`.

Sensitivity: pass `sensitivity` (L1 for LPA, L2 for the FFT family, of one series/one chunk) or
`bounds=(L, U)` to clamp and use the public-bound value (docs/PRIVACY_MODEL.md §0.4). Scalars and per-series
arrays broadcast over the leading axes; the chunked methods also accept per-chunk arrays (..., C).

All noise comes from numpy generators: previews only, not a release sampler (docs/PRIVACY_MODEL.md §11).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from eyedp_core.dp import mechanisms
from eyedp_core.timeseries.sensitivity import (
    as_float_series,
    chunk_cumsum,
    chunk_differences,
    chunk_lengths,
    clamp,
    clip_increments,
    diff_l2_public,
    l1_public,
    l2_public,
    row_param,
    value_range,
)

__all__ = [
    "NORMS",
    "cfpa",
    "dcfpa",
    "dcfpa_paper_reconstruction",
    "fpa",
    "fpa_scale",
    "lpa",
    "max_bins",
    "norm_factor",
    "truncate_spectrum",
]

Norm = Literal["backward", "ortho", "forward"]
NORMS: tuple[str, ...] = ("backward", "ortho", "forward")


def norm_factor(n: int | np.ndarray, norm: Norm = "backward") -> np.ndarray | float:
    """Transform length n and numpy FFT norm in, the scale factor c of λ = c·√(kn)·Δ2/ε out (§2.2)."""
    n = np.asarray(n, dtype=float)
    if norm == "backward":
        return np.ones_like(n)
    if norm == "ortho":
        return 1.0 / np.sqrt(n)
    if norm == "forward":
        return 1.0 / n
    raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")


def max_bins(n: int | np.ndarray) -> np.ndarray | int:
    """Transform length n in, number of rfft bins ⌊n/2⌋ + 1 (the largest admissible k) out."""
    return np.asarray(n) // 2 + 1


def fpa_scale(
    n: int | np.ndarray,
    k: int | np.ndarray,
    l2_sensitivity: float | np.ndarray,
    epsilon: float | np.ndarray,
    norm: Norm = "backward",
) -> np.ndarray | float:
    """Length n, retained bins k, Δ2, ε, FFT norm in, Laplace scale λ = c·√(k·n)·Δ2/ε per Re/Im part out."""
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be finite and > 0")
    d2 = np.asarray(l2_sensitivity, dtype=float)
    if np.any(d2 < 0) or np.any(~np.isfinite(d2)):
        raise ValueError("the L2 sensitivity must be finite and >= 0")
    n_arr = np.asarray(n, dtype=float)
    return norm_factor(n_arr, norm) * np.sqrt(np.asarray(k, dtype=float) * n_arr) * d2 / eps


# --------------------------------------------------------------------------------------------
# batched FPA core


def _spectrum_keep(n: int, k: np.ndarray) -> np.ndarray:
    """Boolean mask (..., nb): which rfft bins are retained for each row."""
    return np.arange(n // 2 + 1) < k[..., None]


def _fpa_rows(
    x: np.ndarray, k: np.ndarray, lam: np.ndarray, norm: Norm, rng: np.random.Generator | None
) -> np.ndarray:
    """(..., n) rows, per-row k and λ in, FPA output rows out; rng=None gives the noise-free truncation."""
    n = x.shape[-1]
    spec = np.fft.rfft(x, axis=-1, norm=norm)
    keep = _spectrum_keep(n, k)
    spec[~keep] = 0.0
    kmax = int(k.max()) if k.size else 0
    if rng is not None and kmax > 0:
        # Re and Im are noised separately (pitfall 1: real-only noise leaves Im published exactly).
        z_re = rng.laplace(size=x.shape[:-1] + (kmax,))
        z_im = rng.laplace(size=x.shape[:-1] + (kmax,))
        # DC and (even n) Nyquist are real by construction: they carry one real parameter only.
        z_im[..., 0] = 0.0
        if n % 2 == 0 and kmax > n // 2:
            z_im[..., n // 2] = 0.0
        noise = (z_re + 1j * z_im) * (lam[..., None] * keep[..., :kmax])
        spec[..., :kmax] += noise
    # irfft restores the Hermitian mirror, so no component is halved (pitfall 2).
    return np.fft.irfft(spec, n=n, axis=-1, norm=norm)


def _check_k(k: np.ndarray, n: int | None, what: str) -> np.ndarray:
    if np.any(k != np.round(k)) or np.any(k < 1):
        raise ValueError(f"k must be an integer >= 1 ({what})")
    if n is not None and np.any(k > n // 2 + 1):
        raise ValueError(f"k must be <= ⌊n/2⌋+1 = {n // 2 + 1} for {what} of length {n}, got {int(k.max())}")
    return k.astype(int)


def truncate_spectrum(x: np.ndarray, k: int | np.ndarray, norm: Norm = "backward") -> np.ndarray:
    """Series (..., n) and k (scalar or per-series) in, noise-free reconstruction from k bins out."""
    arr = as_float_series(x)
    kk = _check_k(row_param(k, arr.shape[:-1], "k"), arr.shape[-1], "the series")
    return _fpa_rows(arr, kk, np.zeros(arr.shape[:-1]), norm, None)


def _prepare(x: np.ndarray, bounds: tuple | None) -> np.ndarray:
    arr = as_float_series(x)
    return clamp(arr, bounds) if bounds is not None else arr


def _need_bounds(sensitivity: object, bounds: tuple | None) -> None:
    if sensitivity is None and bounds is None:
        raise ValueError("give either a sensitivity or public bounds=(L, U) to derive it from")


# --------------------------------------------------------------------------------------------
# LPA and FPA on whole series


def lpa(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    sensitivity: float | np.ndarray | None = None,
    rng: np.random.Generator,
    bounds: tuple | None = None,
) -> np.ndarray:
    """Series (..., T), per-series ε, L1 sensitivity or public bounds in, x + i.i.d. Lap(Δ1/ε) out (§1)."""
    _need_bounds(sensitivity, bounds)
    arr = _prepare(x, bounds)
    lead = arr.shape[:-1]
    if sensitivity is None:
        d1 = l1_public(arr.shape[-1], value_range(bounds, lead))
    else:
        d1 = row_param(sensitivity, lead, "sensitivity")
    eps = row_param(epsilon, lead, "epsilon")
    scale = np.vectorize(mechanisms.laplace_scale, otypes=[float])(d1, eps)
    return arr + rng.laplace(size=arr.shape) * scale[..., None]


def fpa(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    k: int | np.ndarray,
    sensitivity: float | np.ndarray | None = None,
    rng: np.random.Generator,
    bounds: tuple | None = None,
    norm: Norm = "backward",
) -> np.ndarray:
    """Series (..., n), per-series ε, k, L2 sensitivity or public bounds in, FPA output (..., n) out (§2).

    Laplace noise of scale λ = c·√(kn)·Δ2/ε on Re and Im of the first k rfft bins (Im skipped for
    DC/Nyquist), all other bins zeroed, inverted with irfft under the same `norm`.
    """
    _need_bounds(sensitivity, bounds)
    arr = _prepare(x, bounds)
    lead, n = arr.shape[:-1], arr.shape[-1]
    kk = _check_k(row_param(k, lead, "k"), n, "the series")
    if sensitivity is None:
        d2 = l2_public(n, value_range(bounds, lead))
    else:
        d2 = row_param(sensitivity, lead, "sensitivity")
    lam = fpa_scale(n, kk, d2, row_param(epsilon, lead, "epsilon"), norm)
    return _fpa_rows(arr, kk, np.asarray(lam, dtype=float), norm, rng)


# --------------------------------------------------------------------------------------------
# chunked FPA (CFPA) and difference chunked FPA (DCFPA)


def _chunk_param(value: object, lead: tuple[int, ...], c: int, name: str) -> np.ndarray:
    """Scalar, per-series (..., 1)/(...,), per-chunk (C,) or (..., C) in, array (..., C) out."""
    arr = np.asarray(value, dtype=float)
    if arr.ndim == len(lead) and arr.ndim > 0 and arr.shape != (c,):
        arr = arr[..., None]  # per-series array given without the chunk axis
    try:
        return np.broadcast_to(arr, lead + (c,)).astype(float)
    except ValueError as exc:
        raise ValueError(f"{name} of shape {np.shape(value)} does not broadcast to {lead + (c,)}") from exc


def _chunked_fpa(
    arr: np.ndarray,
    *,
    epsilon: object,
    k: object,
    chunk: int,
    d2: np.ndarray,
    norm: Norm,
    rng: np.random.Generator | None,
) -> np.ndarray:
    """Rows (..., T), per-chunk Δ2 (..., C) in, FPA on every chunk out (tail at its true length)."""
    chunk = int(chunk)
    lead, t = arr.shape[:-1], arr.shape[-1]
    lengths = chunk_lengths(t, chunk)
    c = lengths.size
    full = t // chunk
    kk = _chunk_param(k, lead, c, "k")
    if full:
        kk[..., :full] = _check_k(kk[..., :full], chunk, "a chunk")
    if full < c:
        # The last partial chunk cannot keep more bins than it has.
        tail_n = int(lengths[-1])
        kk[..., -1] = np.minimum(_check_k(kk[..., -1], None, "the tail chunk"), tail_n // 2 + 1)
    kk = kk.astype(int)
    lam = np.asarray(fpa_scale(lengths, kk, d2, _chunk_param(epsilon, lead, c, "epsilon"), norm))
    out = np.empty_like(arr)
    if full:
        body = arr[..., : full * chunk].reshape(lead + (full, chunk))
        res = _fpa_rows(body, kk[..., :full], lam[..., :full], norm, rng)
        out[..., : full * chunk] = res.reshape(lead + (full * chunk,))
    if full < c:
        # Second batched call: the tail runs at its TRUE length (no padding with own values).
        out[..., full * chunk :] = _fpa_rows(arr[..., full * chunk :], kk[..., -1], lam[..., -1], norm, rng)
    return out


def cfpa(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    k: int | np.ndarray,
    chunk: int,
    sensitivity: float | np.ndarray | None = None,
    rng: np.random.Generator,
    bounds: tuple | None = None,
    norm: Norm = "backward",
) -> np.ndarray:
    """Series (..., T), per-chunk ε and k, chunk length, per-chunk Δ2 or bounds in, CFPA output out (§3).

    Non-overlapping chunks of `chunk` samples; the last partial chunk is transformed at its true
    length and, with public bounds, gets Δ2 = √(n_c)·R of that length. k is capped at the tail's
    ⌊n_c/2⌋+1 there. ε is per chunk: the participant total is C·ε per feature (see ts_accounting).
    """
    _need_bounds(sensitivity, bounds)
    arr = _prepare(x, bounds)
    lead = arr.shape[:-1]
    lengths = chunk_lengths(arr.shape[-1], int(chunk))
    if sensitivity is None:
        d2 = l2_public(lengths, value_range(bounds, lead)[..., None])
    else:
        d2 = _chunk_param(sensitivity, lead, lengths.size, "sensitivity")
    return _chunked_fpa(arr, epsilon=epsilon, k=k, chunk=chunk, d2=d2, norm=norm, rng=rng)


def dcfpa(
    x: np.ndarray,
    *,
    epsilon: float | np.ndarray,
    k: int | np.ndarray,
    chunk: int,
    sensitivity: float | np.ndarray | None = None,
    rng: np.random.Generator,
    bounds: tuple | None = None,
    increment_bound: float | np.ndarray | None = None,
    norm: Norm = "backward",
) -> np.ndarray:
    """Series (..., T), per-chunk ε and k, chunk length, Δ2 of the DIFFERENCE chunk or bounds in, DCFPA out.

    Within-chunk differences (first sample kept and noised), optional public increment bound B
    (increments clipped to [−B, B]), FPA on the differences, reconstruction by cumulative sum inside
    each chunk. Public Δ2(d) = √(R² + 4(n_c−1)·min(B, R)²) per chunk at its true length.
    """
    _need_bounds(sensitivity, bounds)
    arr = _prepare(x, bounds)
    lead = arr.shape[:-1]
    d = chunk_differences(arr, int(chunk))
    if increment_bound is not None:
        d = clip_increments(d, int(chunk), increment_bound)
    lengths = chunk_lengths(arr.shape[-1], int(chunk))
    if sensitivity is None:
        b = (
            None
            if increment_bound is None
            else row_param(increment_bound, lead, "increment bound")[..., None]
        )
        d2 = diff_l2_public(lengths, value_range(bounds, lead)[..., None], b)
    else:
        d2 = _chunk_param(sensitivity, lead, lengths.size, "sensitivity")
    noisy_d = _chunked_fpa(d, epsilon=epsilon, k=k, chunk=chunk, d2=d2, norm=norm, rng=rng)
    return chunk_cumsum(noisy_d, int(chunk))


def dcfpa_paper_reconstruction(noisy_d: np.ndarray, chunk: int) -> np.ndarray:
    """Noisy within-chunk differences (..., T) in, the paper's printed step 3 x̃_t = d̃_t + d̃_{t−1} out.

    TEACHING ONLY — as printed in Bozkir et al. (Algorithm 2), this is NOT the inverse of differencing
    (on clean data it returns x_t − x_{t−2}); the product reconstructs with chunk_cumsum.
    """
    arr = np.asarray(noisy_d, dtype=float)
    out = arr.copy()
    out[..., 1:] += arr[..., :-1]
    out[..., :: int(chunk)] = arr[..., :: int(chunk)]
    return out
