"""Noise scales of the time-series mechanisms: the formulas, and `Calibration` objects that carry them.

This is the one place the scales are computed (docs/PRIVACY_MODEL.md §1–§4, §7.3): LPA's b = Δ1/ε per
sample, the FPA family's λ = c·√(kn)·Δ2/ε per Re/Im part of a retained bin, Steil's b = T'·R/ε. The
mechanisms draw their noise from the `Calibration` objects built here, and return them with the output
(`PrivateSeries`), so what the page shows is what was drawn.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from eyedp_core.dp.calibration import Calibration, calibrate_laplace, tex_number
from eyedp_core.dp.registry import Family
from eyedp_core.timeseries.k import fpa_noise_variance
from eyedp_core.timeseries.sensitivity import chunk_lengths, dcfpa_kept_l1, diff_l2_public, l2_public
from eyedp_core.timeseries.setting import MechanismSetting

__all__ = [
    "NORMS",
    "ChunkCalibration",
    "Norm",
    "chunk_calibrations",
    "fpa_calibration",
    "fpa_scale",
    "lpa_calibration",
    "lpa_scale",
    "mark_sensitivity",
    "max_bins",
    "norm_factor",
    "steil_calibration",
    "steil_scale",
    "subsampled_length",
]

Norm = Literal["backward", "ortho", "forward"]
NORMS: tuple[str, ...] = ("backward", "ortho", "forward")

DATA_DERIVED_NOTE = "sensitivity derived from the data — as in paper, not a DP guarantee"

_LAMBDA_TEX = {
    "backward": r"\lambda = \sqrt{k\,n}\;\Delta_2/\varepsilon",
    "ortho": r"\lambda = \sqrt{k}\;\Delta_2/\varepsilon",
    "forward": r"\lambda = \sqrt{k/n}\;\Delta_2/\varepsilon",
}


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
    if all(np.ndim(v) == 0 for v in (n, k, l2_sensitivity, epsilon)):
        # Scalars (one calibration group): plain floats, the same checks — called dozens of times per slider move.
        e, d2, nf = float(epsilon), float(l2_sensitivity), float(n)
        if not math.isfinite(e) or e <= 0:
            raise ValueError("epsilon must be finite and > 0")
        if not math.isfinite(d2) or d2 < 0:
            raise ValueError("the L2 sensitivity must be finite and >= 0")
        c = {"backward": 1.0, "ortho": 1.0 / math.sqrt(nf), "forward": 1.0 / nf}.get(norm)
        if c is None:
            raise ValueError(f"norm must be one of {NORMS}, got {norm!r}")
        return c * math.sqrt(float(k) * nf) * d2 / e
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be finite and > 0")
    d2 = np.asarray(l2_sensitivity, dtype=float)
    if np.any(d2 < 0) or np.any(~np.isfinite(d2)):
        raise ValueError("the L2 sensitivity must be finite and >= 0")
    n_arr = np.asarray(n, dtype=float)
    return norm_factor(n_arr, norm) * np.sqrt(np.asarray(k, dtype=float) * n_arr) * d2 / eps


def subsampled_length(length: int, w: int) -> int:
    """Series length T and window w in, released length T' = ⌈T/w⌉ (one sample per window) out."""
    if w < 1 or length < 1:
        raise ValueError("window w and length must be >= 1")
    return -(-int(length) // int(w))


def lpa_scale(l1_sensitivity: float | np.ndarray, epsilon: float | np.ndarray) -> np.ndarray | float:
    """Δ1 and ε (broadcasting arrays) in, LPA's Laplace scale b = Δ1/ε per sample out (§1)."""
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError("epsilon must be finite and > 0")
    return np.asarray(l1_sensitivity, dtype=float) / eps


def steil_scale(
    length: int, w: int, epsilon: float | np.ndarray, value_range: float | np.ndarray
) -> np.ndarray | float:
    """Length T, window w, per-feature ε_i, public range R_i in, Laplace scale b_i = T'·R_i/ε_i out (§7.3)."""
    eps = np.asarray(epsilon, dtype=float)
    if np.any(eps <= 0):
        raise ValueError("epsilon must be > 0")
    return subsampled_length(length, w) * np.asarray(value_range, dtype=float) / eps


def mark_sensitivity(cal: Calibration, sensitivity_type: str) -> Calibration:
    """Calibration and sensitivity type ("public" | "data-derived") in, calibration flagged accordingly."""
    if sensitivity_type == "public":
        return cal
    if sensitivity_type != "data-derived":
        raise ValueError(f"sensitivity_type must be 'public' or 'data-derived', got {sensitivity_type!r}")
    note = f"{DATA_DERIVED_NOTE}; {cal.note}" if cal.note else DATA_DERIVED_NOTE
    return dataclasses.replace(cal, valid=False, guarantee="none (data-derived sensitivity)", note=note)


def lpa_calibration(
    length: int,
    epsilon: float,
    *,
    sensitivity: float | None = None,
    value_range: float | None = None,
    sensitivity_type: str = "public",
) -> Calibration:
    """Series length T, ε, L1 sensitivity or public range R in, LPA Calibration (b = Δ1/ε, Δ1 = T·R) out."""
    if sensitivity is None:
        if value_range is None:
            raise ValueError("give the L1 sensitivity or the public range R")
        sensitivity = int(length) * float(value_range)
        derived = (
            rf"\Delta_1 = T R = {int(length)}\cdot {tex_number(value_range)} = {tex_number(sensitivity)};\ "
        )
    else:
        derived = ""
    cal = calibrate_laplace(sensitivity, epsilon)
    cal = dataclasses.replace(
        cal,
        method="lpa",
        plugged_tex=derived + cal.plugged_tex,
        note=f"i.i.d. Lap(b) on each of the {length} samples",
    )
    return mark_sensitivity(cal, sensitivity_type)


def _public_l2(n: int, r: float, difference: bool, increment_bound: float | None) -> tuple[float, str]:
    """Chunk length n and public range R (DCFPA: of the differences, with its bound B) -> Δ2 and its TeX."""
    if difference:
        sensitivity = float(diff_l2_public(n, r, increment_bound))
        if increment_bound is None:
            d_tex = rf"\Delta_2(d) = \sqrt{{4n-3}}\,R = \sqrt{{{4 * n - 3}}}\cdot {tex_number(r)}"
        else:
            d_tex = (
                rf"\Delta_2(d) = \sqrt{{R^2 + 4(n-1)B^2}} = \sqrt{{{tex_number(r)}^2 + 4\cdot{n - 1}"
                rf"\cdot {tex_number(min(float(increment_bound), r))}^2}}"
            )
    else:
        sensitivity = float(l2_public(n, r))
        d_tex = rf"\Delta_2 = \sqrt{{n}}\,R = \sqrt{{{n}}}\cdot {tex_number(r)}"
    return sensitivity, d_tex + rf" = {tex_number(sensitivity)};\ "


def _dcfpa_kept_bound(n: int, k: int, norm: Norm, l2: float, r: float,
                      increment_bound: float | None) -> tuple[float, str] | None:
    """DCFPA under public bounds: the direct L1 bound on the kept parameters and its TeX, when it is smaller than
    the generic c·√(kn)·Δ2(d) (at k = 1 only Σd = x_n is kept, which moves by R; §4), else None."""
    c = float(norm_factor(n, norm))
    generic = c * math.sqrt(k * n) * l2
    direct = c * dcfpa_kept_l1(n, min(k, n // 2 + 1), r, increment_bound)
    if direct >= generic:
        return None
    return direct, (rf"c\sqrt{{k n}}\,\Delta_2(d) = {tex_number(generic)},\ \Delta_1^{{\text{{kept}}}} = "
                    rf"{tex_number(direct)}\ (\text{{smaller}});\ ")


def _plugged_lambda(d_tex: str, generic: bool, n: int, k: int, norm: Norm, sensitivity: float, epsilon: float,
                    lam: float) -> str:
    """The λ formula with the numbers in (generic √(kn)-form, or DCFPA's smaller kept L1 bound)."""
    if generic:
        root = {"backward": f"{k}\\cdot {n}", "ortho": f"{k}", "forward": f"{k}/{n}"}[norm]
        return (
            d_tex
            + rf"\lambda = \sqrt{{{root}}}\cdot {tex_number(sensitivity)} / {tex_number(epsilon)}"
            + rf" = {tex_number(lam)}"
        )
    return d_tex + rf"\lambda = {tex_number(sensitivity)} / {tex_number(epsilon)} = {tex_number(lam)}"


def fpa_calibration(
    n: int,
    setting: MechanismSetting,
    *,
    sensitivity: float | None = None,
    value_range: float | None = None,
) -> Calibration:
    """Transform length n, the setting (k, ε, norm, DCFPA's difference and increment bound, sensitivity type; plain
    numbers), Δ2 or public range (DCFPA: of the differences) in, FPA Calibration out.

    `scale` is λ per Re/Im part (coefficient units of `norm`); `std` = √2·λ; the note gives the
    time-domain noise variance per sample (same under every norm).
    """
    n, k, epsilon, norm = int(n), int(setting.k), setting.epsilon, setting.norm
    difference, increment_bound = setting.difference, setting.increment_bound
    if sensitivity is None:
        if value_range is None:
            raise ValueError("give the L2 sensitivity or the public range R")
        sensitivity, d_tex = _public_l2(n, float(value_range), difference, increment_bound)
    else:
        d_tex = ""
    lam = float(fpa_scale(n, k, sensitivity, epsilon, norm))
    formula = _LAMBDA_TEX[norm]
    if difference and d_tex:
        smaller = _dcfpa_kept_bound(n, k, norm, float(sensitivity), float(value_range), increment_bound)
        if smaller is not None:
            sensitivity, tex = smaller
            lam = sensitivity / float(epsilon)
            formula = r"\lambda = \min\!\big(c\sqrt{k\,n}\,\Delta_2(d),\ \Delta_1^{\text{kept}}\big)/\varepsilon"
            d_tex += tex
    lam_backward = lam / float(norm_factor(n, norm))
    var = float(fpa_noise_variance(n, min(k, n // 2 + 1), lam_backward))
    plugged = _plugged_lambda(d_tex, formula is _LAMBDA_TEX[norm], n, k, norm, sensitivity, epsilon, lam)
    what = "difference signal" if difference else "series"
    note = (
        f"Lap(λ) on Re and Im of the first {k} rfft bins of the {what} (norm='{norm}'); "
        f"time-domain noise variance per sample {var:.4g}"
        + (
            " before the cumulative sum (it grows along each chunk, see timeseries.k.dcfpa_noise_variance)"
            if difference
            else ""
        )
    )
    cal = Calibration(
        mechanism=Family.LAPLACE,
        method=("dcfpa" if difference else "fpa") + f"-{norm}",
        scale=lam,
        std=math.sqrt(2.0) * lam,
        epsilon=float(epsilon),
        delta=0.0,
        sensitivity=float(sensitivity),
        formula_tex=formula,
        plugged_tex=plugged,
        guarantee="ε-DP (pure) per invocation",
        note=note,
    )
    return mark_sensitivity(cal, setting.sensitivity_type)


@dataclass(frozen=True)
class ChunkCalibration:
    """One calibration of a mechanism: transform length n_c, invocations drawn with it, k, Calibration."""

    length: int
    count: int
    k: int | None  # None for LPA and Steil (no Fourier bins)
    calibration: Calibration


def chunk_calibrations(
    length: int,
    setting: MechanismSetting,
    *,
    sensitivity: float | None = None,
    value_range: float | None = None,
) -> list[ChunkCalibration]:
    """Series length T, the setting (chunk length, k, per-chunk ε, …; plain numbers) in, one ChunkCalibration per
    distinct chunk length out.

    The last partial chunk gets its own λ: its true length, Δ2 of that length, k capped at ⌊n_c/2⌋+1.
    """
    lengths = chunk_lengths(int(length), int(setting.chunk))
    out = []
    for n_c in sorted(set(lengths.tolist()), reverse=True):  # at most two distinct lengths
        k_c = min(int(setting.k), n_c // 2 + 1)
        cal = fpa_calibration(n_c, setting.replace(k=k_c), sensitivity=sensitivity, value_range=value_range)
        out.append(ChunkCalibration(length=n_c, count=int((lengths == n_c).sum()), k=k_c, calibration=cal))
    return out


def steil_calibration(
    length: int,
    w: int,
    epsilon: float,
    value_range: float | None = None,
    sensitivity_type: str = "public",
    *,
    sensitivity: float | None = None,
) -> Calibration:
    """Length T, window w, ε_i, public range R_i (or the L1 sensitivity of the released series) in,
    Calibration of the faithful Steil mechanism, b = T'·R_i/ε_i, out (§7.3)."""
    tp = subsampled_length(length, w)
    if sensitivity is None:
        if value_range is None:
            raise ValueError("give the public range R or the L1 sensitivity of the released series")
        cal = calibrate_laplace(tp * float(value_range), epsilon)
        plugged = (
            rf"b = T' R/\varepsilon = {tp}\cdot {tex_number(value_range)}"
            rf" / {tex_number(epsilon)} = {tex_number(cal.scale)}"
        )
    else:
        cal = calibrate_laplace(float(sensitivity), epsilon)
        plugged = cal.plugged_tex
    cal = dataclasses.replace(
        cal,
        method="steil-laplace",
        formula_tex=r"b = T'\,R_i/\varepsilon_i",
        plugged_tex=plugged,
        note=f"T' = ⌈T/w⌉ = {tp} released samples, one per window of w = {w}",
    )
    return mark_sensitivity(cal, sensitivity_type)
