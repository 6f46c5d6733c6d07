"""The release calibrations of the time-series mechanisms: each invocation group's noise on OpenDP's lattice.

docs/PRIVACY_MODEL.md §11.2. In release mode every noised value (LPA/Steil: each clamped sample; the FFT
family: Re and Im of each kept Fourier coefficient) is rounded to the lattice 2^k before OpenDP adds the
noise. The noised vector of one invocation has m values and the formula's L1 sensitivity Δ1 = b·ε (for the
FFT family Δ1 = c·√(kn)·Δ2, §2.2); a release is calibrated to Δ1' = Δ1·(1 + ρ) + m·2^k, where ρ covers the
floating-point error of the FFT (at least the promised 1e-9, more if the public bounds lie far from 0
relative to their range) and m·2^k the rounding. The released scale is b·Δ1'/Δ1: the ε charged is kept.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from eyedp_core.dp.lattice import FLOAT_INFLATION, LatticeCalibration, Metric, lattice_calibration
from eyedp_core.dp.registry import Family
from eyedp_core.timeseries.calibration import ChunkCalibration, Norm, norm_factor

__all__ = ["FFT_ERROR_CONSTANT", "fft_float_error", "group_magnitudes", "lattice_arrays", "noised_values",
           "release_lattices"]

# c in ‖fl(FFT x) − FFT x‖₂ <= c·u·⌈log2 n⌉·‖FFT x‖₂. Cooley–Tukey gives c ≈ 6 with accurate twiddles
# (Higham, Accuracy and Stability, §24.1); 64 leaves room for pocketfft's mixed radices, Bluestein's three
# transforms of prime lengths and the differencing of DCFPA.
FFT_ERROR_CONSTANT = 64.0
_UNIT_ROUNDOFF = 2.0 ** -53


def noised_values(length: int, k: int | None) -> int:
    """Transform length n and kept bins k (None: every sample is noised, LPA and Steil) in, the number m of
    real values noised per invocation out: k Re parts and k − 1 Im parts (one fewer with a kept Nyquist bin)."""
    if k is None:
        return int(length)
    m = 2 * int(k) - 1
    if int(length) % 2 == 0 and int(k) > int(length) // 2:
        m -= 1  # the Nyquist bin is real too
    return m


def fft_float_error(n: int, values: int, magnitude: float, norm: Norm = "backward") -> float:
    """Transform length n, noised values m, the largest |value| M the transform reads and the FFT norm in, an
    L1 bound of the floating-point error of the m kept Re/Im parts out: √m·c·u·⌈log2 n⌉·c_norm·n·M
    (‖FFT x‖₂ = √n·‖x‖₂ <= n·M under the backward norm)."""
    levels = max(math.ceil(math.log2(max(int(n), 2))), 1)
    spectrum = float(norm_factor(int(n), norm)) * int(n) * float(magnitude)
    return math.sqrt(values) * FFT_ERROR_CONSTANT * _UNIT_ROUNDOFF * levels * spectrum


def group_magnitudes(which: np.ndarray, row_magnitude: np.ndarray, groups: int) -> np.ndarray:
    """Group of each invocation (..., C), the largest |bound| of each series (...) and the number of groups in,
    the largest |bound| over each group's series out."""
    inv = np.asarray(which)
    mag = np.broadcast_to(np.asarray(row_magnitude, dtype=float).reshape(inv.shape[:-1] + (1,)), inv.shape)
    out = np.zeros(groups)
    np.maximum.at(out, inv.ravel(), mag.ravel())
    return out


def release_lattices(groups: Sequence[ChunkCalibration], *, magnitude: float | Sequence[float] = 0.0,
                     norm: Norm = "backward", difference: bool = False) -> tuple[LatticeCalibration, ...]:
    """Calibration groups of one run, the largest |bound| M of the clamped series (one for all, or one per
    group), the FFT norm and whether the transform reads differences (DCFPA: |d| <= 2M) in, one
    LatticeCalibration per group out."""
    mags = np.broadcast_to(np.asarray(magnitude, dtype=float), (len(groups),))
    out = []
    for g, big in zip(groups, mags.tolist(), strict=True):
        cal = g.calibration
        if cal.mechanism is not Family.LAPLACE:
            raise ValueError(f"time-series releases draw Laplace noise, got {str(cal.mechanism)!r}")
        m = noised_values(g.length, g.k)
        sens = cal.scale * cal.epsilon  # Δ1 of the noised values: b = Δ1/ε
        rho = 0.0
        if g.k is not None:
            err = fft_float_error(g.length, m, (2.0 if difference else 1.0) * big, norm)
            # Each neighbour's coefficients may be off by err: their distance grows by at most 2·err.
            rho = max(FLOAT_INFLATION, 2.0 * err / sens) if sens > 0 else FLOAT_INFLATION
        out.append(lattice_calibration(metric=Metric.L1, epsilon=cal.epsilon, base_scale=cal.scale,
                                       sensitivity=sens, values=m, float_inflation=rho))
    return tuple(out)


def lattice_arrays(lattices: Sequence[LatticeCalibration], which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lattice calibrations per group and the group of each invocation in, (released scale, lattice k) per
    invocation out."""
    scales = np.array([lc.scale for lc in lattices], dtype=float)
    ks = np.array([lc.k for lc in lattices], dtype=np.int64)
    return scales[which], ks[which]
