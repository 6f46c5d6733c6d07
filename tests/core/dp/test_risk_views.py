"""The risk line's figures and ε calibrated to a risk target (eyedp_core.dp.risk_views, PRIVACY_MODEL §16)."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import norm

from eyedp_core.dp import risk
from eyedp_core.dp.calibration import calibrate_gaussian, calibrate_laplace
from eyedp_core.dp.registry import GaussianMethod
from eyedp_core.dp.risk import TradeOff
from eyedp_core.dp.risk_views import (
    RiskTarget,
    _approx_singling_out,
    combined,
    epsilon_for_risk,
    line_risk,
    repeated,
    risk_value,
)
from eyedp_core.dp.risk_words import LINE_FPR, pure_line_risk, risk_line


@pytest.mark.parametrize("count", [1, 2, 7])
def test_repeated_gaussian_equals_compose_of_copies(count: int) -> None:
    """count Gaussian copies composed in O(1) give exactly what risk.compose gives on the list of copies."""
    t = TradeOff.gaussian(1.0, 0.7, 0.5, 1e-6)
    got, want = repeated(t, count), risk.compose([t] * count)
    assert (got.curve, got.mu, got.epsilon, got.delta) == pytest.approx((want.curve, want.mu, want.epsilon,
                                                                          want.delta), rel=1e-12)


@pytest.mark.parametrize("count", [2, 5, 12])
def test_repeated_pure_is_the_optimal_composition_and_bounds_laplace(count: int) -> None:
    """count Laplace releases of ε each: the optimal composition of ε-DP releases (risk.TradeOff.pure), whose
    figures lie between the exact Laplace composition (risk.compose, a privacy-loss distribution) and the basic
    rule's (count·ε, 0)."""
    lap = TradeOff.laplace(2.0, 2.5)  # ε = 0.8
    got = repeated(lap, count)
    assert got == TradeOff.pure(0.8, count)
    exact, basic = risk.compose([lap] * count), TradeOff.approx(0.8 * count)
    for f in (lambda t: risk.tpr_at(t, LINE_FPR), lambda t: line_risk(t, 40).singling_out):
        assert f(exact) - 1e-3 <= f(got) <= f(basic) + 1e-12
    assert repeated(TradeOff.approx(0.8, 1e-6), count) == TradeOff.approx(0.8 * count, count * 1e-6)


def test_combined_parts() -> None:
    """Sums of one ε compose as pure copies; a mix composes as risk.compose (basic rule)."""
    parts = [TradeOff.laplace(s, s / 0.3) for s in (1.0, 7.0, 20.0)]
    assert combined(parts) == TradeOff.pure(0.3, 3)
    mix = [TradeOff.laplace(1.0, 2.0), TradeOff.approx(0.1)]
    assert combined(mix) == risk.compose(mix)
    assert combined(parts[:1]) == parts[0]


def test_repeated_gaussian_is_sqrt_count() -> None:
    """k Gaussian releases of μ each are one of μ√k: the TPR at 5 % FPR is 1 − Φ(Φ⁻¹(0.95) − μ√k)."""
    t = repeated(TradeOff.gaussian(2.0, 4.0), 9)
    assert line_risk(t, 10).tpr_at(LINE_FPR) == pytest.approx(1 - norm.cdf(norm.ppf(0.95) - 0.5 * 3), abs=1e-12)


@pytest.mark.parametrize(("eps", "delta"), [(0.3, 0.0), (1.0, 1e-5), (3.0, 6.3e-4), (8.0, 1e-3)])
@pytest.mark.parametrize("n", [2, 40, 1000])
def test_approx_singling_out_matches_the_profile_at_the_curves_kinks(eps: float, delta: float, n: int) -> None:
    """The closed form equals the bound minimised over ε′ on a fine grid, with δ(ε′) = sup_α(1 − f(α) − e^ε′·α)
    taken exactly: f is piecewise linear (risk.trade_off), so the sup sits at one of its kinks."""
    t = TradeOff.approx(eps, delta)
    kinks = np.array([0.0, (1 - delta) / (1 + math.exp(eps)), 1 - delta, 1.0])
    grid = np.unique(np.concatenate([np.linspace(0.0, eps + 2.0, 2001), [eps]]))
    prof = np.max(1 - risk.trade_off(t, kinks)[None, :] - np.exp(grid)[:, None] * kinks[None, :], axis=1)
    e = np.exp(grid)
    exact = float(np.min((e + (n - 1) * prof) / (e + n - 1)))
    assert _approx_singling_out(t, n) == pytest.approx(exact, abs=1e-9)
    # the generic route (numeric sup over an α grid) agrees to its grid's error
    few = np.array([0.0, eps / 2, eps, eps + 1.0])
    generic = float(np.min((np.exp(few) + (n - 1) * risk.privacy_profile(t, few)) / (np.exp(few) + n - 1)))
    assert abs(_approx_singling_out(t, n) - generic) < 1e-4
    if delta == 0:  # pure ε: the §16 closed form e^ε/(e^ε + n − 1)
        assert _approx_singling_out(t, n) == pytest.approx(math.exp(eps) / (math.exp(eps) + n - 1), rel=1e-12)


@pytest.mark.parametrize("t", [TradeOff.gaussian(1.0, 1.0), TradeOff.laplace(1.0, 0.5)])
def test_line_risk_other_curves_are_risk_module_figures(t: TradeOff) -> None:
    """For Gaussian and Laplace curves the line reads risk.tpr_at and risk.singling_out unchanged."""
    r = line_risk(t, 40)
    assert r.tpr_at(LINE_FPR) == risk.tpr_at(t, LINE_FPR)
    assert r.singling_out == risk.singling_out(t, 40)
    assert r.singling_out_guess == 1 / 40


def test_at_zero_epsilon_every_figure_is_its_guessing_baseline() -> None:
    """ε = 0 allows nothing beyond guessing: TPR = FPR and singling out = 1/n."""
    r = line_risk(TradeOff.approx(0.0, 0.0), 40)
    assert r.tpr_at(LINE_FPR) == pytest.approx(LINE_FPR, abs=1e-12)
    assert r.singling_out == pytest.approx(1 / 40, abs=1e-12)


def test_risk_line_words_carry_the_numbers() -> None:
    """The sentence prints the figures, n and the guessing baseline."""
    r = line_risk(TradeOff.approx(1.0), 40)
    text = risk_line(r, "observer", "in the loaded data")
    assert f"{100 * r.tpr_at(LINE_FPR):.3g} %" in text and f"{100 * r.singling_out:.3g} %" in text
    assert "one out of 40 (40 observers in the loaded data" in text and "2.5 % by guessing" in text


def _gaussian_forward(delta: float, count: int):
    """ε -> the analytic Gaussian calibration's trade-off (Δ₂ = 3), composed count times."""
    def f(eps: float) -> TradeOff:
        cal = calibrate_gaussian(3.0, eps, delta, GaussianMethod.ANALYTIC)
        return repeated(TradeOff.gaussian(3.0, cal.std), count)
    return f


def _laplace_forward(count: int):
    """ε per person -> count Laplace releases of ε/count each (Δ₁ = 2), composed."""
    def f(eps: float) -> TradeOff:
        cal = calibrate_laplace(2.0, eps / count)
        return repeated(TradeOff.laplace(2.0, cal.scale), count)
    return f


@pytest.mark.parametrize(("forward", "target", "level"), [
    (_gaussian_forward(1e-5, 1), RiskTarget.TPR, 0.2),
    (_gaussian_forward(1e-5, 4), RiskTarget.SINGLING_OUT, 0.1),
    (_laplace_forward(1), RiskTarget.TPR, 0.3),
    (_laplace_forward(12), RiskTarget.SINGLING_OUT, 0.05),
])
def test_epsilon_for_risk_meets_the_target_and_one_percent_more_does_not(forward, target, level) -> None:
    """The ε found meets the target; ε·1.01 exceeds it (checked with the forward function, independently)."""
    eps = epsilon_for_risk(forward, target, level, 40)
    assert eps is not None
    assert risk_value(forward(eps), target, 40) <= level
    assert risk_value(forward(eps * 1.01), target, 40) > level


def test_epsilon_for_risk_is_monotone_in_the_target() -> None:
    """A looser target allows a larger ε."""
    f = _gaussian_forward(1e-5, 1)
    found = [epsilon_for_risk(f, RiskTarget.TPR, level, 40) for level in (0.1, 0.2, 0.5, 0.9)]
    assert all(a < b for a, b in zip(found, found[1:]))


def test_epsilon_for_risk_below_guessing_is_none() -> None:
    """A target at or under the guessing baseline (5 % TPR at 5 % FPR; 1/n) is met by no ε > 0."""
    assert epsilon_for_risk(_laplace_forward(1), RiskTarget.TPR, 0.04, 40) is None
    assert epsilon_for_risk(_laplace_forward(1), RiskTarget.SINGLING_OUT, 1 / 50, 40) is None
    with pytest.raises(ValueError):
        epsilon_for_risk(_laplace_forward(1), RiskTarget.TPR, 0.0, 40)


@pytest.mark.parametrize("eps", [0.0, 0.05, 1.0, 3.0, 9.0, 800.0])
@pytest.mark.parametrize("n", [1, 2, 40])
def test_pure_line_risk_equals_the_generic_route(eps: float, n: int) -> None:
    """The scipy-free closed forms (Home's slider) equal risk.tpr_at on the (ε, 0) curve and the singling-out
    bound of an (ε, 0) trade-off."""
    r, t = pure_line_risk(eps, n), TradeOff.approx(eps)
    assert r.tpr_at(LINE_FPR) == pytest.approx(risk.tpr_at(t, LINE_FPR), abs=1e-12)
    assert r.singling_out == pytest.approx(line_risk(t, n).singling_out, abs=1e-12)


def test_the_risk_line_and_the_report_share_one_risk_type() -> None:
    """One Risk type: the line's figures are the report's at the line's FPR (a Gaussian curve, where both read
    risk.tpr_at and risk.singling_out), and an FPR the Risk does not quote is refused, not guessed."""
    t = TradeOff.gaussian(1.0, 0.8)
    line, full = line_risk(t, 40), risk.risk_of(t, 40)
    assert type(line) is type(full)
    assert line.tpr_at(LINE_FPR) == full.tpr_at(LINE_FPR) == risk.tpr_at(t, LINE_FPR)
    assert line.singling_out == full.singling_out and line.n == full.n == 40
    assert line.advantage is None and line.attribute is None
    assert full.advantage == risk.max_advantage(t) and full.attribute == risk.attribute_inference(t, 0.5)
    with pytest.raises(KeyError):
        line.tpr_at(0.01)


def test_the_risk_type_and_the_risk_line_import_no_scipy() -> None:
    """Home's slider reads Risk and risk_line: their module stays free of scipy (and so of risk's curves)."""
    code = ("import sys; from eyedp_core.dp.risk_words import pure_line_risk, risk_line; "
            "risk_line(pure_line_risk(1.0, 40)); print('scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
