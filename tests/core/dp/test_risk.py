"""Operational risk read off a guarantee: closed forms against independent computations and simulations."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from eyedp_core.dp import calibration, risk
from eyedp_core.dp.risk import Curve, TradeOff

ALPHAS = np.array([0.0, 1e-6, 1e-3, 0.01, 0.05, 0.2, 0.5, 0.7, 0.99, 1.0])


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0])
def test_gaussian_curve_is_the_shifted_normal_test(mu):
    """f(α) = Φ(Φ⁻¹(1 − α) − μ), computed here with scipy.stats as the likelihood-ratio test's miss rate."""
    t = TradeOff.gaussian(l2_sensitivity=mu * 2.0, sigma=2.0)
    assert t.mu == pytest.approx(mu)
    want = stats.norm.cdf(stats.norm.ppf(1 - ALPHAS) - mu)
    np.testing.assert_allclose(risk.trade_off(t, ALPHAS), want, atol=1e-12)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_laplace_curve_matches_its_piecewise_closed_form(eps):
    """Dong, Roth & Su: 1 − e^ε α below e^−ε/2, e^−ε/(4α) up to 1/2, e^−ε(1 − α) above."""
    t = TradeOff.laplace(l1_sensitivity=2.0, scale=2.0 / eps)
    a = np.concatenate([ALPHAS, np.linspace(0.001, 0.999, 97)])
    e = math.exp(eps)
    want = np.where(a < 0.5 / e, 1 - e * a, np.where(a <= 0.5, 1 / (4 * e * np.maximum(a, 1e-300)), (1 - a) / e))
    np.testing.assert_allclose(risk.trade_off(t, a), want, atol=1e-12)


@pytest.mark.parametrize("t", [TradeOff.gaussian(1.0, 0.8), TradeOff.laplace(1.0, 0.5), TradeOff.approx(1.0, 1e-3),
                               TradeOff.approx(0.0, 0.0)])
def test_max_advantage_is_the_supremum_of_tpr_minus_fpr_on_the_curve(t):
    """The closed forms equal max_α (1 − α − f(α)) taken numerically on a fine grid."""
    a = np.linspace(0, 1, 200_001)
    numeric = float(np.max(1 - a - risk.trade_off(t, a)))
    assert risk.max_advantage(t) == pytest.approx(numeric, abs=2e-5)


def test_approx_advantage_and_pure_tpr_closed_forms():
    """(ε, δ): TV = (e^ε − 1 + 2δ)/(e^ε + 1); pure ε: TPR at FPR α is at most e^ε·α."""
    eps, d = 1.5, 1e-4
    assert risk.max_advantage(TradeOff.approx(eps, d)) == pytest.approx((math.exp(eps) - 1 + 2 * d) / (math.exp(eps) + 1))
    assert risk.tpr_at(TradeOff.approx(eps, 0.0), 0.01) == pytest.approx(math.exp(eps) * 0.01)
    assert risk.tpr_at(TradeOff.approx(eps, d), 0.05) == pytest.approx(math.exp(eps) * 0.05 + d)


def test_every_curve_lies_above_the_approx_curve_it_is_calibrated_to():
    """A Gaussian σ calibrated (analytically) to (ε, δ) is (ε, δ)-DP: its curve is never below f_{ε,δ}."""
    eps, d = 1.0, 1e-5
    sigma = calibration.gaussian_sigma(1.0, eps, d)
    g = TradeOff.gaussian(1.0, sigma)
    assert np.all(risk.trade_off(g, ALPHAS) >= risk.trade_off(TradeOff.approx(eps, d), ALPHAS) - 1e-9)
    assert risk.privacy_profile(g, eps)[0] <= d * (1 + 1e-6)
    # Laplace at ε is ε-DP.
    lap = TradeOff.laplace(1.0, 1.0 / eps)
    assert np.all(risk.trade_off(lap, ALPHAS) >= risk.trade_off(TradeOff.approx(eps, 0.0), ALPHAS) - 1e-12)


@pytest.mark.parametrize("t", [TradeOff.gaussian(1.0, 1.3), TradeOff.laplace(1.0, 0.7)])
def test_closed_form_privacy_profiles_equal_the_conjugate_of_the_curve(t):
    """δ(ε') = sup_α (1 − f(α) − e^ε'·α): the closed forms against the supremum on a grid."""
    a = np.linspace(0, 1, 400_001)
    beta = risk.trade_off(t, a)
    for e in [0.0, 0.3, 1.0, 1.4]:
        numeric = float(np.max(1 - beta - math.exp(e) * a))
        assert risk.privacy_profile(t, e)[0] == pytest.approx(max(numeric, 0.0), abs=1e-5)


def test_singling_out_closed_forms_and_limits():
    """Pure ε: e^ε/(e^ε + n − 1); ε = 0: 1/n; grows with ε and tends to certainty."""
    for eps, n in [(0.5, 40), (1.0, 10), (3.0, 40)]:
        e = math.exp(eps)
        assert risk.singling_out(TradeOff.approx(eps, 0.0), n) == pytest.approx(e / (e + n - 1), rel=1e-9)
    assert risk.singling_out(TradeOff.approx(0.0, 0.0), 40) == pytest.approx(1 / 40)
    values = [risk.singling_out(TradeOff.laplace(1.0, 1.0 / e), 40) for e in (0.1, 1, 3, 10, 50)]
    assert values == sorted(values) and values[-1] > 0.999
    assert risk.singling_out(TradeOff.gaussian(1.0, 1.0), 1) == 1.0


def test_singling_out_of_two_is_the_bayes_optimal_likelihood_ratio_test():
    """n = 2 is a binary test: the bound equals (1 + TV)/2, which the likelihood-ratio attacker reaches.

    Simulation: one person's count (0 or 1) released with Laplace noise at ε = 1; the attacker guesses the nearer
    value. 200,000 draws, seed fixed; tolerance 5 standard errors of a proportion."""
    eps = 1.0
    t = TradeOff.laplace(1.0, 1.0 / eps)
    bound = risk.singling_out(t, 2)
    assert bound == pytest.approx((1 + risk.max_advantage(t)) / 2, abs=1e-6)
    rng = np.random.default_rng(7)
    n = 200_000
    who = rng.integers(0, 2, n)
    out = who + rng.laplace(0, 1 / eps, n)
    hit = np.mean((out > 0.5) == (who == 1))
    se = math.sqrt(bound * (1 - bound) / n)
    assert abs(hit - bound) < 5 * se


def test_singling_out_simulation_among_many_stays_under_the_bound():
    """n = 10 people, each a one-hot count vector released with Laplace noise (L1 sensitivity 2 between any two).

    The Bayes-optimal attacker picks the largest noisy count; its success must stay under the bound at the
    ε that replacing one person costs (Δ₁ = 2)."""
    rng = np.random.default_rng(11)
    n_people, draws, b = 10, 100_000, 2.0
    who = rng.integers(0, n_people, draws)
    counts = np.zeros((draws, n_people))
    counts[np.arange(draws), who] = 1.0
    noisy = counts + rng.laplace(0, b, counts.shape)
    hit = float(np.mean(np.argmax(noisy, axis=1) == who))
    bound = risk.singling_out(TradeOff.laplace(2.0, b), n_people)
    se = math.sqrt(bound * (1 - bound) / draws)
    assert hit <= bound + 5 * se
    assert hit > 1 / n_people + 5 * math.sqrt(0.1 * 0.9 / draws)  # the attack is real, not at chance


@pytest.mark.parametrize("prior", [0.5, 0.1, 0.8])
def test_attribute_inference_against_independent_bayes_computation(prior):
    """Gaussian release of one person's attribute (0/1, σ = 1.2): the Bayes-optimal success is computed here by
    numeric integration of max(p·φ(x − 1), (1 − p)·φ(x)) and must equal the bound read off the curve."""
    sigma = 1.2
    t = TradeOff.gaussian(1.0, sigma)
    x = np.linspace(-12, 13, 500_001)
    dens = np.maximum(prior * stats.norm.pdf(x, 1, sigma), (1 - prior) * stats.norm.pdf(x, 0, sigma))
    bayes = float(np.trapezoid(dens, x))
    assert risk.attribute_inference(t, prior) == pytest.approx(bayes, abs=2e-5)
    assert risk.attribute_inference(TradeOff.approx(0.0, 0.0), prior) == pytest.approx(max(prior, 1 - prior))


def test_gaussians_compose_exactly_and_mixtures_by_basic_composition():
    """μ-GDP composes as √Σμ²: the TV of the composed pair is checked against a Monte Carlo estimate of the
    TV between N(0, I) and N(m, I) in two dimensions (seeded, 400,000 draws, 5 standard errors)."""
    a, b = TradeOff.gaussian(1.0, 1.0), TradeOff.gaussian(2.0, 2.5)
    c = risk.compose([a, b])
    assert c.curve is Curve.GAUSSIAN and c.mu == pytest.approx(math.hypot(1.0, 0.8))
    rng = np.random.default_rng(3)
    z = rng.standard_normal((400_000, 2))
    m = np.array([1.0, 0.8])
    ratio = np.exp(z @ m - 0.5 * m @ m)  # q/p at draws from p
    vals = np.maximum(0.0, 1.0 - ratio)
    assert abs(vals.mean() - risk.max_advantage(c)) < 5 * vals.std() / math.sqrt(len(vals))
    mixed = risk.compose([TradeOff.laplace(1.0, 1.0), TradeOff.approx(0.5, 1e-6)])
    assert mixed.curve is Curve.APPROX and mixed.epsilon == pytest.approx(1.5) and mixed.delta == pytest.approx(1e-6)
    assert risk.compose([]).epsilon == 0.0


def test_risk_sentence_states_the_numbers_of_its_risk():
    """The sentence quotes the 5 % TPR, singling out of n and the attribute figure, each with its guess."""
    r = risk.risk_of(TradeOff.approx(1.0, 0.0), n=40)
    s = risk.risk_sentence(r, "observer")
    assert f"up to {100 * math.e * 0.05:.3g} % true positives at 5 % false positives" in s
    assert "out of 40" in s and "guessing: 2.5 %" in s
    assert f"at most {100 * math.e / (math.e + 39):.3g} %" in s
    assert "observer" in s


def test_infinite_epsilon_allows_everything():
    """A release without a guarantee (ε = ∞) bounds nothing."""
    t = TradeOff.approx(math.inf, 0.0)
    assert risk.max_advantage(t) == 1.0 and risk.singling_out(t, 40) == 1.0
    assert risk.tpr_at(t, 0.01) == 1.0
