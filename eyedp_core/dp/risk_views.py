"""The risk line every page prints under its guarantee, and ε calibrated to a risk target (PRIVACY_MODEL §16).

Built on `eyedp_core.dp.risk`: a page hands in the trade-off of one release (from the calibration it shows: Gaussian
Δ₂ and σ, Laplace Δ₁ and b, or the charged (ε, δ)) and how many such releases read one person; this module
composes them, reads the two figures a board asks for first (the attacker's true-positive rate at 5 % false
positives, and singling one person out among the n on the roster) and finds the largest ε that keeps one of
them under a target. Everything here is data-free and cheap: each figure is a closed form or a 4,001-point grid,
and results are memoised on the (hashable, frozen) trade-off.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from eyedp_core.dp.risk import Curve, TradeOff, singling_out, tpr_at

__all__ = [
    "LINE_FPR",
    "LineRisk",
    "RiskTarget",
    "epsilon_for_risk",
    "line_risk",
    "repeated",
    "risk_line",
    "risk_value",
]

# The false-positive rate the one-line summary quotes (the 1 % figure is in the report's table).
LINE_FPR = 0.05
# Where the bisection looks for ε (per person): below 1e-4 every risk is its guessing baseline to 4 digits, above
# 1e5 every risk is 100 % to as many.
_EPS_LO, _EPS_HI = 1e-4, 1e5


class RiskTarget(StrEnum):
    """The risk a calibration keeps under a target."""

    TPR = "true positives at 5 % false positives"
    SINGLING_OUT = "singling one person out"


@dataclass(frozen=True)
class LineRisk:
    """The two figures of a page's risk line: TPR at LINE_FPR and the success of singling one of n out."""

    tpr: float
    fpr: float
    singling_out: float
    n: int

    @property
    def singling_out_guess(self) -> float:
        """Singling one out of n by guessing alone: 1/n."""
        return 1.0 / self.n


def repeated(t: TradeOff, count: int) -> TradeOff:
    """One release's trade-off and how many such releases read one person in, that person's total out.

    The same rule as risk.compose on `count` copies, without building the list (a time series can be thousands
    of calls): Gaussians compose exactly (μ·√count), anything else by the basic rule on (ε, δ)."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if count == 1:
        return t
    if t.curve is Curve.GAUSSIAN:
        return TradeOff(Curve.GAUSSIAN, mu=t.mu * math.sqrt(count), epsilon=t.epsilon * count,
                        delta=min(1.0, t.delta * count))
    return TradeOff.approx(t.epsilon * count, min(1.0, t.delta * count))


def _approx_singling_out(t: TradeOff, n: int) -> float:
    """risk.singling_out for an (ε, δ) curve, in closed form (the generic route takes seconds there).

    The (ε, δ) curve is that of a four-point pair (δ | (1 − δ)·randomised response | 0), whose privacy profile is
    δ(ε′) = δ + (1 − δ)·(e^ε − e^ε′)₊/(1 + e^ε). On ε′ ≤ ε the bound (e^ε′ + (n − 1)δ(ε′))/(e^ε′ + n − 1) is a
    ratio of two linear functions of e^ε′, so monotone; above ε it grows. Its minimum is at ε′ = 0 or ε′ = ε."""
    e = math.exp(min(t.epsilon, 700.0))
    d = t.delta
    at_eps = (e + (n - 1) * d) / (e + n - 1)
    at_zero = (1.0 + (n - 1) * (d + (1.0 - d) * (e - 1.0) / (e + 1.0))) / n
    return float(min(1.0, at_eps, at_zero))


@functools.lru_cache(maxsize=512)
def _singling_out(t: TradeOff, n: int) -> float:
    """Singling one out of n, memoised (the pages ask again on every re-run)."""
    if n > 1 and t.curve is Curve.APPROX and math.isfinite(t.epsilon):
        return _approx_singling_out(t, n)
    return singling_out(t, n)


def line_risk(t: TradeOff, n: int) -> LineRisk:
    """A person's composed trade-off and the roster size n in, the two figures of the risk line out."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    return LineRisk(tpr=tpr_at(t, LINE_FPR), fpr=LINE_FPR, singling_out=_singling_out(t, int(n)), n=int(n))


def risk_value(t: TradeOff, target: RiskTarget, n: int) -> float:
    """A trade-off, which risk and n in, that risk's ceiling out."""
    return tpr_at(t, LINE_FPR) if target is RiskTarget.TPR else _singling_out(t, int(n))


def _pct(v: float) -> str:
    """A probability as a percentage that never rounds to a false 100 % (a ceiling of 99.97 % is not 100 %)."""
    p = 100.0 * v
    if v >= 1.0:
        return "100 %"
    if p >= 99.95:
        return "> 99.9 %"
    return f"{p:.3g} %" if p >= 1 else f"{p:.2g} %"


def risk_line(r: LineRisk, unit: str = "person", roster: str = "") -> str:
    """The two figures in, one plain sentence out (`roster` says where n comes from, e.g. "in the loaded data")."""
    where = f" ({r.n} {unit}s {roster}, a roster taken as public)" if roster else ""
    return (f"At this ε, an attacker who knows everything else can tell whether a given {unit} was in the data with "
            f"at most {_pct(r.tpr)} true positives at {_pct(r.fpr)} false positives; singling one out of "
            f"{r.n}{where} succeeds at most {_pct(r.singling_out)} of the time, against "
            f"{_pct(r.singling_out_guess)} by guessing.")


def epsilon_for_risk(forward: Callable[[float], TradeOff], target: RiskTarget, level: float, n: int,
                     lo: float = _EPS_LO, hi: float = _EPS_HI, rel_tol: float = 1e-4) -> float | None:
    """ε → a person's trade-off (the page's own calibration, composed), a risk, its ceiling and n in, the largest ε
    in [lo, hi] whose risk stays at or under `level` out (bisection on log ε: every risk grows with ε).

    None when even `lo` exceeds the level (a target at or below guessing, which no ε > 0 meets); `hi` when the
    whole range meets it."""
    if not 0.0 < level <= 1.0:
        raise ValueError(f"a risk target lies in (0, 1], got {level!r}")

    def ok(eps: float) -> bool:
        return risk_value(forward(eps), target, n) <= level

    if not ok(lo):
        return None
    if ok(hi):
        return hi
    a, b = math.log(lo), math.log(hi)  # ok(e^a), not ok(e^b)
    while b - a > rel_tol / 4:
        mid = 0.5 * (a + b)
        if ok(math.exp(mid)):
            a = mid
        else:
            b = mid
    return math.exp(a)
