"""Public bounds, clamping, public length, chunk differencing and sensitivities for feature series.

docs/PRIVACY_MODEL.md §0.4 (public bounds versus data-derived sensitivity), §0.5 (public length), §3 and §4
(chunk and difference-signal sensitivities). Arrays are (..., T): the last axis is time, every
leading axis (participants, features, recordings) is a batch of independent series.
"""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np

__all__ = [
    "as_float_series",
    "bounds_arrays",
    "chunk_cumsum",
    "chunk_differences",
    "chunk_lengths",
    "clamp",
    "clip_increments",
    "diff_l1_public",
    "diff_l2_public",
    "dcfpa_kept_l1",
    "dcfpa_kept_ratio",
    "empirical_chunk_sensitivity",
    "empirical_sensitivity",
    "float_series",
    "l1_public",
    "l2_public",
    "n_chunks",
    "row_param",
    "split_chunks",
    "to_public_length",
    "value_range",
]

# Pairwise distances are formed by broadcasting; above this many elements we work in row blocks.
_PAIRWISE_BLOCK_ELEMS = 2_000_000


def float_series(x: np.ndarray) -> np.ndarray:
    """Array-like (..., T) in, float64 array out (shape checked; values NOT checked: the blocked mechanisms
    check them block by block, see timeseries.runners)."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 0:
        raise ValueError("a time series needs at least one axis (time last)")
    if arr.shape[-1] == 0:
        raise ValueError("empty series: the public length T must be at least 1")
    return arr


def as_float_series(x: np.ndarray) -> np.ndarray:
    """Array-like (..., T) in, float64 array out; raises on NaN/inf (fill missing values first)."""
    arr = float_series(x)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "series contain NaN or inf; fill missing samples with a public constant "
            "(timeseries.sensitivity.to_public_length(..., fill=...)) before the mechanism"
        )
    return arr


def row_param(value: float | np.ndarray, lead_shape: tuple[int, ...], name: str) -> np.ndarray:
    """Scalar or per-series array in, float array broadcast to the series' leading shape out."""
    arr = np.asarray(value, dtype=float)
    try:
        return np.broadcast_to(arr, lead_shape).astype(float)
    except ValueError as exc:
        raise ValueError(
            f"{name} of shape {arr.shape} does not broadcast to the series' leading shape {lead_shape}"
        ) from exc


def bounds_arrays(bounds: tuple, lead_shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Public bounds (L, U) (scalars or per-series) in, checked L and U arrays of the leading shape out."""
    lo = row_param(bounds[0], lead_shape, "lower bound L")
    hi = row_param(bounds[1], lead_shape, "upper bound U")
    if np.any(~np.isfinite(lo)) or np.any(~np.isfinite(hi)) or np.any(hi <= lo):
        raise ValueError("public bounds need finite L < U for every series")
    return lo, hi


def value_range(bounds: tuple, lead_shape: tuple[int, ...] = ()) -> np.ndarray:
    """Public bounds (L, U) (scalars or per-series arrays) in, range R = U − L broadcast to lead_shape out."""
    lo, hi = bounds_arrays(bounds, lead_shape)
    return hi - lo


def clamp(x: np.ndarray, bounds: tuple) -> np.ndarray:
    """Series (..., T) and public bounds (L, U) (scalars or per-series) in, series clipped to [L, U] out."""
    arr = np.asarray(x, dtype=float)
    lo, hi = bounds_arrays(bounds, arr.shape[:-1])
    return np.clip(arr, lo[..., None], hi[..., None])


def to_public_length(
    x: np.ndarray | list[np.ndarray],
    length: int,
    fill: float | np.ndarray | Literal["edge"],
) -> np.ndarray:
    """Series (..., T_i) or a list of 1-D series of varying length in, (..., length) array out.

    Longer series are truncated, shorter ones padded; NaN samples (missing windows) are replaced by
    the same fill. `fill` is a public constant (scalar or per-series, e.g. L_f, docs/PRIVACY_MODEL.md §0.5) or
    "edge" (repeat the series' last finite value). "edge" stays DP: it is a fixed map of one
    participant's own record into [L, U]^T, and the public-bound sensitivity covers all of
    [L, U]^T; only the output length must be public, which it is.
    """
    length = int(length)
    if length < 1:
        raise ValueError(f"public length T must be >= 1, got {length}")
    if isinstance(x, list | tuple):
        rows = [np.asarray(s, dtype=float).ravel() for s in x]
        out = np.full((len(rows), length), np.nan)
        for i, s in enumerate(rows):  # ragged input: one copy per series, no per-sample work
            out[i, : min(length, s.size)] = s[:length]
    else:
        arr = np.asarray(x, dtype=float)
        out = np.full(arr.shape[:-1] + (length,), np.nan)
        m = min(length, arr.shape[-1])
        out[..., :m] = arr[..., :m]
    missing = ~np.isfinite(out)
    if not missing.any():
        return out
    if isinstance(fill, str):
        if fill != "edge":
            raise ValueError(f"fill must be a number, a per-series array or 'edge', got {fill!r}")
        # Forward-fill by index of the last finite sample (vectorised ffill along time).
        idx = np.where(~missing, np.arange(length), 0)
        np.maximum.accumulate(idx, axis=-1, out=idx)
        filled = np.take_along_axis(out, idx, axis=-1)
        # Leading gaps have nothing before them: use the first finite value of the series.
        first = np.argmax(~missing, axis=-1)
        first_val = np.take_along_axis(out, first[..., None], axis=-1)
        filled = np.where(np.isfinite(filled), filled, first_val)
        if not np.all(np.isfinite(filled)):
            raise ValueError("'edge' fill needs at least one finite sample in every series")
        return filled
    const = row_param(fill, out.shape[:-1], "fill")
    return np.where(missing, const[..., None], out)


# --------------------------------------------------------------------------------------------
# public sensitivities (record release, one series or one chunk of length n)


def l1_public(n: int | np.ndarray, value_range: float | np.ndarray) -> np.ndarray | float:
    """Length n and public range R in, L1 sensitivity Δ1 = n·R of a clamped series out."""
    return np.asarray(n, dtype=float) * np.asarray(value_range, dtype=float)


def l2_public(n: int | np.ndarray, value_range: float | np.ndarray) -> np.ndarray | float:
    """Length n and public range R in, L2 sensitivity Δ2 = √n·R of a clamped series out."""
    return np.sqrt(np.asarray(n, dtype=float)) * np.asarray(value_range, dtype=float)


def _increment(value_range: np.ndarray, increment_bound: float | np.ndarray | None) -> np.ndarray:
    # Increments of a clamped series never exceed R, so a larger B changes nothing.
    if increment_bound is None:
        return value_range
    b = np.asarray(increment_bound, dtype=float)
    if np.any(b < 0):
        raise ValueError("the increment bound B must be >= 0")
    return np.minimum(b, value_range)


def diff_l1_public(
    n: int | np.ndarray, value_range: float | np.ndarray, increment_bound: float | np.ndarray | None = None
) -> np.ndarray | float:
    """Chunk length n, range R, optional increment bound B in, Δ1 of the difference signal out.

    d_1 = x_1 moves by at most R, each later increment by at most 2·min(B, R): Δ1 = R + 2(n−1)·min(B, R)
    (= (2n−1)R without B).
    """
    n = np.asarray(n, dtype=float)
    r = np.asarray(value_range, dtype=float)
    return r + 2.0 * (n - 1.0) * _increment(r, increment_bound)


def diff_l2_public(
    n: int | np.ndarray, value_range: float | np.ndarray, increment_bound: float | np.ndarray | None = None
) -> np.ndarray | float:
    """Chunk length n, range R, optional increment bound B in, Δ2 = √(R² + 4(n−1)·min(B, R)²) out."""
    n = np.asarray(n, dtype=float)
    r = np.asarray(value_range, dtype=float)
    b = _increment(r, increment_bound)
    return np.sqrt(r**2 + 4.0 * (n - 1.0) * b**2)


@functools.lru_cache(maxsize=512)
def _kept_l1_prefix(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chunk length n -> per kept bin count k = 1 … ⌊n/2⌋+1 (backward DFT of the differences d = D·x):
    (entrywise L1 norm of the kept rows of A·D, of A's first column, of A's other columns)."""
    t = np.arange(n)
    rows = []
    for j in range(n // 2 + 1):
        ang = 2.0 * np.pi * j * t / n
        part = [np.cos(ang)]
        if 0 < j and 2 * j != n:  # DC and Nyquist are real: no imaginary parameter
            part.append(-np.sin(ang))
        rows.append(np.array(part))
    x_l1, first, rest = [], [], []
    for a in rows:
        # A·D in x-space: column t of A·D is A[:, t] − A[:, t+1] (last column A[:, n−1]).
        ad = np.concatenate([a[:, :-1] - a[:, 1:], a[:, -1:]], axis=1)
        x_l1.append(np.abs(ad).sum())
        first.append(np.abs(a[:, 0]).sum())
        rest.append(np.abs(a[:, 1:]).sum())
    out = tuple(np.cumsum(v) for v in (x_l1, first, rest))
    for v in out:
        v.setflags(write=False)
    return out  # type: ignore[return-value]


def dcfpa_kept_l1(n: int, k: int, value_range: float, increment_bound: float | None = None) -> float:
    """Chunk length n, kept bins k, range R, optional increment bound B in, a direct bound on the L1
    sensitivity of DCFPA's kept real Fourier parameters (backward DFT of the differences) out.

    By the triangle inequality ‖Δθ‖₁ ≤ Σ_t |Δv_t|·‖M[:, t]‖₁ for θ = M·v. Without clipping (B ≥ R or none) the
    kept parameters are a linear map A·D of the clamped chunk x (|Δx_t| ≤ R): R·‖A·D‖₁. With clipped
    increments they are A of the differences (|Δd_1| ≤ R, |Δd_t| ≤ 2B): R·‖A[:, 0]‖₁ + 2B·‖A[:, 1:]‖₁. At
    k = 1 the only kept parameter is Σd = x_n, so the bound is exactly R (docs/PRIVACY_MODEL.md §4).
    """
    n, k = int(n), int(k)
    if not 1 <= k <= n // 2 + 1:
        raise ValueError(f"k must lie in 1 … {n // 2 + 1} for n = {n}, got {k}")
    r = float(value_range)
    b = r if increment_bound is None else min(float(increment_bound), r)
    x_l1, first, rest = _kept_l1_prefix(n)
    if b >= r:
        return float(r * x_l1[k - 1])
    return float(r * first[k - 1] + 2.0 * b * rest[k - 1])


def dcfpa_kept_ratio(n: int, k: np.ndarray | int, increment_ratio: float | np.ndarray = 1.0) -> np.ndarray:
    """Chunk length n, kept bins k (array), B/R in, min(1, direct / generic) out: the factor by which DCFPA's
    λ under public bounds is below the generic √(kn)·Δ2(d)/ε (it does not depend on R or the FFT norm)."""
    n = int(n)
    kk = np.minimum(np.asarray(k, dtype=int), n // 2 + 1)
    beta = np.minimum(np.asarray(increment_ratio, dtype=float), 1.0)
    x_l1, first, rest = _kept_l1_prefix(n)
    direct = np.where(beta >= 1.0, x_l1[kk - 1], first[kk - 1] + 2.0 * beta * rest[kk - 1])
    generic = np.sqrt(kk * float(n)) * np.sqrt(1.0 + 4.0 * (n - 1.0) * beta**2)
    return np.minimum(1.0, direct / generic)


# --------------------------------------------------------------------------------------------
# chunks and differences


def n_chunks(length: int, chunk: int) -> int:
    """Series length T and chunk length N_c in, number of chunks ⌈T/N_c⌉ out."""
    if chunk < 1 or length < 1:
        raise ValueError(f"chunk and length must be >= 1 (got chunk={chunk}, length={length})")
    return -(-int(length) // int(chunk))


def chunk_lengths(length: int, chunk: int) -> np.ndarray:
    """Series length T and chunk length N_c in, the true length of every chunk (last one partial) out."""
    c = n_chunks(length, chunk)
    out = np.full(c, int(chunk), dtype=int)
    out[-1] = int(length) - (c - 1) * int(chunk)
    return out


def split_chunks(x: np.ndarray, chunk: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Series (..., T), chunk length in, [(full chunks (..., C_f, N_c), positions), (tail (..., 1, r), [C−1])]

    The tail entry is present only when N_c does not divide T; it keeps its true length r.
    """
    arr = np.asarray(x)
    t, size = arr.shape[-1], int(chunk)
    full = t // size
    out = []
    if full:
        out.append((arr[..., : full * size].reshape(arr.shape[:-1] + (full, size)), np.arange(full)))
    if t > full * size:
        out.append((arr[..., full * size :][..., None, :], np.array([full])))
    return out


def chunk_differences(x: np.ndarray, chunk: int) -> np.ndarray:
    """Series (..., T) and chunk length in, within-chunk differences out (first sample of a chunk kept)."""
    arr = np.asarray(x, dtype=float)
    d = np.diff(arr, axis=-1, prepend=0.0)
    # The first sample of every chunk is kept as a value (it is noised with the rest, not published).
    d[..., :: int(chunk)] = arr[..., :: int(chunk)]
    return d


def chunk_cumsum(d: np.ndarray, chunk: int) -> np.ndarray:
    """Within-chunk differences (..., T) in, series out: the exact inverse of chunk_differences."""
    arr = np.asarray(d, dtype=float)
    t = arr.shape[-1]
    c = n_chunks(t, chunk)
    # Zero-padding at the end leaves the cumulative sums of the real samples unchanged.
    padded = np.zeros(arr.shape[:-1] + (c * int(chunk),))
    padded[..., :t] = arr
    out = padded.reshape(arr.shape[:-1] + (c, int(chunk))).cumsum(axis=-1)
    return out.reshape(arr.shape[:-1] + (c * int(chunk),))[..., :t]


def clip_increments(d: np.ndarray, chunk: int, increment_bound: float | np.ndarray) -> np.ndarray:
    """Within-chunk differences (..., T), chunk length, public bound B (scalar/per-series) in, clipped d out.

    Only the increments are clipped to [−B, B]; the first value of each chunk stays as clamped.
    """
    arr = np.asarray(d, dtype=float)
    b = row_param(increment_bound, arr.shape[:-1], "increment bound B")[..., None]
    if np.any(b < 0):
        raise ValueError("the increment bound B must be >= 0")
    out = np.clip(arr, -b, b)
    out[..., :: int(chunk)] = arr[..., :: int(chunk)]
    return out


# --------------------------------------------------------------------------------------------
# empirical ("as in paper", not a DP guarantee) sensitivities


def _pairwise_max(x: np.ndarray, order: int) -> np.ndarray:
    """(P, ..., n) in, max over pairs p ≠ q of the L_order distance along the last axis out (...)."""
    p = x.shape[0]
    if p < 2:
        return np.zeros(x.shape[1:-1])
    per_row = int(np.prod(x.shape[1:], dtype=np.int64)) * p
    block = max(1, _PAIRWISE_BLOCK_ELEMS // max(per_row, 1))
    best = np.zeros(x.shape[1:-1])
    # Row blocks only bound memory; each block is one broadcast over all pairs.
    for start in range(0, p, block):
        diff = x[start : start + block, None] - x[None, :]
        if order == 1:
            dist = np.abs(diff).sum(axis=-1)
        else:
            dist = np.sqrt((diff * diff).sum(axis=-1))
        best = np.maximum(best, dist.max(axis=(0, 1)))
    return best


def empirical_sensitivity(x: np.ndarray, order: Literal[1, 2] = 2) -> np.ndarray:
    """Series (P, ..., T) in, Bozkir Eq. 7 max_{p≠q} ‖x_p − x_q‖_order over axis 0 out (...).

    As in the paper: NOT a DP sensitivity (docs/PRIVACY_MODEL.md §0.4). Pad to the public length T first.
    """
    if order not in (1, 2):
        raise ValueError(f"order must be 1 or 2, got {order}")
    return _pairwise_max(as_float_series(x), order)


def empirical_chunk_sensitivity(
    x: np.ndarray, chunk: int, order: Literal[1, 2] = 2, difference: bool = False
) -> np.ndarray:
    """Series (P, ..., T), chunk length in, per-chunk Eq. 7 sensitivity (..., C) out (not DP).

    With difference=True the distances are those of the within-chunk difference signals (DCFPA).
    """
    arr = as_float_series(x)
    if difference:
        arr = chunk_differences(arr, chunk)
    t = arr.shape[-1]
    full = t // int(chunk)
    parts = []
    if full:
        body = arr[..., : full * int(chunk)].reshape(arr.shape[:-1] + (full, int(chunk)))
        parts.append(empirical_sensitivity(body, order))
    if t > full * int(chunk):
        parts.append(empirical_sensitivity(arr[..., full * int(chunk) :], order)[..., None])
    return np.concatenate(parts, axis=-1)
