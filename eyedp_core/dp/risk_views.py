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
from collections.abc import Callable, Sequence
from enum import StrEnum

from eyedp_core.dp.risk import Curve, TradeOff, compose, singling_out, tpr_at
from eyedp_core.dp.risk_words import LINE_FPR, Risk

__all__ = ["RiskTarget", "combined", "epsilon_for_risk", "line_risk", "repeated", "risk_value"]

# Where the bisection looks for ε (per person): below 1e-4 every risk is its guessing baseline to 4 digits, above
# 1e5 every risk is 100 % to as many.
_EPS_LO, _EPS_HI = 1e-4, 1e5


class RiskTarget(StrEnum):
    """The risk a calibration keeps under a target."""

    TPR = "true positives at 5 % false positives"
    SINGLING_OUT = "singling one person out"


def repeated(t: TradeOff, count: int) -> TradeOff:
    """One release's trade-off and how many such releases read one person in, that person's total out.

    Gaussians compose exactly (μ·√count). A pure ε-DP release (Laplace, or (ε, 0)) is composed by the optimal
    composition theorem for ε-DP releases (Kairouz, Oh & Viswanath 2015: exact for the worst ε-DP mechanism, so a
    valid ceiling for Laplace noise), which costs a binomial and stays cheap for thousands of calls and for every
    step of a bisection; risk.compose's numeric Laplace composition is tighter but costs a privacy-loss
    distribution per ε. Anything else composes by the basic rule on (ε, δ)."""
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    if count == 1:
        return t
    if t.curve is Curve.GAUSSIAN:
        return TradeOff(Curve.GAUSSIAN, mu=t.mu * math.sqrt(count), epsilon=t.epsilon * count,
                        delta=min(1.0, t.delta * count))
    if t.delta == 0.0 and math.isfinite(t.epsilon):
        return TradeOff.pure(t.epsilon, t.count * count)
    return TradeOff.approx(t.total_epsilon * count, min(1.0, t.delta * t.count * count))


def combined(parts: Sequence[TradeOff]) -> TradeOff:
    """The trade-offs of the releases that read one person in, that person's total out: pure ε-DP releases of one
    ε as in `repeated`, every other mix as risk.compose (Gaussians exactly, the rest by the basic rule)."""
    if len(parts) == 1:
        return parts[0]
    if parts and all(p.curve is not Curve.GAUSSIAN and p.delta == 0.0 and p.epsilon == parts[0].epsilon
                     and math.isfinite(p.epsilon) for p in parts):
        return TradeOff.pure(parts[0].epsilon, sum(p.count for p in parts))
    return compose(parts)


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
    if n > 1 and t.curve is Curve.APPROX and t.count == 1 and math.isfinite(t.epsilon):
        return _approx_singling_out(t, n)
    return singling_out(t, n)


def line_risk(t: TradeOff, n: int) -> Risk:
    """A person's composed trade-off and the roster size n in, the two figures of the risk line out."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    return Risk(tpr=((LINE_FPR, tpr_at(t, LINE_FPR)),), n=int(n), singling_out=_singling_out(t, int(n)))


def risk_value(t: TradeOff, target: RiskTarget, n: int) -> float:
    """A trade-off, which risk and n in, that risk's ceiling out."""
    return tpr_at(t, LINE_FPR) if target is RiskTarget.TPR else _singling_out(t, int(n))


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
