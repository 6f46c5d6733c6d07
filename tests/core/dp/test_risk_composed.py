"""Risk of composed releases: tpr_at_fpr for Gaussian and Laplace, Laplace compositions through a privacy-loss
distribution checked against an independent FFT convolution, pure-DP compositions against brute force."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, optimize

from eyedp_core.dp import risk
from eyedp_core.dp.registry import Family
from eyedp_core.dp.risk import Curve, TradeOff


def _laplace_pdf(x: float, centre: float, b: float) -> float:
    return math.exp(-abs(x - centre) / b) / (2.0 * b)


@pytest.mark.parametrize(("delta", "b", "fpr"), [(1.0, 1.0, 0.05), (2.0, 0.8, 0.01), (0.5, 2.0, 0.2)])
def test_laplace_single_release_against_numeric_integration(delta, b, fpr):
    """The likelihood ratio of Lap(Δ, b) to Lap(0, b) grows with x, so the best test says "present" above a
    threshold c: find c with ∫_c^∞ of the absent density = FPR, then integrate the present density above c."""
    def tail(centre: float, c: float) -> float:
        return integrate.quad(_laplace_pdf, c, np.inf, args=(centre, b), epsabs=1e-13, epsrel=1e-12)[0]

    c = optimize.brentq(lambda c: tail(0.0, c) - fpr, -50.0, 50.0, xtol=1e-14)
    want = tail(delta, c)
    assert risk.tpr_at_fpr(Family.LAPLACE, delta, b, fpr) == pytest.approx(want, abs=1e-9)


def _fft_composed_pmf(eps: float, count: int, h: float) -> tuple[np.ndarray, np.ndarray]:
    """The Laplace privacy loss rounded up to multiples of h, convolved `count` times by FFT (independent of
    dp-accounting): P(L ≤ l) = ½·e^((l − ε)/2) on [−ε, ε) with atoms ½·e^−ε at −ε and ½ at ε."""
    top = int(math.ceil(eps / h - 1e-9))
    k = np.arange(-top, top + 1)

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.where(x < -eps, 0.0, np.where(x >= eps - 1e-12, 1.0, 0.5 * np.exp((x - eps) / 2.0)))

    one = cdf(k * h) - cdf((k - 1) * h)
    n = count * (one.size - 1) + 1
    size = 1 << (n - 1).bit_length()
    pmf = np.fft.irfft(np.fft.rfft(one, size) ** count, size)[:n]
    return np.arange(-count * top, count * top + 1) * h, np.clip(pmf, 0.0, None)


def _tpr_from_profile(loss: np.ndarray, p: np.ndarray, fpr: float) -> float:
    """TPR = 1 − f(α), f(α) = sup_ε′ max(0, 1 − δ(ε′) − e^ε′α, e^−ε′(1 − δ(ε′) − α)) over the grid's ε′ ≥ 0."""
    grid = loss[loss >= 0]
    q = p * np.exp(-loss)
    delta = np.array([np.sum(p[loss > e]) - math.exp(e) * np.sum(q[loss > e]) for e in grid])
    e = np.exp(grid)
    f = np.max(np.maximum.reduce([np.zeros_like(grid), 1 - delta - e * fpr, (1 - delta - fpr) / e]))
    return 1.0 - float(f)


@pytest.mark.parametrize(("eps", "count"), [(1.0, 3), (0.5, 4), (0.25, 2)])
def test_laplace_composition_against_an_independent_fft_convolution(eps, count):
    loss, p = _fft_composed_pmf(eps, count, 1e-4)
    keep = p > 1e-15  # the δ sums run over the atoms that carry mass
    loss, p = loss[keep], p[keep]
    for fpr in (0.01, 0.05):
        got = risk.tpr_at_fpr(Family.LAPLACE, 1.0, 1.0 / eps, fpr, count=count)
        assert got == pytest.approx(_tpr_from_profile(loss, p, fpr), abs=1e-6)
    t = TradeOff.from_family(Family.LAPLACE, 1.0, 1.0 / eps, count)
    for e in (0.0, 0.3, eps, 1.5 * eps):
        want = np.sum(p[loss > e]) - math.exp(e) * np.sum(p[loss > e] * np.exp(-loss[loss > e]))
        assert float(risk.privacy_profile(t, e)[0]) == pytest.approx(want, abs=1e-6)


def test_composition_sits_between_one_release_and_the_basic_rule():
    """k Laplace releases of ε each: more than one release allows, less than one release of k·ε allows."""
    for fpr in (0.01, 0.05):
        one = risk.tpr_at_fpr(Family.LAPLACE, 1.0, 1.0, fpr)
        composed = risk.tpr_at_fpr(Family.LAPLACE, 1.0, 1.0, fpr, count=3)
        basic = risk.tpr_at(TradeOff.approx(3.0), fpr)
        assert one < composed < basic


def test_gaussian_count_is_exact():
    """k Gaussian releases are one with μ = √k·Δ/σ: TPR = Φ(μ − Φ⁻¹(1 − α))."""
    from scipy.stats import norm

    got = risk.tpr_at_fpr(Family.GAUSSIAN, 1.0, 2.0, 0.05, count=9)
    assert got == pytest.approx(norm.cdf(1.5 - norm.ppf(0.95)), abs=1e-12)


def test_pure_composition_against_brute_force_enumeration():
    """Three ε-DP releases in the worst case (randomised response): enumerate the 8 outcomes, sort them by
    likelihood ratio and read the Neyman–Pearson curve; risk's binomial form gives the same."""
    eps, count = 0.7, 3
    keep = math.exp(eps) / (1 + math.exp(eps))
    outcomes = list(itertools.product([0, 1], repeat=count))
    p = np.array([np.prod([keep if o else 1 - keep for o in w]) for w in outcomes])
    q = np.array([np.prod([1 - keep if o else keep for o in w]) for w in outcomes])
    order = np.argsort(-(p / q), kind="stable")
    tpr, fpr = np.r_[0, np.cumsum(p[order])], np.r_[0, np.cumsum(q[order])]
    t = TradeOff.pure(eps, count)
    for a in (0.01, 0.05, 0.3):
        assert risk.tpr_at(t, a) == pytest.approx(float(np.interp(a, fpr, tpr)), abs=1e-12)
    assert risk.max_advantage(t) == pytest.approx(float(np.max(tpr - fpr)), abs=1e-12)


@pytest.mark.parametrize("t", [TradeOff.pure(0.4, 5), TradeOff(Curve.LAPLACE, epsilon=0.6, count=3)])
@pytest.mark.parametrize("prior", [0.5, 0.2, 0.9])
def test_attribute_inference_of_a_composition_is_the_best_test_on_its_curve(t, prior):
    """The closed form (hockey-stick divergence at the log prior odds) equals the best test read off the curve;
    for Laplace the curve's far end carries the grid's pessimism (absent-side mass rounded away, ≤ 1e-4)."""
    a = np.linspace(0, 1, 400_001)
    best = np.max(prior * (1 - risk.trade_off(t, a)) + (1 - prior) * (1 - a))
    tol = 1e-6 if t.curve is Curve.APPROX else 1e-4  # the α grid misses the vertex by < 1e-6
    assert risk.attribute_inference(t, prior) == pytest.approx(max(best, prior, 1 - prior), abs=tol)


def _all_risks(t: TradeOff) -> list[float]:
    return [risk.tpr_at(t, 0.01), risk.tpr_at(t, 0.05), risk.max_advantage(t), risk.singling_out(t, 40),
            risk.attribute_inference(t, 0.5), risk.attribute_inference(t, 0.3)]


@pytest.mark.parametrize("family", [Family.LAPLACE, Family.GAUSSIAN])
@pytest.mark.parametrize("count", [1, 4])
def test_every_risk_grows_with_epsilon(family, count):
    """Smaller noise (larger ε) never lowers a risk; the curve of ε = 1/scale is walked from 0.05 to 8."""
    rows = [_all_risks(TradeOff.from_family(family, 1.0, 1.0 / e, count)) for e in (0.05, 0.2, 0.5, 1, 2, 4, 8)]
    diffs = np.diff(np.array(rows), axis=0)
    assert (diffs >= -1e-9).all(), diffs


@pytest.mark.parametrize("t", [TradeOff.from_family(Family.LAPLACE, 0.0, 1.0, 5),
                               TradeOff.from_family(Family.GAUSSIAN, 0.0, 1.0, 5), TradeOff.pure(0.0, 7)])
def test_at_zero_epsilon_every_risk_is_its_guessing_baseline(t):
    assert risk.tpr_at(t, 0.01) == pytest.approx(0.01, abs=1e-12)
    assert risk.tpr_at(t, 0.05) == pytest.approx(0.05, abs=1e-12)
    assert risk.max_advantage(t) == pytest.approx(0.0, abs=1e-12)
    assert risk.singling_out(t, 40) == pytest.approx(1 / 40, abs=1e-12)
    assert risk.attribute_inference(t, 0.3) == pytest.approx(0.7, abs=1e-12)


def test_tiny_epsilon_compositions_approach_the_baseline():
    for t in (TradeOff(Curve.LAPLACE, epsilon=1e-4, count=3), TradeOff.pure(1e-6, 50)):
        assert risk.tpr_at(t, 0.05) == pytest.approx(0.05, abs=1e-3)
        assert risk.singling_out(t, 40) == pytest.approx(1 / 40, abs=1e-3)


def test_compose_keeps_equal_laplace_releases_as_a_count():
    parts = [TradeOff.laplace(1.0, 2.0)] * 3
    t = risk.compose(parts)
    assert (t.curve, t.epsilon, t.count) == (Curve.LAPLACE, 0.5, 3)
    mixed = risk.compose([TradeOff(Curve.LAPLACE, epsilon=0.5, count=3), TradeOff.approx(1.0, 1e-6)])
    assert mixed.epsilon == pytest.approx(2.5) and mixed.delta == pytest.approx(1e-6)


def test_from_family_refuses_families_without_a_curve():
    with pytest.raises(ValueError, match="exponential"):
        TradeOff.from_family(Family.EXPONENTIAL, 1.0, 1.0)
    with pytest.raises(ValueError, match="fpr"):
        risk.tpr_at_fpr(Family.LAPLACE, 1.0, 1.0, 1.5)
