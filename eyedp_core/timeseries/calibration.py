"""Noise scales of the time-series mechanisms as `Calibration` objects (formula and plugged numbers).

For the page: every mechanism invocation's Laplace scale (LPA: b per sample; FPA family: λ per Re/Im
part of a retained bin, one per chunk length), with the formula in LaTeX and the numbers plugged in.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from eyedp_core.dp import mechanisms
from eyedp_core.dp.mechanisms import Calibration, tex_number
from eyedp_core.timeseries.mechanisms import Norm, fpa_scale, norm_factor
from eyedp_core.timeseries.k import fpa_noise_variance
from eyedp_core.timeseries.sensitivity import chunk_lengths, diff_l2_public, l2_public

__all__ = [
    "ChunkCalibration",
    "chunk_calibrations",
    "fpa_calibration",
    "lpa_calibration",
    "mark_sensitivity",
]

DATA_DERIVED_NOTE = "sensitivity derived from the data — as in paper, not a DP guarantee"

_LAMBDA_TEX = {
    "backward": r"\lambda = \sqrt{k\,n}\;\Delta_2/\varepsilon",
    "ortho": r"\lambda = \sqrt{k}\;\Delta_2/\varepsilon",
    "forward": r"\lambda = \sqrt{k/n}\;\Delta_2/\varepsilon",
}


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
    cal = mechanisms.calibrate_laplace(sensitivity, epsilon)
    cal = dataclasses.replace(
        cal,
        method="lpa",
        plugged_tex=derived + cal.plugged_tex,
        note=f"i.i.d. Lap(b) on each of the {length} samples",
    )
    return mark_sensitivity(cal, sensitivity_type)


def fpa_calibration(
    n: int,
    k: int,
    epsilon: float,
    *,
    sensitivity: float | None = None,
    value_range: float | None = None,
    norm: Norm = "backward",
    difference: bool = False,
    increment_bound: float | None = None,
    sensitivity_type: str = "public",
) -> Calibration:
    """Transform length n, k, ε, Δ2 or public range (DCFPA: of the differences) in, FPA Calibration out.

    `scale` is λ per Re/Im part (coefficient units of `norm`); `std` = √2·λ; the note gives the
    time-domain noise variance per sample (same under every norm).
    """
    n, k = int(n), int(k)
    if sensitivity is None:
        if value_range is None:
            raise ValueError("give the L2 sensitivity or the public range R")
        r = float(value_range)
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
        d_tex += rf" = {tex_number(sensitivity)};\ "
    else:
        d_tex = ""
    lam = float(fpa_scale(n, k, sensitivity, epsilon, norm))
    lam_backward = lam / float(norm_factor(n, norm))
    var = float(fpa_noise_variance(n, min(k, n // 2 + 1), lam_backward))
    root = {"backward": f"{k}\\cdot {n}", "ortho": f"{k}", "forward": f"{k}/{n}"}[norm]
    plugged = (
        d_tex
        + rf"\lambda = \sqrt{{{root}}}\cdot {tex_number(sensitivity)} / {tex_number(epsilon)}"
        + rf" = {tex_number(lam)}"
    )
    what = "difference signal" if difference else "series"
    note = (
        f"Lap(λ) on Re and Im of the first {k} rfft bins of the {what} (norm='{norm}'); "
        f"time-domain noise variance per sample {var:.4g}"
        + (
            " before the cumulative sum (it grows along each chunk, see ts_k.dcfpa_noise_variance)"
            if difference
            else ""
        )
    )
    cal = Calibration(
        mechanism="laplace",
        method=("dcfpa" if difference else "fpa") + f"-{norm}",
        scale=lam,
        std=math.sqrt(2.0) * lam,
        epsilon=float(epsilon),
        delta=0.0,
        sensitivity=float(sensitivity),
        formula_tex=_LAMBDA_TEX[norm],
        plugged_tex=plugged,
        guarantee="ε-DP (pure) per invocation",
        note=note,
    )
    return mark_sensitivity(cal, sensitivity_type)


@dataclass(frozen=True)
class ChunkCalibration:
    """One chunk length of a chunked mechanism: n_c, chunks of that length per series, k, Calibration."""

    length: int
    count: int
    k: int
    calibration: Calibration


def chunk_calibrations(
    length: int,
    chunk: int,
    k: int,
    epsilon: float,
    *,
    sensitivity: float | None = None,
    value_range: float | None = None,
    norm: Norm = "backward",
    difference: bool = False,
    increment_bound: float | None = None,
    sensitivity_type: str = "public",
) -> list[ChunkCalibration]:
    """Series length T, chunk length, k, per-chunk ε in, one ChunkCalibration per distinct chunk length out.

    The last partial chunk gets its own λ: its true length, Δ2 of that length, k capped at ⌊n_c/2⌋+1.
    """
    lengths = chunk_lengths(int(length), int(chunk))
    out = []
    for n_c in sorted(set(lengths.tolist()), reverse=True):  # at most two distinct lengths
        k_c = min(int(k), n_c // 2 + 1)
        cal = fpa_calibration(
            n_c,
            k_c,
            epsilon,
            sensitivity=sensitivity,
            value_range=value_range,
            norm=norm,
            difference=difference,
            increment_bound=increment_bound,
            sensitivity_type=sensitivity_type,
        )
        out.append(ChunkCalibration(length=n_c, count=int((lengths == n_c).sum()), k=k_c, calibration=cal))
    return out
