"""Choice of k for the FPA family: analytic error curves and data-independent rules (search: k_search).

docs/PRIVACY_MODEL.md §2.5 (error model), §2.6 (choosing k leaks), §4 (integrated DCFPA noise). All errors
are total squared errors Σ_t (x̃_t − x_t)² in the units of the series; the time-domain noise does not
depend on the FFT `norm` (λ changes with it exactly as the transform does), so everything here uses
the unnormalised ("backward") λ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.labels import as_mech
from eyedp_core.timeseries.sensitivity import (
    as_float_series,
    chunk_differences,
    chunk_lengths,
    clamp,
    clip_increments,
    dcfpa_kept_ratio,
    diff_l2_public,
    l2_public,
    row_param,
    value_range,
)

__all__ = [
    "DEFAULT_PRIOR",
    "KPrior",
    "dcfpa_noise_basis",
    "dcfpa_noise_variance",
    "dcfpa_reconstruction_errors",
    "expected_error_curve",
    "fpa_noise_variance",
    "fraction_k",
    "noise_unit_error",
    "parseval_weights",
    "partial_exp_sums",
    "prefix_quadratic",
    "public_k",
    "reconstruction_errors",
]

# The FFT family by Mech; the lower-case names ("fpa", "cfpa", "dcfpa") of older callers still parse.
Method = Mech | Literal["fpa", "cfpa", "dcfpa"]
_FFT = (Mech.FPA, Mech.CFPA, Mech.DCFPA)
# Elements per block when a (rows, bins, time) tensor is formed; bounds memory at ~160 MB.
_BLOCK_ELEMS = 10_000_000


def parseval_weights(n: int) -> np.ndarray:
    """Transform length n in, Parseval weights w_j of the rfft bins out (1 for DC/Nyquist, else 2)."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    return w


def _cum_sq_weights(n: int) -> np.ndarray:
    """Σ_{j<k} w_j² for k = 1 … nb (the 4k−3 / 4k−6 counts of §2.5)."""
    return np.cumsum(parseval_weights(n) ** 2)


def partial_exp_sums(n: int) -> np.ndarray:
    """S_j(t) = Σ_{s≤t} e^{2πijs/n} as an (nb, n) complex array (cumulated Fourier basis)."""
    j = np.arange(n // 2 + 1)[:, None]
    t = np.arange(n)[None, :]
    return np.cumsum(np.exp(2j * np.pi * j * t / n), axis=1)


def fpa_noise_variance(n: int, k: int | np.ndarray, lam: float | np.ndarray) -> np.ndarray | float:
    """Length n, retained k, backward λ in, per-sample FPA noise variance 2λ²·Σ_{j<k} w_j²/n² out.

    Equals 2λ²(4k−3)/n² without the Nyquist bin and 2λ²(4k−6)/n² with it (docs/PRIVACY_MODEL.md §2.5).
    """
    kk = np.asarray(k, dtype=int)
    if np.any(kk < 1) or np.any(kk > n // 2 + 1):
        raise ValueError(f"k must lie in 1 … {n // 2 + 1} for n = {n}")
    counts = _cum_sq_weights(n)[kk - 1]
    return 2.0 * np.asarray(lam, dtype=float) ** 2 * counts / n**2


def dcfpa_noise_variance(n: int, k: int, lam: float) -> np.ndarray:
    """Chunk length n, k, backward λ in, Var(x̃_t − x_t) for t = 0 … n−1 of DCFPA's integrated noise out."""
    if not 1 <= int(k) <= n // 2 + 1:
        raise ValueError(f"k must lie in 1 … {n // 2 + 1} for n = {n}")
    w2 = parseval_weights(n)[: int(k), None] ** 2
    s2 = np.abs(partial_exp_sums(n)[: int(k)]) ** 2
    return 2.0 * float(lam) ** 2 / n**2 * (w2 * s2).sum(axis=0)


def noise_unit_error(n: int, difference: bool = False) -> np.ndarray:
    """Chunk length n in, h(k) for k = 1 … nb out: expected Σ_t noise² = h(k)·(Δ2/ε)².

    FPA: h = 2k·Σ_{j<k} w_j²  (= 2k(4k−3) without Nyquist); DCFPA: the cumsum-integrated version.
    """
    k = np.arange(1, n // 2 + 2, dtype=float)
    if not difference:
        return 2.0 * k * _cum_sq_weights(n)
    per_bin = (parseval_weights(n)[:, None] ** 2 * np.abs(partial_exp_sums(n)) ** 2).sum(axis=1)
    # λ² = k·n·(Δ2/ε)², variance carries 2λ²/n², summed over t.
    return 2.0 * k / n * np.cumsum(per_bin)


# --------------------------------------------------------------------------------------------
# reconstruction error (data-dependent part of the error)


def reconstruction_errors(x: np.ndarray) -> np.ndarray:
    """Rows (..., n) in, RE(k) = (1/n)·Σ_{j≥k} w_j|F_j|² for k = 1 … nb as (..., nb) out."""
    arr = as_float_series(x)
    n = arr.shape[-1]
    energy = parseval_weights(n) * np.abs(np.fft.rfft(arr, axis=-1)) ** 2 / n
    # Suffix sums: the energy of every bin from k upwards.
    tail = np.cumsum(energy[..., ::-1], axis=-1)[..., ::-1]
    re = np.zeros_like(energy)
    re[..., :-1] = tail[..., 1:]
    return re


def _dcfpa_bin_paths(d: np.ndarray) -> np.ndarray:
    """Difference rows (..., n) in, (..., nb, n): each bin's contribution to the cumulated series."""
    n = d.shape[-1]
    spec = np.fft.rfft(d, axis=-1)
    paths = (parseval_weights(n) / n)[:, None] * (spec[..., :, None] * partial_exp_sums(n)).real
    return paths


def dcfpa_reconstruction_errors(d: np.ndarray) -> np.ndarray:
    """Within-chunk difference rows (..., n) in, Σ_t (cumsum(trunc_k d) − cumsum d)² for k = 1 … nb out."""
    arr = as_float_series(d)
    lead, n = arr.shape[:-1], arr.shape[-1]
    flat = arr.reshape(-1, n)
    nb = n // 2 + 1
    out = np.empty((flat.shape[0], nb))
    step = max(1, _BLOCK_ELEMS // (nb * n))
    for start in range(0, flat.shape[0], step):  # row blocks bound memory only
        paths = _dcfpa_bin_paths(flat[start : start + step])
        # Error with k bins kept = −Σ_{j≥k} path_j: a suffix sum over bins.
        suffix = np.cumsum(paths[:, ::-1], axis=1)[:, ::-1]
        err = np.zeros((paths.shape[0], nb))
        err[:, :-1] = (suffix[:, 1:] ** 2).sum(axis=-1)
        out[start : start + step] = err
    return out.reshape(lead + (nb,))


# --------------------------------------------------------------------------------------------
# chunk groups shared by the curve and the search


@dataclass
class _Group:
    rows: np.ndarray  # (S, C_g, n): all series flattened, the chunks of one length (signal or differences)
    n: int
    d2: np.ndarray  # (S, C_g) L2 sensitivity per chunk
    chunk_index: np.ndarray  # positions of these chunks in the series
    increment_ratio: np.ndarray | None = None  # (S, 1) B/R: DCFPA under public bounds (λ uses the kept bound)


def _groups(
    x: np.ndarray,
    method: Method,
    chunk: int | None,
    sensitivity: float | np.ndarray | None,
    bounds: tuple | None,
    increment_bound: float | np.ndarray | None,
) -> tuple[list[_Group], int]:
    """Series (..., T) in, chunk groups (full chunks; tail at its true length) and chunk count C out."""
    if sensitivity is None and bounds is None:
        raise ValueError("give either a sensitivity or public bounds=(L, U)")
    mech = as_mech(method)
    if mech not in _FFT:
        raise ValueError(f"method must be FPA, CFPA or DCFPA, got {method!r}")
    arr = as_float_series(x)
    if bounds is not None:
        arr = clamp(arr, bounds)
    lead, t = arr.shape[:-1], arr.shape[-1]
    size = t if mech is Mech.FPA or chunk is None else int(chunk)
    if mech is Mech.DCFPA:
        arr = chunk_differences(arr, size)
        if increment_bound is not None:
            arr = clip_increments(arr, size, increment_bound)
    lengths = chunk_lengths(t, size)
    c = lengths.size
    beta = None
    if sensitivity is None:
        r = value_range(bounds, lead)[..., None]
        if mech is Mech.DCFPA:
            b = None if increment_bound is None else row_param(increment_bound, lead, "B")[..., None]
            d2 = np.broadcast_to(diff_l2_public(lengths, r, b), lead + (c,))
            beta = np.ones(lead + (1,)) if b is None else np.minimum(np.broadcast_to(b, r.shape) / r, 1.0)
            beta = np.asarray(beta, dtype=float).reshape(-1, 1)
        else:
            d2 = np.broadcast_to(l2_public(lengths, r), lead + (c,))
    else:
        d2 = np.broadcast_to(np.asarray(sensitivity, dtype=float), lead + (c,))
    arr = arr.reshape(-1, t)
    d2 = np.asarray(d2, dtype=float).reshape(-1, c)
    full = t // size
    groups = []
    if full:
        body = arr[:, : full * size].reshape(arr.shape[0], full, size)
        groups.append(_Group(body, size, d2[:, :full], np.arange(full), beta))
    if full < c:
        tail = arr[:, full * size :][:, None, :]
        groups.append(_Group(tail, int(lengths[-1]), d2[:, -1:], np.array([c - 1]), beta))
    return groups, c


def _k_index(ks: np.ndarray, n: int) -> np.ndarray:
    """Candidate ks in, 0-based indices of the effective k (capped at the group's nb) out."""
    return np.minimum(ks, n // 2 + 1) - 1


def expected_error_curve(
    x: np.ndarray,
    *,
    method: Method,
    epsilon: float,
    chunk: int | None = None,
    sensitivity: float | np.ndarray | None = None,
    bounds: tuple | None = None,
    increment_bound: float | np.ndarray | None = None,
    ks: np.ndarray | None = None,
) -> pd.DataFrame:
    """Series (..., T), method, per-invocation ε in, DataFrame k, reconstruction, perturbation, total out.

    E‖x̃ − x‖² = RE(k) + h(k)·Δ2²/ε² per chunk (docs/PRIVACY_MODEL.md §2.5; DCFPA: integrated noise of §4),
    summed over chunks and averaged over the series; `*_per_sample` columns divide by T. RE uses the
    private data: the curve explains the trade-off, picking its minimum is tuning on private data.
    """
    groups, _ = _groups(x, method, chunk, sensitivity, bounds, increment_bound)
    difference = as_mech(method) is Mech.DCFPA
    t = sum(g.rows.shape[-1] * g.rows.shape[-2] for g in groups)
    nb_max = max(g.n // 2 + 1 for g in groups)
    ks = np.arange(1, nb_max + 1) if ks is None else np.asarray(ks, dtype=int)
    recon = np.zeros(ks.size)
    pert = np.zeros(ks.size)
    for g in groups:
        idx = _k_index(ks, g.n)
        s_rows = g.rows.shape[0]
        re_all = dcfpa_reconstruction_errors(g.rows) if difference else reconstruction_errors(g.rows)
        recon += re_all[..., idx].sum(axis=(0, 1)) / s_rows
        h = noise_unit_error(g.n, difference=difference)[idx]
        if g.increment_ratio is None:
            pert += float((g.d2**2).sum()) / s_rows / float(epsilon) ** 2 * h
        else:  # DCFPA under public bounds: λ from the smaller of the two L1 bounds, per k
            rho = dcfpa_kept_ratio(g.n, (idx + 1)[None, :], g.increment_ratio)  # (S, K)
            d2sq = (g.d2**2).sum(axis=1)[:, None] * rho**2
            pert += d2sq.sum(axis=0) / s_rows / float(epsilon) ** 2 * h
    return pd.DataFrame(
        {
            "k": ks,
            "reconstruction": recon,
            "perturbation": pert,
            "total": recon + pert,
            "reconstruction_per_sample": recon / t,
            "perturbation_per_sample": pert / t,
            "total_per_sample": (recon + pert) / t,
        }
    )


# --------------------------------------------------------------------------------------------
# noise basis shared by the search and the sweep; the data-independent default


def dcfpa_noise_basis(n: int, kmax: int) -> np.ndarray:
    """Chunk length n, bins kmax in, (2·kmax, n) basis: cumulated time paths of unit Re/Im noise per bin.

    DCFPA's integrated noise is λ·Σ_a u_a φ_a with u = (Re z_0, Im z_0, Re z_1, …) standard Laplace.
    """
    s = partial_exp_sums(n)[:kmax]
    w = (parseval_weights(n)[:kmax] / n)[:, None]
    phi = np.empty((2 * kmax, n))
    phi[0::2] = w * s.real
    phi[1::2] = -w * s.imag
    return phi


def prefix_quadratic(u: np.ndarray, gram: np.ndarray) -> np.ndarray:
    """Coefficients (..., m) and Gram matrix (m, m) in, q_M = Σ_{a,b<M} u_a Q_ab u_b for M = 1 … m out."""
    v = u @ np.tril(gram).T  # v_a = Σ_{b≤a} Q_ab u_b
    return np.cumsum(u * (2.0 * v - np.diag(gram) * u), axis=-1)


@dataclass(frozen=True)
class KPrior:
    """The public prior `public_k` replaces the data's reconstruction error with: the series' standard deviation
    as a fraction of the public range, and the power-law decay of its spectrum."""

    signal_fraction: float = 0.1
    decay: float = 2.0


DEFAULT_PRIOR = KPrior()


def public_k(
    n: int,
    *,
    epsilon: float | np.ndarray,
    value_range: float = 1.0,
    sensitivity: float | None = None,
    prior: KPrior = DEFAULT_PRIOR,
    difference: bool = False,
    increment_bound: float | None = None,
    increment_ratio: float | None = None,
) -> np.ndarray | int:
    """Chunk length n, per-invocation ε (scalar or array) in, data-independent k minimising a prior error out.

    DCFPA under public bounds (sensitivity None, or increment_ratio = B/R given with a public Δ2/R) uses the
    λ actually drawn: the smaller of the generic and the kept-coefficient bound (§4).

    Why this rule: the error trade-off RE(k) vs h(k)·Δ2²/ε² has a data-free half (noise) and a
    data half (RE). We replace RE by its expectation under a PUBLIC prior: the series' variance is
    (prior.signal_fraction·R)² and its spectrum falls as j^−prior.decay. decay = 2 is the spectrum of a random
    walk / strongly smoothed signal — sliding-window features (30 s window, 0.5 s step) are such
    low-pass signals. The result depends only on n, ε, the public range and the prior, so it costs
    no privacy (docs/PRIVACY_MODEL.md §2.6 option 1). For DCFPA the same prior RE is used (cumulating the
    truncated differences loses the same high-frequency energy, up to edge effects).
    """
    nb = n // 2 + 1
    r = float(value_range)
    if sensitivity is None:
        d2 = float(diff_l2_public(n, r, increment_bound)) if difference else float(l2_public(n, r))
    else:
        d2 = float(sensitivity)
    j = np.arange(1, nb, dtype=float)
    spectrum = parseval_weights(n)[1:] * j ** (-float(prior.decay))
    total = spectrum.sum() if spectrum.size else 1.0
    # Prior RE(k) for k = 1 … nb: energy share of bins ≥ k of n·σ².
    tail = np.concatenate([np.cumsum(spectrum[::-1])[::-1], [0.0]]) / total
    re = n * (prior.signal_fraction * r) ** 2 * tail
    eps = np.asarray(epsilon, dtype=float)
    ratio = None
    if difference and sensitivity is None:
        ratio = 1.0 if increment_bound is None else min(float(increment_bound), r) / r
    elif difference and increment_ratio is not None:
        ratio = float(increment_ratio)
    d2k = d2 * (dcfpa_kept_ratio(n, np.arange(1, nb + 1), ratio) if ratio is not None else 1.0)
    cost = re + noise_unit_error(n, difference)[None, :] * (d2k**2) / (eps.reshape(-1, 1) ** 2)
    k = np.argmin(cost, axis=1) + 1
    return int(k[0]) if eps.ndim == 0 else k.reshape(eps.shape)


def fraction_k(n: int, fraction: float = 0.1) -> int:
    """Chunk length n and a fixed fraction in, k = max(1, round(fraction·(⌊n/2⌋+1))) out (public rule)."""
    if not 0 < fraction <= 1:
        raise ValueError("fraction must lie in (0, 1]")
    return int(max(1, round(fraction * (n // 2 + 1))))
