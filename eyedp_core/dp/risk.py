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
Compositions: Gaussians compose exactly (μ = √Σμᵢ²); `count` equal Laplace releases compose through a numeric
privacy-loss distribution (Google's dp-accounting, pessimistic discretisation); `count` pure ε-DP releases of any
kind compose exactly (Kairouz, Oh & Viswanath's optimal composition: a binomial of ±ε losses); anything else
composes by the basic rule on (ε, δ), which is a valid but loose bound.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from scipy.special import ndtr, ndtri
from scipy.stats import binom

from eyedp_core.dp.registry import Family
from eyedp_core.dp.risk_words import Risk

__all__ = [
    "ATTACK_FPRS",
    "Curve",
    "LossDistribution",
    "TradeOff",
    "attribute_inference",
    "compose",
    "loss_distribution",
    "max_advantage",
    "privacy_profile",
    "risk_of",
    "risk_sentence",
    "singling_out",
    "tpr_at",
    "tpr_at_fpr",
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

    `epsilon`/`delta` are the (ε, δ) it is also known to satisfy (used when it composes with other families).
    `count` > 1 is the composition of that many copies of the curve (LAPLACE, or APPROX with δ = 0); a Gaussian
    folds its count into μ."""

    curve: Curve
    mu: float = 0.0
    epsilon: float = 0.0
    delta: float = 0.0
    count: int = 1

    @property
    def total_epsilon(self) -> float:
        """The ε of the whole composition by the basic rule (count · ε)."""
        return self.epsilon * self.count

    @staticmethod
    def from_family(family: Family, sensitivity: float, scale: float, count: int = 1) -> TradeOff:
        """A mechanism as a page shows it (noise family, sensitivity, scale) and how many such releases read one
        person in, that person's trade-off out: Gaussian σ = scale (μ = √count·Δ₂/σ, exact), Laplace b = scale."""
        if count < 1:
            raise ValueError(f"count must be at least 1, got {count}")
        if family is Family.GAUSSIAN:
            one = TradeOff.gaussian(sensitivity, scale)
            return TradeOff(Curve.GAUSSIAN, mu=one.mu * math.sqrt(count))
        if family is Family.LAPLACE:
            one = TradeOff.laplace(sensitivity, scale)
            return one if count == 1 or one.epsilon == 0 else TradeOff(Curve.LAPLACE, epsilon=one.epsilon,
                                                                        count=int(count))
        raise ValueError(f"no trade-off curve for the {family.value} family: give its (ε, δ) to TradeOff.approx")

    @staticmethod
    def pure(epsilon: float, count: int = 1) -> TradeOff:
        """`count` releases, each ε-DP (any mechanism), in, their exactly composed trade-off out (Kairouz et al.)."""
        if count < 1 or epsilon < 0:
            raise ValueError("count must be at least 1 and epsilon >= 0")
        return TradeOff(Curve.APPROX, epsilon=float(epsilon), count=1 if epsilon == 0 else int(count))

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


# Privacy-loss grid of a composed Laplace distribution: 1e-4 (a pessimistic error far below the digits shown),
# coarser when count·ε is so large that the grid would pass 2·10⁵ points (every figure is then ≈ 100 % anyway).
_PLD_STEP = 1e-4
_PLD_POINTS = 1e5


@dataclass(frozen=True)
class LossDistribution:
    """A dominating pair as its privacy-loss atoms: loss ℓ (ascending), mass under P (present) and under
    Q (absent, p·e^−ℓ), and P's mass at ℓ = +∞. Q's missing mass sits at ℓ = −∞."""

    loss: np.ndarray
    p: np.ndarray
    q: np.ndarray
    infinity: float


def _laplace_pld(epsilon: float, count: int) -> LossDistribution:
    """`count` Laplace releases of ε each, composed by dp-accounting (pessimistic: every loss rounded up)."""
    from dp_accounting.pld import privacy_loss_distribution

    step = max(_PLD_STEP, count * epsilon / _PLD_POINTS)
    one = privacy_loss_distribution.from_laplace_mechanism(1.0 / epsilon, sensitivity=1.0, value_discretization_interval=step,
                                         pessimistic_estimate=True, use_connect_dots=False)
    pmf = one.self_compose(count)._pmf_remove.to_dense_pmf()  # the Laplace distribution is symmetric
    loss = (pmf._lower_loss + np.arange(pmf.size)) * pmf._discretization
    p = np.asarray(pmf._probs, dtype=float)
    return LossDistribution(loss, p, p * np.exp(-loss), float(pmf._infinity_mass))


def _pure_pld(epsilon: float, count: int) -> LossDistribution:
    """`count` ε-DP releases composed exactly: the worst case is randomised response, whose loss is ±ε, so
    the composed loss is ε·(2K − count) with K binomial (success e^ε/(1 + e^ε) under P, 1/(1 + e^ε) under Q)."""
    k = np.arange(count + 1)
    e = math.exp(-epsilon)
    return LossDistribution(epsilon * (2.0 * k - count), binom.pmf(k, count, 1.0 / (1.0 + e)),
                            binom.pmf(k, count, e / (1.0 + e)), 0.0)


@functools.lru_cache(maxsize=64)
def loss_distribution(t: TradeOff) -> LossDistribution:
    """A composed trade-off (count > 1: LAPLACE, or APPROX with δ = 0) in, its privacy-loss distribution out."""
    if t.curve is Curve.LAPLACE:
        return _laplace_pld(t.epsilon, t.count)
    if t.curve is Curve.APPROX and t.delta == 0.0:
        return _pure_pld(t.epsilon, t.count)
    raise ValueError(f"no loss distribution for {t.count} compositions of {t.curve.value} with δ = {t.delta}")


def _composed(t: TradeOff) -> bool:
    """True when t is a composition handled through its loss distribution."""
    return t.count > 1 and t.curve is not Curve.GAUSSIAN and math.isfinite(t.epsilon) and t.epsilon > 0


def _pld_trade_off(d: LossDistribution, a: np.ndarray) -> np.ndarray:
    """The Neyman–Pearson curve of a loss distribution: reject "absent" on the largest losses first (randomising
    on the boundary atom), so TPR and FPR are the cumulative P and Q masses from the top; β = 1 − TPR."""
    tpr = np.concatenate([[0.0], d.infinity + np.cumsum(d.p[::-1])])
    fpr = np.concatenate([[0.0], np.cumsum(d.q[::-1])])
    tpr, fpr = np.minimum(tpr, 1.0), np.minimum(fpr, 1.0)
    out = np.interp(a, fpr, tpr, right=1.0)
    return np.clip(1.0 - out, 0.0, 1.0)


def _pld_profile(d: LossDistribution, eps: np.ndarray) -> np.ndarray:
    """δ(ε′) = P(∞) + Σ_{ℓ > ε′} (p − e^ε′·q): the hockey-stick divergence of the pair."""
    tail_p = np.concatenate([np.cumsum(d.p[::-1])[::-1], [0.0]])
    tail_q = np.concatenate([np.cumsum(d.q[::-1])[::-1], [0.0]])
    i = np.searchsorted(d.loss, eps, side="right")
    with np.errstate(over="ignore", invalid="ignore"):
        out = d.infinity + tail_p[i] - np.exp(np.minimum(eps, 700.0)) * tail_q[i]
    return np.clip(np.nan_to_num(out, nan=0.0), 0.0, 1.0)


def trade_off(t: TradeOff, alpha: np.ndarray | float) -> np.ndarray:
    """False-positive rate(s) α in, the smallest miss rate β any test can have at α out (the curve f(α))."""
    a = np.clip(np.asarray(alpha, dtype=float), 0.0, 1.0)
    if _composed(t):
        return _pld_trade_off(loss_distribution(t), a)
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


def tpr_at_fpr(family: Family, sensitivity: float, scale: float, fpr: float, count: int = 1) -> float:
    """The largest true-positive rate of any test telling a person's presence from absence at false-positive rate
    `fpr`, for `count` compositions of the mechanism (Gaussian: σ = scale; Laplace: b = scale)."""
    if not 0.0 <= fpr <= 1.0:
        raise ValueError(f"fpr must lie in [0, 1], got {fpr}")
    return tpr_at(TradeOff.from_family(family, sensitivity, scale, count), fpr)


def max_advantage(t: TradeOff) -> float:
    """The largest TPR − FPR of any test telling two neighbours apart (their total-variation distance)."""
    if _composed(t):
        return float(_pld_profile(loss_distribution(t), np.array([0.0]))[0])
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
    if _composed(t):
        return _pld_profile(loss_distribution(t), eps)
    if t.curve is Curve.GAUSSIAN and not math.isinf(t.mu):
        mu = max(t.mu, 1e-300)
        with np.errstate(over="ignore", invalid="ignore"):
            d = ndtr(-eps / mu + mu / 2.0) - np.exp(eps) * ndtr(-eps / mu - mu / 2.0)
        return np.clip(np.nan_to_num(d, nan=0.0), 0.0, 1.0)
    if t.curve is Curve.LAPLACE:
        return np.clip(-np.expm1((eps - t.epsilon) / 2.0), 0.0, 1.0)
    if t.curve is Curve.APPROX and math.isfinite(t.epsilon):
        # The curve's vertex α = (1 − δ)/(1 + e^ε) is the best test for every ε′ ≤ ε; above ε only δ is left.
        with np.errstate(over="ignore"):
            d = t.delta + (1.0 - t.delta) * np.maximum(np.exp(min(t.epsilon, 700.0)) - np.exp(np.minimum(eps, 700.0)),
                                                       0.0) / (1.0 + math.exp(min(t.epsilon, 700.0)))
        return np.clip(d, 0.0, 1.0)
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
    top = t.mu ** 2 + 12.0 * t.mu + 1.0 if t.curve is Curve.GAUSSIAN else t.total_epsilon
    if not math.isfinite(top):
        return 1.0
    grid = np.unique(np.concatenate([np.linspace(0.0, top, 4001), [top]]))
    if _composed(t):  # the composed profile's best ε′ can sit far below count·ε
        grid = np.unique(np.concatenate([grid, np.geomspace(max(top, 1e-9) * 1e-6, top, 2001)]))
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
    if _composed(t) or (t.curve is Curve.APPROX and math.isfinite(t.epsilon)):
        # Symmetric curves: the Bayes test at odds (1 − π)/π gives max(π, 1 − π) + min(π, 1 − π)·δ(|log odds|).
        lo = min(prior, 1.0 - prior)
        d = float(privacy_profile(t, abs(math.log((1.0 - prior) / prior)))[0])
        return float(min(1.0, 1.0 - lo + lo * d))
    beta = trade_off(t, _ALPHA)
    success = prior * (1.0 - beta) + (1.0 - prior) * (1.0 - _ALPHA)
    return float(min(1.0, max(np.max(success), prior, 1.0 - prior)))


def compose(parts: Sequence[TradeOff]) -> TradeOff:
    """Trade-offs of the releases that read one person in, that person's composed trade-off out.

    Gaussians compose exactly in μ; any other mix composes by the basic rule on each part's (ε, δ)."""
    if not parts:
        return TradeOff.approx(0.0, 0.0)
    first = parts[0]
    same = all(p.curve is first.curve and p.epsilon == first.epsilon and p.delta == 0.0 for p in parts)
    if same and first.curve in (Curve.LAPLACE, Curve.APPROX) and len(parts) > 1:
        return TradeOff(first.curve, epsilon=first.epsilon, count=sum(p.count for p in parts))
    if all(p.curve is Curve.GAUSSIAN for p in parts):
        eps = sum(p.epsilon for p in parts)
        return TradeOff(Curve.GAUSSIAN, mu=math.sqrt(sum(p.mu ** 2 for p in parts)), epsilon=eps,
                        delta=min(1.0, sum(p.delta for p in parts)))
    if len(parts) == 1:
        return parts[0]
    return TradeOff.approx(sum(p.total_epsilon for p in parts), min(1.0, sum(p.delta * p.count for p in parts)))


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
    """A Risk with every figure (risk_of's) in, one plain sentence of what any attacker can do at most out."""
    fpr, tpr = r.tpr[-1]
    return (f"At this ε, an attacker who knows everything else can tell whether a given {unit} was in the data with "
            f"up to {_pct(tpr)} true positives at {_pct(fpr)} false positives; singling one {unit} out of "
            f"{r.n} succeeds at most {_pct(r.singling_out)} of the time (guessing: {_pct(r.singling_out_guess)}), "
            f"and inferring a yes/no attribute with a {_pct(r.prior)} prior at most {_pct(r.attribute)} "
            f"(guessing: {_pct(r.attribute_guess)}).")
