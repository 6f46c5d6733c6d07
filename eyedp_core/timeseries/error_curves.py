"""Squared errors of LPA/FPA/CFPA/DCFPA for many ε and k from one draw of standard noise per run.

Why this is fast: the noise-free part of every FFT mechanism (truncation to k bins) does not depend
on ε, and the noise is λ(ε)·(standard noise). So per mechanism we draw the standard noise ONCE per
run r, reduce it to a few numbers per series and chunk, and evaluate every ε and every k from those:
* FPA/CFPA (Parseval): Σ_t err² = RE(k) + λ²·Σ_{j<k} w_j|z_j|²/n, prefix sums over bins;
* DCFPA (cumulative sum breaks Parseval): err = r_k + λ·N_k with r_k the noise-free cumulated
  truncation error and N_k = Σ_{a<2k} u_a φ_a the integrated standard noise on a fixed basis φ, so
  Σ err² = ‖r_k‖² + 2λ⟨u, Φr_k⟩ + λ²·uᵀQu (Q = ΦΦᵀ), all prefix/Gram sums;
* LPA: Σ_t err² = b²·Σ_t z_t².
The results are exact (not approximations) for the draws used; runs share draws across ε (common
random numbers), which makes the curves smooth and comparable.
"""

from __future__ import annotations

import numpy as np

from eyedp_core.dp.noise import LaplaceMechanism
from eyedp_core.timeseries.calibration import fpa_scale
from eyedp_core.timeseries.k import dcfpa_noise_basis, parseval_weights, prefix_quadratic, reconstruction_errors
from eyedp_core.timeseries.sensitivity import dcfpa_kept_ratio

__all__ = ["UNIT_LAPLACE", "dcfpa_errors", "fft_errors", "lpa_unit_squares", "standard_noise"]

# Lap(1) through the one noise path (Δ1 = ε = 1 gives b = 1): the error formulas scale these standard
# draws by λ(ε) afterwards, which is what lets every ε share one draw.
UNIT_LAPLACE = LaplaceMechanism(epsilon=1.0, sensitivity=1.0)


# --------------------------------------------------------------------------------------------
# squared errors per (ε setting, run, recording, feature)


def lpa_unit_squares(x: np.ndarray, runs: int, rng: np.random.Generator) -> np.ndarray:
    """(Rec, F, T), runs in, Σ_t z² of standard Laplace noise (R, Rec, F) out.

    Drawn one recording at a time, (R, F, T) each: that is the granule of the blocked sweep, so a block of
    recordings gets exactly the draws it would get inside the whole array (timeseries.blocks).
    """
    sq = np.empty((runs,) + x.shape[:-1])
    for i in range(x.shape[0]):
        # Only z² enters; dp.noise draws Lap(1) as sign × Exp(1), nearly as cheap as the exponential alone.
        z = UNIT_LAPLACE.sample(rng, (runs,) + x.shape[1:])
        sq[:, i] = np.einsum("...t,...t->...", z, z)
    return sq


def standard_noise(
    rng: np.random.Generator, shape: tuple[int, ...], n: int, signed: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Standard Laplace Re/Im parts (..., kmax) for transform length n; Im of DC/Nyquist set to 0.

    signed=False returns |Lap(1)| ~ Exp(1) (enough where only squares enter).
    """
    z_re, z_im = UNIT_LAPLACE.sample(rng, shape), UNIT_LAPLACE.sample(rng, shape)
    if not signed:
        np.abs(z_re, out=z_re)
        np.abs(z_im, out=z_im)
    z_im[..., 0] = 0.0
    if n % 2 == 0 and shape[-1] > n // 2:
        z_im[..., n // 2] = 0.0
    return z_re, z_im


def fft_errors(
    rows: np.ndarray, d2: np.ndarray, k: np.ndarray, eps: np.ndarray, z_re: np.ndarray, z_im: np.ndarray
) -> np.ndarray:
    """Chunks (Rec, F, C, n), Δ2 (F, C), k (E, F, C), ε (E,), standard noise (R, Rec, F, C, ≥kmax) in,
    FPA Σ_t err² summed over chunks (E, R, Rec, F) out (Parseval; no inverse transform needed)."""
    n = rows.shape[-1]
    runs = z_re.shape[0]
    re_all = reconstruction_errors(rows)
    kmax = int(k.max())
    z_re, z_im = z_re[..., :kmax], z_im[..., :kmax]
    prefix = np.cumsum(parseval_weights(n)[:kmax] * (z_re**2 + z_im**2) / n, axis=-1)
    out = np.empty((eps.size, runs) + rows.shape[:2])
    for e in range(eps.size):  # ε settings: gathers only, every draw reused
        lam2 = fpa_scale(n, k[e], d2, eps[e]) ** 2
        if np.all(k[e] == k[e].flat[0]):  # the usual case (public k rule): plain slicing
            kk = int(k[e].flat[0]) - 1
            re_k, p_k = re_all[..., kk], prefix[..., kk]
        else:
            idx = (k[e] - 1)[None, :, :, None]
            re_k = np.take_along_axis(re_all, idx, axis=-1)[..., 0]  # (Rec, F, C)
            p_k = np.take_along_axis(prefix, idx[None], axis=-1)[..., 0]  # (R, Rec, F, C)
        out[e] = re_k.sum(axis=-1)[None] + np.einsum("rsfc,fc->rsf", p_k, lam2)
    return out


def dcfpa_errors(
    xrows: np.ndarray,
    drows: np.ndarray,
    d2: np.ndarray,
    k: np.ndarray,
    eps: np.ndarray,
    z_re: np.ndarray,
    z_im: np.ndarray,
    increment_ratio: np.ndarray | None = None,
) -> np.ndarray:
    """Chunks of x and of d (Rec, F, C, n), Δ2(d) (F, C), k (E, F, C), ε (E,), standard noise
    (R, Rec, F, C, ≥kmax) [, B/R (F, C) under public bounds] in, DCFPA Σ_t err² summed over chunks (E, R, Rec, F)
    out. With public bounds λ is the smaller of the generic and the kept-coefficient bound (§4)."""
    n = xrows.shape[-1]
    runs = z_re.shape[0]
    kmax = int(k.max())
    phi = dcfpa_noise_basis(n, kmax)
    gram = phi @ phi.T
    k_set = np.unique(k)
    spec = np.fft.rfft(drows, axis=-1)
    bins = np.arange(n // 2 + 1)
    rr = np.empty(xrows.shape[:-1] + (k_set.size,))
    proj = np.empty(xrows.shape[:-1] + (k_set.size, 2 * kmax))
    for i, kk in enumerate(k_set):  # distinct k values only (a handful), each one batched irfft
        trunc = np.fft.irfft(np.where(bins < kk, spec, 0.0), n=n, axis=-1)
        resid = np.cumsum(trunc, axis=-1) - xrows
        rr[..., i] = np.einsum("...t,...t->...", resid, resid)
        proj[..., i, :] = (resid @ phi.T) * (np.arange(2 * kmax) < 2 * kk)
    u = np.empty((runs,) + xrows.shape[:-1] + (2 * kmax,))
    u[..., 0::2] = z_re[..., :kmax]
    u[..., 1::2] = z_im[..., :kmax]  # already 0 for DC and Nyquist
    cross = np.einsum("r...a,...ka->r...k", u, proj)  # (R, Rec, F, C, K)
    quad = prefix_quadratic(u, gram)[
        ..., 2 * k_set - 1
    ]  # uᵀQu over the first 2k coordinates (R, Rec, F, C, K)
    out = np.empty((eps.size, runs) + xrows.shape[:2])
    for e in range(eps.size):
        lam = fpa_scale(n, k[e], d2, eps[e])
        if increment_ratio is not None:
            lam = lam * dcfpa_kept_ratio(n, k[e], increment_ratio)
        pos = np.searchsorted(k_set, k[e])
        if np.all(pos == pos.flat[0]):  # the usual case (public k rule): plain slicing
            i = int(pos.flat[0])
            rr_k, cr_k, qq_k = rr[..., i], cross[..., i], quad[..., i]
        else:
            idx = pos[None, :, :, None]  # (1, F, C, 1)
            rr_k = np.take_along_axis(rr, idx, axis=-1)[..., 0]
            cr_k = np.take_along_axis(cross, idx[None], axis=-1)[..., 0]
            qq_k = np.take_along_axis(quad, idx[None], axis=-1)[..., 0]
        out[e] = (
            rr_k.sum(axis=-1)[None]
            + 2.0 * np.einsum("rsfc,fc->rsf", cr_k, lam)
            + np.einsum("rsfc,fc->rsf", qq_k, lam**2)
        )
    return out
