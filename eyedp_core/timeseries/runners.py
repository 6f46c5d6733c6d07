"""The blocked inner loops of LPA and the FPA family: series (rows) in blocks, noise in fixed granules.

`mechanisms.run` does the checking and calibration; these functions walk over the rows (every
leading index of x, flattened) block by block (`timeseries.blocks`), so the working memory is one
block's clamp, spectrum and noise next to the output, never a full-size temporary. Noise is drawn
granule by granule in a fixed order, so the numbers do not depend on the block size.

Speed: only the k kept rfft bins are noised and handed to irfft (which zero-fills the
rest), Re and Im are added in place, and LPA scales and adds its noise in place.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eyedp_core.dp.noise import NoiseMechanism
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.timeseries.blocks import granules, noise_rows, row_blocks
from eyedp_core.timeseries.calibration import Norm
from eyedp_core.timeseries.sensitivity import chunk_cumsum, chunk_differences, clip_increments

__all__ = ["FftPlan", "RowParams", "fpa_rows", "run_fft_blocks", "run_lpa_blocks"]


_NOT_FINITE = ("series contain NaN or inf; fill missing samples with a public constant "
               "(timeseries.sensitivity.to_public_length(..., fill=...)) before the mechanism")


@dataclass(frozen=True)
class RowParams:
    """Per-row clamp bounds (rows, 1) (None: no clamping) and DCFPA's increment bound (rows,) or None."""

    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    increment_bound: np.ndarray | None = None

    def clamp(self, block: np.ndarray, rows: slice, out: np.ndarray | None = None) -> np.ndarray:
        """Rows of x in, the same rows checked finite and clipped to their bounds (into `out` if given) out.

        Why min/max first: a clip against per-row bounds is several times slower than a reduction, and
        almost every row lies inside its bounds already; NaN and inf show up in the same reductions.
        """
        lo_row, hi_row = block.min(axis=-1, keepdims=True), block.max(axis=-1, keepdims=True)
        if not (np.isfinite(lo_row).all() and np.isfinite(hi_row).all()):
            raise ValueError(_NOT_FINITE)
        bad = None
        if self.lo is not None:
            lo, hi = self.lo[rows], self.hi[rows]
            bad = ((lo_row < lo) | (hi_row > hi))[:, 0]
            bad = bad if bad.any() else None
        if out is None:
            if bad is None:
                return block  # the callers only read it: no copy when nothing needs clipping
            out = block.copy()
        elif out is not block:
            out[...] = block
        if bad is not None:
            out[bad] = np.clip(block[bad], lo[bad], hi[bad])
        return out


@dataclass(frozen=True, eq=False)
class FftPlan:
    """What the FFT-family loop draws with, per row and chunk: k and λ (R, C), the chunk length, the FFT norm,
    whether the chunks are differenced first (DCFPA) and, in a release, the lattice exponents (R, C)."""

    k: np.ndarray
    lam: np.ndarray
    size: int
    norm: Norm
    difference: bool = False
    lattice: np.ndarray | None = None

    def rows(self, block: slice) -> FftPlan:
        """The same plan for one block of rows."""
        lattice = None if self.lattice is None else self.lattice[block]
        return FftPlan(self.k[block], self.lam[block], self.size, self.norm, self.difference, lattice)


def _perturb_on_lattice(spec: np.ndarray, scale: np.ndarray, lattice: np.ndarray, n: int, rng: ReleaseSource,
                        source: NoiseMechanism) -> None:
    """Release: kept bins (changed in place), scale per bin and lattice exponent per row in; Re and Im of every
    kept parameter rounded to the lattice and noised by OpenDP, so each released parameter is a lattice point."""
    kmax = spec.shape[-1]
    im_scale = np.array(np.broadcast_to(scale, spec.shape))
    # DC and (even n) Nyquist are real by construction: their Im part is exactly 0 and is not a parameter.
    spec.imag[..., 0] = 0.0
    im_scale[..., 0] = 0.0
    if n % 2 == 0 and kmax > n // 2:
        spec.imag[..., n // 2] = 0.0
        im_scale[..., n // 2] = 0.0
    lat = lattice[..., None]
    spec.real[...] = source.perturb(rng, spec.real, scale, lat)
    spec.imag[...] = source.perturb(rng, spec.imag, im_scale, lat)


def _add_noise(spec: np.ndarray, k: np.ndarray, lam: np.ndarray, kmax: int, n: int, rng: np.random.Generator,
               source: NoiseMechanism, lattice: np.ndarray | None = None) -> None:
    """Kept bins (g, ..., kmax) (changed in place), k and λ (g, ...) in: Laplace noise on Re and Im added
    (release, `lattice` (g, ...) given: on the lattice, `_perturb_on_lattice`)."""
    shape = spec.shape
    if int(k.min()) == kmax:
        scale = lam[..., None]
    else:
        scale = lam[..., None] * (np.arange(kmax) < k[..., None])  # bins a row does not keep get zero noise
    if lattice is not None:
        _perturb_on_lattice(spec, scale, lattice, n, rng, source)
        return
    # Re and Im are noised separately (pitfall 1: real-only noise leaves Im published exactly).
    z_re = source.sample(rng, shape, scale=scale)
    z_im = source.sample(rng, shape, scale=scale)
    # DC and (even n) Nyquist are real by construction: they carry one real parameter only.
    z_im[..., 0] = 0.0
    if n % 2 == 0 and kmax > n // 2:
        z_im[..., n // 2] = 0.0
    spec.real += z_re
    spec.imag += z_im


def _kept_spectrum(x: np.ndarray, k: np.ndarray, kmax: int, norm: Norm) -> np.ndarray:
    """Rows (..., n) and per-row k in, their first kmax rfft bins with the bins >= k zeroed out."""
    spec = np.fft.rfft(x, axis=-1, norm=norm)[..., :kmax]
    if int(k.min()) < kmax:
        spec[np.arange(kmax) >= k[..., None]] = 0.0
    return spec


def fpa_rows(x: np.ndarray, k: np.ndarray, lam: np.ndarray, norm: Norm, rng: np.random.Generator | None,
             source: NoiseMechanism | None = None) -> np.ndarray:
    """(..., n) rows, per-row k and calibrated λ in, FPA output rows out (one draw for all rows);
    rng=None: the noise-free truncation."""
    n = x.shape[-1]
    kmax = int(k.max()) if k.size else 1
    spec = _kept_spectrum(x, k, kmax, norm)
    if rng is not None:
        _add_noise(spec, k, lam, kmax, n, rng, source)
    # irfft zero-fills the dropped bins and restores the Hermitian mirror (pitfall 2: nothing halved).
    return np.fft.irfft(spec, n=n, axis=-1, norm=norm)


def run_lpa_blocks(rows: np.ndarray, scale: np.ndarray, params: RowParams, rng: np.random.Generator,
                   source: NoiseMechanism, lattice: np.ndarray | None = None) -> np.ndarray:
    """Rows (R, T), per-row Laplace scale (R, 1), bounds in, clamp(x) + i.i.d. Lap(scale) (R, T) out; with a
    per-row lattice exponent (R, 1) (release) every clamped sample is rounded to the lattice before the noise."""
    n_rows, t = rows.shape
    out = np.empty_like(rows)
    granule = noise_rows(t)
    for block in row_blocks(n_rows, 2 * 8 * t, granule):
        params.clamp(rows[block], block, out=out[block])
        for g, _ in granules(block, granule):
            if lattice is None:
                out[g] += source.sample(rng, (g.stop - g.start, t), scale=scale[g])
            else:
                out[g] = source.perturb(rng, out[g], scale[g], lattice[g])
    return out


def _fft_block(x: np.ndarray, plan: FftPlan, kmax: tuple[int, int], rng: np.random.Generator,
               source: NoiseMechanism, draws: list[tuple[slice, slice]], out: np.ndarray) -> None:
    """One block of rows (b, T) (clamped; DCFPA: differences), its plan (k and λ (b, C); release: lattice
    exponents (b, C)) and its noise granules in draw order; its FPA-per-chunk rows are written into `out` (b, T)."""
    k, lam, size, norm, lattice = plan.k, plan.lam, plan.size, plan.norm, plan.lattice
    b, t = x.shape
    full = t // size
    c = k.shape[1]
    lat = lattice if lattice is not None else np.zeros((b, c), np.int64)
    parts = []  # (kept spectrum, rows' k, λ, lattice, kmax, n, output view) for the full chunks and the tail
    if full:
        body = x[:, : full * size].reshape(b, full, size)
        parts.append((_kept_spectrum(body, k[:, :full], kmax[0], norm), k[:, :full], lam[:, :full], lat[:, :full],
                      kmax[0], size, out[:, : full * size].reshape(b, full, size)))
    if full < c:
        # The last partial chunk runs at its TRUE length (no padding with own values).
        tail = x[:, full * size:]
        parts.append((_kept_spectrum(tail, k[:, -1], kmax[1], norm), k[:, -1], lam[:, -1], lat[:, -1], kmax[1],
                      t - full * size, out[:, full * size:]))
    for _, rel in draws:  # fixed draw order: granule by granule, body then tail
        for spec, kk, ll, la, km, n, _ in parts:
            _add_noise(spec[rel], kk[rel], ll[rel], km, n, rng, source, None if lattice is None else la[rel])
    for spec, _, _, _, _, n, dest in parts:
        np.fft.irfft(spec, n=n, axis=-1, norm=norm, out=dest)


def run_fft_blocks(rows: np.ndarray, plan: FftPlan, params: RowParams, *, rng: np.random.Generator,
                   source: NoiseMechanism) -> np.ndarray:
    """Rows (R, T), the plan (per-chunk k and λ (R, C), chunk length, norm), bounds in, FPA on every chunk (tail
    at its true length) out; plan.difference: DCFPA (within-chunk differences in, cumulative sums out). Release:
    the plan's lattice exponent per chunk (R, C); every kept Re/Im part is rounded to it before its noise."""
    k, size, difference = plan.k, plan.size, plan.difference
    n_rows, t = rows.shape
    full = t // size
    kmax = (int(k[:, :full].max()) if full and n_rows else 1,
            int(k[:, -1].max()) if full < k.shape[1] and n_rows else 1)
    out = np.empty_like(rows)
    # The noise per row is Re and Im of the kept bins of every chunk: draw it for ~NOISE_VALUES at a time.
    # (at least T/4 per row: with few kept bins the granule would otherwise span every row, and so the block)
    granule = noise_rows(max(2 * (full * kmax[0] + (kmax[1] if full < k.shape[1] else 0)), t // 4))
    # Working set per row: the clamped (or differenced) copy, its spectrum and the inverse, ~4 T floats.
    for block in row_blocks(n_rows, 4 * 8 * t, granule):
        x = params.clamp(rows[block], block)
        if difference:
            x = chunk_differences(x, size)
            if params.increment_bound is not None:
                x = clip_increments(x, size, params.increment_bound[block])
        _fft_block(x, plan.rows(block), kmax, rng, source, list(granules(block, granule)), out[block])
        if difference:
            out[block] = chunk_cumsum(out[block], size)
    return out
