"""Calibration and preview noise against docs/PRIVACY_MODEL.md §6 and VECTORS.md (V-LPA-1, V-LIU-*, V-LIB-1)."""
from __future__ import annotations

import math
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
from scipy import stats

from eyedp_core.dp.calibration import (
    Calibration,
    calibrate_gaussian,
    calibrate_laplace,
    classical_sigma_formula,
    gaussian_delta,
    gaussian_sigma,
    laplace_scale,
)
from eyedp_core.dp.noise import gaussian_noise, laplace_noise

DELTA_900 = 900 ** -1.5  # V-LIU-1: delta = n^-1.5 for n = 900 observers
D2_LIU = 1.0 / 3.0  # m*sqrt(r)/n = 300/900


def bw_delta(sigma: float, d2: float, eps: float) -> float:
    """Balle–Wang exact δ written straight from docs/PRIVACY_MODEL.md §6.2 with scipy.stats.norm."""
    a = d2 / (2 * sigma) - eps * sigma / d2
    b = -d2 / (2 * sigma) - eps * sigma / d2
    return stats.norm.cdf(a) - math.exp(eps) * stats.norm.cdf(b)


def liu_sigma(d2: float, eps: float, delta: float, r: float) -> float:
    """Liu et al. Theorem 3.4, written as Δ2·√(ε/2 + ln(r/δ))/ε (docs/PRIVACY_MODEL.md §6.2 table)."""
    return d2 * math.sqrt(eps / 2 + math.log(r / delta)) / eps


# ---------------------------------------------------------------------------------------------
# Laplace


def test_v_lpa_1_public_bound_scale():
    t, lo, hi, eps = 100, 0.0, 2.0, 0.5
    d1 = t * (hi - lo)
    assert laplace_scale(d1, eps) == pytest.approx(400.0, rel=1e-12)
    cal = calibrate_laplace(d1, eps)
    assert cal.std == pytest.approx(565.685, rel=1e-6)
    # aggregate mean over N = 20 participants: sensitivity divided by N
    assert laplace_scale(d1 / 20, eps) == pytest.approx(20.0, rel=1e-12)


def test_v_lib_1_laplace_variance_and_calibration_text():
    cal = calibrate_laplace(100, 1)
    assert isinstance(cal, Calibration)
    assert (cal.mechanism, cal.method, cal.delta, cal.valid) == ("laplace", "laplace", 0.0, True)
    assert cal.scale == 100.0
    assert cal.std ** 2 == pytest.approx(20000.0, rel=1e-12)  # diffprivlib variance 2*100^2
    assert cal.formula_tex == r"b = \Delta_1/\varepsilon"
    assert cal.plugged_tex == "b = 100 / 1 = 100"
    assert "pure" in cal.guarantee
    with pytest.raises(FrozenInstanceError):
        cal.scale = 1.0  # type: ignore[misc]


def test_laplace_plugged_numbers_use_four_significant_digits():
    cal = calibrate_laplace(1.0 / 3.0, 0.7)
    assert cal.plugged_tex == "b = 0.3333 / 0.7 = 0.4762"


def test_laplace_noise_matches_scipy_laplace(rng):
    b = 2.5
    z = laplace_noise(rng, b, 20000)
    assert z.shape == (20000,)
    # KS at fixed seed; p > 1e-3 is a loose bound that the correct law passes for almost any seed.
    assert stats.kstest(z, stats.laplace(scale=b).cdf).pvalue > 1e-3
    # and the same test rejects a law whose std is off by √2 (the std-vs-scale confusion of §6.3)
    assert stats.kstest(z, stats.laplace(scale=b * math.sqrt(2)).cdf).pvalue < 1e-6
    assert laplace_noise(rng, b, (3, 4)).shape == (3, 4)


def test_gaussian_noise_matches_scipy_norm(rng):
    sigma = 1.7
    z = gaussian_noise(rng, sigma, 20000)
    assert stats.kstest(z, stats.norm(scale=sigma).cdf).pvalue > 1e-3
    assert stats.kstest(z, stats.norm(scale=1.1 * sigma).cdf).pvalue < 1e-6
    assert gaussian_noise(rng, sigma, (2, 5)).shape == (2, 5)


def test_noise_seed_reproducible():
    a = laplace_noise(np.random.default_rng(5), 1.0, 10)
    b = laplace_noise(np.random.default_rng(5), 1.0, 10)
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# Gaussian: V-LIU-1, V-LIU-2, V-LIU-4, V-LIU-7, V-LIB-1


def test_v_liu_1_three_calibrations_and_exact_deltas():
    analytic = gaussian_sigma(D2_LIU, 1.0, DELTA_900)
    assert analytic == pytest.approx(1.1426219786, rel=1e-9)  # V-LIB-1 diffprivlib GaussianAnalytic
    classical = classical_sigma_formula(D2_LIU, 1.0, DELTA_900)
    assert classical == pytest.approx(1.5221867090, rel=1e-9)  # V-LIB-1 diffprivlib Gaussian
    assert classical == pytest.approx(D2_LIU * math.sqrt(2 * math.log(1.25 / DELTA_900)), rel=1e-12)
    liu = liu_sigma(D2_LIU, 1.0, DELTA_900, 90000)
    assert liu == pytest.approx(1.5674167, rel=1e-6)
    assert gaussian_delta(liu, D2_LIU, 1.0) == pytest.approx(8.828e-8, rel=1e-3)
    assert gaussian_delta(classical, D2_LIU, 1.0) == pytest.approx(1.796e-7, rel=1e-3)
    assert gaussian_delta(analytic, D2_LIU, 1.0) == pytest.approx(DELTA_900, rel=1e-8)


# (eps, delta, r, Liu sigma/Δ2, analytic sigma/Δ2, delta achieved by Liu's sigma) — VECTORS V-LIU-2
V_LIU_2 = [
    (1, DELTA_900, 1, 3.2716, 3.4279, 7.068e-5),
    (1, DELTA_900, 2, 3.3759, 3.4279, 4.602e-5),
    (1, DELTA_900, 3, 3.4354, 3.4279, 3.588e-5),
    (1, 1e-5, 1, 3.4660, 3.7306, 3.154e-5),
    (1, 1e-10, 1, 4.8503, 5.8678, 3.992e-8),
    (1, 1e-10, 10000, 5.7216, 5.8678, 2.507e-10),
    (1, 1e-10, 90000, 5.9104, 5.8678, 7.619e-11),
    (3, DELTA_900, 1, 1.1404, 1.2974, 2.881e-4),
    (0.1, 1e-6, 1, 37.2364, 36.3047, 6.631e-7),
]


@pytest.mark.parametrize(("eps", "delta", "r", "liu", "analytic", "achieved"), V_LIU_2)
def test_v_liu_2_theorem_3_4_versus_analytic(eps, delta, r, liu, analytic, achieved):
    assert liu_sigma(1.0, eps, delta, r) == pytest.approx(liu, abs=6e-5)
    assert gaussian_sigma(1.0, eps, delta) == pytest.approx(analytic, abs=6e-5)
    assert gaussian_delta(liu_sigma(1.0, eps, delta, r), 1.0, eps) == pytest.approx(achieved, rel=2e-3)


def test_v_liu_4_other_settings():
    assert gaussian_sigma(D2_LIU, 3.0, DELTA_900) == pytest.approx(0.4324517, rel=1e-6)
    assert gaussian_sigma(D2_LIU, 0.5, DELTA_900) == pytest.approx(2.1334656, rel=1e-6)
    assert gaussian_sigma(D2_LIU, 0.5, DELTA_900, method="classical") == pytest.approx(3.0443734, rel=1e-6)


def test_v_liu_7_total_count_cap():
    d2 = min(300.0, math.sqrt(1000.0)) / 900
    assert d2 == pytest.approx(0.0351364, rel=1e-5)
    assert gaussian_sigma(d2, 1.0, DELTA_900) == pytest.approx(0.1204429, rel=1e-6)


@pytest.mark.parametrize("eps", [0.05, 0.3, 1.0, 2.0, 8.0])
@pytest.mark.parametrize("delta", [1e-8, 1e-5, 1e-2, 0.3])
def test_analytic_sigma_meets_balle_wang_condition_with_equality(eps, delta):
    d2 = 0.7
    sigma = gaussian_sigma(d2, eps, delta)
    # recomputed independently with scipy.stats.norm from the §6.2 formula
    assert bw_delta(sigma, d2, eps) == pytest.approx(delta, rel=1e-6)
    # smallest such sigma: 0.01% less noise already violates the target δ
    assert bw_delta(sigma * (1 - 1e-4), d2, eps) > delta
    assert gaussian_delta(sigma, d2, eps) == pytest.approx(bw_delta(sigma, d2, eps), rel=1e-9)


@pytest.mark.parametrize("eps", [1e-3, 1e-2, 0.5, 5.0, 20.0, 50.0])
@pytest.mark.parametrize("delta", [1e-15, 1e-12, 1e-6, 0.1, 0.5])
def test_analytic_sigma_robust_over_the_whole_range(eps, delta):
    sigma = gaussian_sigma(1.0, eps, delta)
    assert math.isfinite(sigma) and sigma > 0
    assert gaussian_delta(sigma, 1.0, eps) == pytest.approx(delta, rel=1e-6)
    assert gaussian_delta(sigma * (1 - 1e-4), 1.0, eps) > delta


def test_gaussian_delta_accurate_for_tiny_delta_against_high_precision():
    import mpmath  # in requirements-dev.txt: a skip would hide the only high-precision check of δ
    mpmath.mp.dps = 60

    def delta_mp(sigma, eps):
        a = mpmath.mpf(1) / (2 * sigma) - eps * sigma
        b = -mpmath.mpf(1) / (2 * sigma) - eps * sigma
        return mpmath.ncdf(a) - mpmath.e ** eps * mpmath.ncdf(b)

    for sigma, eps in [(8.0, 1.0), (9000.0, 1e-3), (0.2, 50.0), (2.0, 5.0)]:
        exact = float(delta_mp(mpmath.mpf(sigma), mpmath.mpf(eps)))
        assert exact < 1e-12  # these are the tiny-δ cases where a naive cdf difference fails
        assert gaussian_delta(sigma, 1.0, eps) == pytest.approx(exact, rel=1e-7)


def test_gaussian_delta_edge_cases_and_monotone():
    assert gaussian_delta(1.0, 0.0, 1.0) == 0.0
    assert gaussian_delta(0.0, 1.0, 1.0) == 1.0
    sigmas = np.linspace(0.5, 5, 20)
    deltas = [gaussian_delta(s, 1.0, 1.0) for s in sigmas]
    assert np.all(np.diff(deltas) < 0)


def test_gaussian_sigma_scales_linearly_with_sensitivity():
    assert gaussian_sigma(0.0, 1.0, 1e-5) == 0.0
    s1 = gaussian_sigma(1.0, 0.8, 1e-6)
    assert gaussian_sigma(37.0, 0.8, 1e-6) == pytest.approx(37.0 * s1, rel=1e-10)


def test_classical_refuses_epsilon_at_or_above_one():
    for eps in (1.0, 1.5):
        with pytest.raises(ValueError, match="analytic"):
            gaussian_sigma(D2_LIU, eps, DELTA_900, method="classical")
        with pytest.raises(ValueError, match="analytic"):
            calibrate_gaussian(D2_LIU, eps, DELTA_900, method="classical")


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: laplace_scale(1.0, 0.0), "epsilon"),
        (lambda: laplace_scale(1.0, -1.0), "epsilon"),
        (lambda: laplace_scale(-1.0, 1.0), "sensitivity"),
        (lambda: gaussian_sigma(1.0, 1.0, 0.0), "delta"),
        (lambda: gaussian_sigma(1.0, 1.0, 1.0), "delta"),
        (lambda: gaussian_sigma(-1.0, 1.0, 0.1), "sensitivity"),
        (lambda: gaussian_sigma(1.0, float("nan"), 0.1), "epsilon"),
        (lambda: gaussian_sigma(1.0, 1.0, 0.1, method="liu"), "method"),
        (lambda: gaussian_delta(1.0, 1.0, 0.0), "epsilon"),
        (lambda: laplace_noise(np.random.default_rng(0), -1.0, 3), "scale"),
        (lambda: gaussian_noise(np.random.default_rng(0), -1.0, 3), "sigma"),
    ],
)
def test_invalid_inputs_raise_clear_errors(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_calibrate_gaussian_analytic_fields():
    cal = calibrate_gaussian(D2_LIU, 1.0, DELTA_900)
    assert (cal.mechanism, cal.method, cal.valid) == ("gaussian", "analytic", True)
    assert cal.scale == cal.std == pytest.approx(1.1426220, rel=1e-6)
    assert (cal.epsilon, cal.delta, cal.sensitivity) == (1.0, DELTA_900, D2_LIU)
    assert "Balle" in cal.guarantee
    assert r"\Phi" in cal.formula_tex
    for number in ("0.3333", r"3.704 \times 10^{-5}", "1.143"):
        assert number in cal.plugged_tex


def test_calibrate_gaussian_classical_fields():
    cal = calibrate_gaussian(D2_LIU, 0.5, DELTA_900, method="classical")
    assert cal.method == "classical"
    assert cal.scale == pytest.approx(3.0443734, rel=1e-6)
    assert cal.plugged_tex.endswith("= 3.044")
    assert "0.5" in cal.plugged_tex and "1.25" in cal.plugged_tex
    assert "ε < 1" in cal.guarantee
