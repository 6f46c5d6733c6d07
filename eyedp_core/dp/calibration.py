"""Noise calibration (Laplace, Gaussian) and seeded preview noise (docs/PRIVACY_MODEL.md §0.1, §6.2, §6.3).

Everything here is for calibration and *previews*: numpy generators are predictable and their
floating-point samplers are not safe for data releases (docs/PRIVACY_MODEL.md §11). Releases go through
`eyedp_core.dp.release` (OpenDP).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from eyedp_core.dp.registry import Family, GaussianMethod

__all__ = [
    "Calibration",
    "calibrate_gaussian",
    "calibrate_laplace",
    "classical_sigma_formula",
    "gaussian_delta",
    "gaussian_sigma",
    "laplace_scale",
    "tex_number",
]

# Lowest log(delta) we ever report: below exp(-700) delta underflows anyway.
_LOG_DELTA_FLOOR = -700.0


@dataclass(frozen=True)
class Calibration:
    """A noise calibration: noise family, scale, std, privacy parameters and how the scale was obtained."""

    mechanism: Family  # the noise family drawn (Laplace or Gaussian)
    # How the scale was obtained: the Gaussian rule, Family.LAPLACE for the plain Laplace rule b = Δ1/ε, or the
    # Fourier mechanisms' own rule ("fpa-backward", ...: Laplace on the kept coefficients under that FFT norm).
    method: GaussianMethod | Family | str
    scale: float
    std: float
    epsilon: float
    delta: float
    sensitivity: float
    formula_tex: str
    plugged_tex: str
    guarantee: str
    valid: bool = True
    note: str = ""


# --------------------------------------------------------------------------------------------
# validation and formatting


def _check_epsilon(epsilon: float) -> float:
    eps = float(epsilon)
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    return eps


def _check_delta(delta: float) -> float:
    d = float(delta)
    if not (0.0 < d < 1.0):
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta!r}")
    return d


def _check_sensitivity(sensitivity: float, name: str) -> float:
    s = float(sensitivity)
    if not math.isfinite(s) or s < 0:
        raise ValueError(f"{name} sensitivity must be a finite number >= 0, got {sensitivity!r}")
    return s


def _check_scale(scale: float, name: str) -> float:
    s = float(scale)
    if not math.isfinite(s) or s < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {scale!r}")
    return s


def tex_number(value: float, digits: int = 4) -> str:
    """Float in, LaTeX string out with `digits` significant digits (scientific as a·10^{k})."""
    v = float(value)
    if not math.isfinite(v):
        return r"\infty" if v > 0 else (r"-\infty" if v < 0 else r"\mathrm{NaN}")
    text = f"{v:.{digits}g}"
    if "e" in text:
        mant, exp = text.split("e")
        return rf"{mant} \times 10^{{{int(exp)}}}"
    return text


# --------------------------------------------------------------------------------------------
# Laplace


def laplace_scale(l1_sensitivity: float, epsilon: float) -> float:
    """L1 sensitivity and ε in, Laplace scale b = Δ1/ε out; Lap(b) per coordinate gives ε-DP (pure)."""
    eps = _check_epsilon(epsilon)
    d1 = _check_sensitivity(l1_sensitivity, "L1")
    return d1 / eps



def calibrate_laplace(l1_sensitivity: float, epsilon: float) -> Calibration:
    """L1 sensitivity and ε in, Calibration of the ε-DP Laplace mechanism (b = Δ1/ε, std √2·b) out."""
    b = laplace_scale(l1_sensitivity, epsilon)
    return Calibration(
        mechanism=Family.LAPLACE,
        method=Family.LAPLACE,
        scale=b,
        std=math.sqrt(2.0) * b,
        epsilon=float(epsilon),
        delta=0.0,
        sensitivity=float(l1_sensitivity),
        formula_tex=r"b = \Delta_1/\varepsilon",
        plugged_tex=rf"b = {tex_number(l1_sensitivity)} / {tex_number(epsilon)} = {tex_number(b)}",
        guarantee="ε-DP (pure)",
    )


# --------------------------------------------------------------------------------------------
# Gaussian


def _log_delta_unit(s: float, epsilon: float) -> float:
    """log δ of the Gaussian mechanism with Δ2 = 1 and noise std s at ε (Balle–Wang Thm 8)."""
    from scipy.special import log_ndtr  # imported here: keeps app start light

    a = 0.5 / s - epsilon * s
    b = -0.5 / s - epsilon * s
    la = float(log_ndtr(a))
    # delta = Phi(a) * (1 - exp(eps + log Phi(b) - log Phi(a))); log-space keeps tiny deltas exact.
    x = epsilon + float(log_ndtr(b)) - la
    if x >= 0.0:
        # Only reachable through rounding when the true delta is far below exp(-700).
        return _LOG_DELTA_FLOOR
    return max(la + math.log(-math.expm1(x)), _LOG_DELTA_FLOOR)


def gaussian_delta(sigma: float, l2_sensitivity: float, epsilon: float) -> float:
    """Noise std σ, L2 sensitivity and ε in, the exact δ that N(0, σ²) achieves at ε out (Balle–Wang)."""
    eps = _check_epsilon(epsilon)
    d2 = _check_sensitivity(l2_sensitivity, "L2")
    sig = _check_scale(sigma, "sigma")
    if d2 == 0.0:
        return 0.0
    if sig == 0.0:
        return 1.0
    log_d = _log_delta_unit(sig / d2, eps)
    return 0.0 if log_d <= _LOG_DELTA_FLOOR else math.exp(log_d)


def classical_sigma_formula(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """L2 sensitivity, ε, δ in, bare formula Δ2·√(2 ln(1.25/δ))/ε out; (ε, δ)-DP proven only for ε < 1."""
    eps = _check_epsilon(epsilon)
    dlt = _check_delta(delta)
    d2 = _check_sensitivity(l2_sensitivity, "L2")
    return d2 * math.sqrt(2.0 * math.log(1.25 / dlt)) / eps


def _analytic_unit_sigma(epsilon: float, delta: float) -> float:
    """Smallest noise std s (for Δ2 = 1) whose exact δ at ε equals `delta`, by brentq on log δ(log s)."""
    target = math.log(delta)

    def g(log_s: float) -> float:
        return _log_delta_unit(math.exp(log_s), epsilon) - target

    # delta(s) decreases from 1 (s -> 0) to 0 (s -> inf); start near the classical value and expand.
    guess = math.log(math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon + 1e-12)
    lo, hi = guess - 1.0, guess + 1.0
    for _ in range(200):
        if g(lo) > 0:
            break
        lo -= 2.0
    for _ in range(200):
        if g(hi) < 0:
            break
        hi += 2.0
    from scipy.optimize import brentq  # imported here: scipy.optimize costs ~0.4 s of app start

    log_s = brentq(g, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500)
    return math.exp(log_s)


def gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float,
                   method: GaussianMethod = GaussianMethod.ANALYTIC) -> float:
    """L2 sensitivity, ε, δ, method in, Gaussian noise std σ out.

    "analytic" (Balle–Wang 2018): the smallest σ for which N(0, σ²) is (ε, δ)-DP, exact for any ε > 0.
    "classical" (Dwork–Roth Thm A.1): Δ2·√(2 ln(1.25/δ))/ε, proven only for ε < 1; refused otherwise.
    """
    eps = _check_epsilon(epsilon)
    dlt = _check_delta(delta)
    d2 = _check_sensitivity(l2_sensitivity, "L2")
    if method not in _FORMULA_METHODS:
        raise ValueError(f"unknown Gaussian calibration method {method!r}; use 'analytic' or 'classical'")
    if method == GaussianMethod.CLASSICAL:
        if eps >= 1.0:
            raise ValueError(
                f"the classical Gaussian calibration is only proven for epsilon < 1 (got epsilon={eps:g}); "
                "use method='analytic' (Balle–Wang), which is exact for every epsilon > 0"
            )
        return classical_sigma_formula(d2, eps, dlt)
    if d2 == 0.0:
        return 0.0
    return d2 * _analytic_unit_sigma(eps, dlt)



# The methods with a closed rule here; Liu's Thm 3.4 needs r and lives with its mechanism object.
_FORMULA_METHODS = (GaussianMethod.ANALYTIC, GaussianMethod.CLASSICAL)

_ANALYTIC_TEX = (
    r"\sigma = \min\Big\{\sigma:\ "
    r"\Phi\big(\tfrac{\Delta_2}{2\sigma} - \tfrac{\varepsilon\sigma}{\Delta_2}\big)"
    r" - e^{\varepsilon}\,\Phi\big(-\tfrac{\Delta_2}{2\sigma} - \tfrac{\varepsilon\sigma}{\Delta_2}\big)"
    r" \le \delta\Big\}"
)
_CLASSICAL_TEX = r"\sigma = \Delta_2\,\sqrt{2\ln(1.25/\delta)}\,/\,\varepsilon"


def calibrate_gaussian(
    l2_sensitivity: float, epsilon: float, delta: float, method: GaussianMethod = GaussianMethod.ANALYTIC
) -> Calibration:
    """L2 sensitivity, ε, δ, method in, Calibration of the (ε, δ)-DP Gaussian mechanism out."""
    sigma = gaussian_sigma(l2_sensitivity, epsilon, delta, method=method)
    d2, eps, dlt = float(l2_sensitivity), float(epsilon), float(delta)
    if method == GaussianMethod.ANALYTIC:
        plugged = (
            rf"\sigma = \min\{{\sigma:\ \delta(\sigma;\ \Delta_2 = {tex_number(d2)},\ "
            rf"\varepsilon = {tex_number(eps)}) \le {tex_number(dlt)}\}} = {tex_number(sigma)}"
        )
        return Calibration(
            mechanism=Family.GAUSSIAN,
            method=GaussianMethod.ANALYTIC,
            scale=sigma,
            std=sigma,
            epsilon=eps,
            delta=dlt,
            sensitivity=d2,
            formula_tex=_ANALYTIC_TEX,
            plugged_tex=plugged,
            guarantee="(ε, δ)-DP, exact (Balle–Wang)",
        )
    plugged = (
        rf"\sigma = {tex_number(d2)}\cdot\sqrt{{2\ln(1.25/{tex_number(dlt)})}}\,/\,{tex_number(eps)}"
        rf" = {tex_number(sigma)}"
    )
    achieved = gaussian_delta(sigma, d2, eps)
    return Calibration(
        mechanism=Family.GAUSSIAN,
        method=GaussianMethod.CLASSICAL,
        scale=sigma,
        std=sigma,
        epsilon=eps,
        delta=dlt,
        sensitivity=d2,
        formula_tex=_CLASSICAL_TEX,
        plugged_tex=plugged,
        guarantee="(ε, δ)-DP for ε < 1 (Dwork–Roth Thm A.1)",
        note=f"conservative: exact δ achieved at this σ is {achieved:.3g}; the analytic σ is smaller",
    )
