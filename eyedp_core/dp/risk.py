"""What a guarantee allows any attacker to do, in numbers a review board reads (docs/PRIVACY_MODEL.md §16).

The hypothesis-testing view of DP (f-DP, Dong, Roth & Su 2019): a release is summarised by its trade-off curve
β = f(α), the smallest miss rate (type II error) any test can have at false-positive rate α when it tries to
tell two neighbouring datasets apart. Everything below is read off that curve, and uses no data:

* the largest advantage TPR − FPR of any membership test (the total-variation distance of the two outputs);
* the attacker's true-positive rate at a fixed false-positive rate (1 %, 5 %);
* the Bayes-optimal success of singling one person out among n (re-identification), from the privacy profile;
* the Bayes-optimal success of inferring a binary attribute of one person with a known prior.

Closed forms: the Gaussian mechanism is μ-GDP with μ = Δ₂/σ; the Laplace mechanism with scale b has the Laplace
trade-off with ε = Δ₁/b; any other (ε, δ)-DP release has the (ε, δ) trade-off of Kairouz, Oh & Viswanath (2015).
Compositions: Gaussians compose exactly (μ = √Σμᵢ²); anything else composes by the basic rule on (ε, δ), which
is a valid but loose bound.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = [
    "ATTACK_FPRS",
    "Curve",
    "Risk",
    "TradeOff",
    "attribute_inference",
    "compose",
    "max_advantage",
    "privacy_profile",
    "risk_of",
    "risk_sentence",
    "singling_out",
    "tpr_at",
    "trade_off",
]

# False-positive rates at which the attacker's true-positive rate is quoted.
ATTACK_FPRS = (0.01, 0.05)
# The α grid on which suprema over tests are taken: log-spaced near 0 (where small-FPR tests live) and linear
# elsewhere. Each quantity below is concave or monotone in α, so the grid's error is far below the digits shown.
_ALPHA = np.unique(np.concatenate([np.geomspace(1e-12, 1e-2, 2000), np.linspace(0.0, 1.0, 20001)]))


class Curve(StrEnum):
    """The family a trade-off curve comes from."""

    GAUSSIAN = "μ-GDP (Gaussian mechanism)"
    LAPLACE = "Laplace mechanism"
    APPROX = "(ε, δ)-DP"


@dataclass(frozen=True)
class TradeOff:
    """One release's (or one person's composed) trade-off curve: its family and the parameter(s) that fix it.

    `epsilon`/`delta` are the (ε, δ) it is also known to satisfy (used when it composes with other families)."""

    curve: Curve
    mu: float = 0.0
    epsilon: float = 0.0
    delta: float = 0.0

    @staticmethod
    def gaussian(l2_sensitivity: float, sigma: float, epsilon: float = math.inf, delta: float = 0.0) -> TradeOff:
        """Gaussian noise σ on a query of L2 sensitivity Δ₂ in, its μ-GDP curve (μ = Δ₂/σ) out."""
        if sigma <= 0 or l2_sensitivity < 0:
            raise ValueError("sigma must be > 0 and the sensitivity >= 0")
        return TradeOff(Curve.GAUSSIAN, mu=float(l2_sensitivity) / float(sigma), epsilon=float(epsilon),
                        delta=float(delta))

    @staticmethod
    def laplace(l1_sensitivity: float, scale: float) -> TradeOff:
        """Laplace noise of scale b on a query of L1 sensitivity Δ₁ in, its Laplace curve (ε = Δ₁/b) out."""
        if scale <= 0 or l1_sensitivity < 0:
            raise ValueError("scale must be > 0 and the sensitivity >= 0")
        return TradeOff(Curve.LAPLACE, epsilon=float(l1_sensitivity) / float(scale))

    @staticmethod
    def approx(epsilon: float, delta: float = 0.0) -> TradeOff:
        """(ε, δ) in, the (ε, δ)-DP trade-off curve out (the curve every (ε, δ)-DP release lies above)."""
        if epsilon < 0 or not 0.0 <= delta <= 1.0:
            raise ValueError("epsilon must be >= 0 and delta in [0, 1]")
        return TradeOff(Curve.APPROX, epsilon=float(epsilon), delta=float(delta))


def _laplace_cdf(x: np.ndarray) -> np.ndarray:
    """CDF of the standard Laplace law, vectorised and stable in both tails."""
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(x, 0.0)))


def _laplace_icdf(q: np.ndarray) -> np.ndarray:
    """Inverse CDF of the standard Laplace law (q in [0, 1])."""
    with np.errstate(divide="ignore"):
        return np.where(q < 0.5, np.log(2.0 * q), -np.log(2.0 * (1.0 - q)))


def trade_off(t: TradeOff, alpha: np.ndarray | float) -> np.ndarray:
    """False-positive rate(s) α in, the smallest miss rate β any test can have at α out (the curve f(α))."""
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
    if t.curve is Curve.GAUSSIAN:
        if math.isinf(t.mu):
            return np.zeros_like(a)
        with np.errstate(over="ignore", invalid="ignore"):
            beta = ndtr(ndtri(1.0 - a) - t.mu)
        return np.nan_to_num(beta, nan=0.0)
    if t.curve is Curve.LAPLACE:
        if math.isinf(t.epsilon):
            return np.zeros_like(a)
        return _laplace_cdf(_laplace_icdf(1.0 - a) - t.epsilon)
    if math.isinf(t.epsilon):
        return np.zeros_like(a)
    e = math.exp(min(t.epsilon, 700.0))
    return np.maximum.reduce([np.zeros_like(a), 1.0 - t.delta - e * a, (1.0 - t.delta - a) / e])


def tpr_at(t: TradeOff, fpr: float) -> float:
    """False-positive rate in, the highest true-positive rate any membership test reaches there out."""
    return float(1.0 - trade_off(t, fpr))


def max_advantage(t: TradeOff) -> float:
    """The largest TPR − FPR of any test telling two neighbours apart (their total-variation distance)."""
    if t.curve is Curve.GAUSSIAN:
        return float(2.0 * ndtr(t.mu / 2.0) - 1.0)
    if t.curve is Curve.LAPLACE:
        return float(-math.expm1(-t.epsilon / 2.0))
    if math.isinf(t.epsilon):
        return 1.0
    e = math.exp(min(t.epsilon, 700.0))
    return float(min(1.0, (e - 1.0 + 2.0 * t.delta) / (e + 1.0)))


def privacy_profile(t: TradeOff, epsilon: np.ndarray | float) -> np.ndarray:
    """ε' in, the smallest δ' with which the release is (ε', δ')-DP out: δ(ε') = sup_α (1 − f(α) − e^ε'·α)."""
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    if t.curve is Curve.GAUSSIAN and not math.isinf(t.mu):
        mu = max(t.mu, 1e-300)
        with np.errstate(over="ignore", invalid="ignore"):
            d = ndtr(-eps / mu + mu / 2.0) - np.exp(eps) * ndtr(-eps / mu - mu / 2.0)
        return np.clip(np.nan_to_num(d, nan=0.0), 0.0, 1.0)
    if t.curve is Curve.LAPLACE:
        return np.clip(-np.expm1((eps - t.epsilon) / 2.0), 0.0, 1.0)
    beta = trade_off(t, _ALPHA)
    out = np.max(1.0 - beta[None, :] - np.exp(np.minimum(eps, 700.0))[:, None] * _ALPHA[None, :], axis=1)
    return np.clip(out, 0.0, 1.0)


def singling_out(t: TradeOff, n: int) -> float:
    """n people in, the highest probability that any attacker picks out which of n candidates is in the data.

    With a uniform prior over n datasets that differ in one person's contribution (each pair neighbours), an
    (ε', δ')-DP release allows at most (e^ε' + (n − 1)·δ')/(e^ε' + n − 1); the bound is taken at its best ε'
    along the privacy profile. Guessing gives 1/n."""
    if n < 1:
        raise ValueError("n must be at least 1")
    if n == 1:
        return 1.0
    top = t.mu ** 2 + 12.0 * t.mu + 1.0 if t.curve is Curve.GAUSSIAN else t.epsilon
    if not math.isfinite(top):
        return 1.0
    grid = np.unique(np.concatenate([np.linspace(0.0, top, 4001), [top]]))
    delta = privacy_profile(t, grid)
    e = np.exp(np.minimum(grid, 700.0))
    bound = (e + (n - 1) * delta) / (e + (n - 1))
    return float(min(1.0, np.min(bound)))


def attribute_inference(t: TradeOff, prior: float = 0.5) -> float:
    """Prior P(attribute) in, the highest probability that any attacker infers one person's binary attribute.

    Datasets with the attribute one way or the other are neighbours; the attacker says "yes" on a test's
    rejection region, so success = prior·(1 − f(α)) + (1 − prior)·(1 − α), maximised over tests.
    Guessing the likelier value gives max(prior, 1 − prior)."""
    if not 0.0 < prior < 1.0:
        raise ValueError("prior must lie strictly between 0 and 1")
    beta = trade_off(t, _ALPHA)
    success = prior * (1.0 - beta) + (1.0 - prior) * (1.0 - _ALPHA)
    return float(min(1.0, max(np.max(success), prior, 1.0 - prior)))


def compose(parts: Sequence[TradeOff]) -> TradeOff:
    """Trade-offs of the releases that read one person in, that person's composed trade-off out.

    Gaussians compose exactly in μ; any other mix composes by the basic rule on each part's (ε, δ)."""
    if not parts:
        return TradeOff.approx(0.0, 0.0)
    if all(p.curve is Curve.GAUSSIAN for p in parts):
        eps = sum(p.epsilon for p in parts)
        return TradeOff(Curve.GAUSSIAN, mu=math.sqrt(sum(p.mu ** 2 for p in parts)), epsilon=eps,
                        delta=min(1.0, sum(p.delta for p in parts)))
    if len(parts) == 1:
        return parts[0]
    return TradeOff.approx(sum(p.epsilon for p in parts), min(1.0, sum(p.delta for p in parts)))


@dataclass(frozen=True)
class Risk:
    """What a trade-off allows an attacker, in the numbers the pages and the report print."""

    advantage: float
    tpr: tuple[tuple[float, float], ...]  # (FPR, highest TPR at that FPR)
    n: int
    singling_out: float
    prior: float
    attribute: float

    @property
    def singling_out_guess(self) -> float:
        """The success of singling one person out by guessing alone (1/n)."""
        return 1.0 / self.n

    @property
    def attribute_guess(self) -> float:
        """The success of inferring the attribute by guessing the likelier value."""
        return max(self.prior, 1.0 - self.prior)


def risk_of(t: TradeOff, n: int, prior: float = 0.5) -> Risk:
    """A trade-off, the number of people and an attribute's prior in, every risk figure out."""
    return Risk(advantage=max_advantage(t), tpr=tuple((f, tpr_at(t, f)) for f in ATTACK_FPRS), n=int(n),
                singling_out=singling_out(t, n), prior=float(prior), attribute=attribute_inference(t, prior))


def _pct(v: float) -> str:
    """A probability as a percentage with the digits it needs."""
    p = 100.0 * v
    if p >= 99.95:
        return "100 %" if v >= 1.0 else "≈ 100 %"
    return f"{p:.3g} %" if p >= 1 or p == 0 else f"{p:.2g} %"


def risk_sentence(r: Risk, unit: str = "person") -> str:
    """A Risk in, one plain sentence of what any attacker can do at most out."""
    fpr, tpr = r.tpr[-1]
    return (f"At this ε, an attacker who knows everything else can tell whether a given {unit} was in the data with "
            f"up to {_pct(tpr)} true positives at {_pct(fpr)} false positives; singling one {unit} out of "
            f"{r.n} succeeds at most {_pct(r.singling_out)} of the time (guessing: {_pct(r.singling_out_guess)}), "
            f"and inferring a yes/no attribute with a {_pct(r.prior)} prior at most {_pct(r.attribute)} "
            f"(guessing: {_pct(r.attribute_guess)}).")
