"""Utility metrics (docs/PRIVACY_MODEL.md §5; VECTORS.md V-NMSE-1/2/3, V-LPA-2) and correlation curves."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from eyedp_core.dp.noise import laplace_noise
from eyedp_core.metrics import (
    acf,
    lag_correlation,
    mean_nmse_over_runs,
    mse,
    nmse,
    pearson_cc,
    utility,
    utility_db,
    var_degenerate,
)

X1 = np.array([1.0, 2.0, 3.0, 4.0])
Y1 = np.array([1.5, 1.5, 3.5, 3.0])
X_LPA2 = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.6, 0.2, 0.5])


def test_v_nmse_1():
    assert mse(X1, Y1) == pytest.approx(0.4375)
    assert nmse(X1, Y1, "paper") == pytest.approx(0.4375 / (2.5 * 2.375), rel=1e-12)
    assert nmse(X1, Y1, "paper") == pytest.approx(0.07368421, rel=1e-7)
    assert nmse(X1, Y1) == pytest.approx(0.35, rel=1e-12)
    assert nmse(X1, Y1, "range", bounds=(0, 4)) == pytest.approx(0.02734375, rel=1e-12)


def test_v_nmse_2_sign_pathology():
    x = np.array([-1.0, 1.0, -2.0, 2.2])
    y = np.array([-1.5, 0.8, -2.4, 2.0])
    assert nmse(x, y, "paper") == pytest.approx(-8.909091, rel=1e-6)
    assert nmse(x, y, "paper_abs") == pytest.approx(8.909091, rel=1e-6)
    assert nmse(x, y, "var") == pytest.approx(0.1225 / 2.7075, rel=1e-12)
    assert utility(nmse(x, y, "paper")) < 0


def test_v_lpa_2_and_v_nmse_3_monte_carlo(rng):
    runs = X_LPA2 + laplace_noise(rng, 1.0, (2000, X_LPA2.size))  # b = Δ1/ε = 8/8
    per_run_mse = mse(runs, X_LPA2, axis=-1)
    assert 1.85 <= per_run_mse.mean() <= 2.15                         # E[MSE] = 2b² = 2
    var_nmse = nmse(np.broadcast_to(X_LPA2, runs.shape), runs)
    assert 27.4 <= var_nmse.mean() <= 31.9                            # 2 / 0.0674609375 = 29.65
    paper = nmse(np.broadcast_to(X_LPA2, runs.shape), runs, "paper")
    assert 0.12 <= np.mean(paper < 0) <= 0.23                         # observed 0.175
    # the negative fraction is P(mean of 8 Lap(1) < −mean x): check against the noise itself
    assert np.mean(paper < 0) == np.mean(runs.mean(axis=1) < 0)


def test_vectorised_over_rows_and_axis():
    x = np.stack([X1, X1 * 2 + 1, X_LPA2[:4]])
    y = x + np.array([[0.1, -0.2, 0.3, 0.0]])
    rowwise = np.array([nmse(a, b) for a, b in zip(x, y)])
    np.testing.assert_allclose(nmse(x, y), rowwise, rtol=1e-12)
    np.testing.assert_allclose(nmse(x.T, y.T, axis=0), rowwise, rtol=1e-12)
    # per-row bounds broadcast against the result
    lo, hi = np.array([0.0, 0.0, 0.0]), np.array([4.0, 10.0, 1.0])
    expected = np.mean((x - y) ** 2, axis=1) / (hi - lo) ** 2
    np.testing.assert_allclose(nmse(x, y, "range", bounds=(lo, hi)), expected, rtol=1e-12)


def test_var_fallback_to_range_and_nan():
    x = np.full(10, 0.3)
    y = x + 0.1
    assert var_degenerate(x, bounds=(0, 1)) and var_degenerate(x)
    assert nmse(x, y, bounds=(0, 1)) == pytest.approx(0.01, rel=1e-9)
    assert math.isnan(nmse(x, y))
    rows = np.stack([x, np.linspace(0, 1, 10)])
    out = nmse(rows, rows + 0.1)
    assert math.isnan(out[0]) and np.isfinite(out[1])
    with pytest.raises(ValueError, match="bounds"):
        nmse(x, y, "range")


def test_paper_undefined_near_zero_denominator():
    x = np.array([-1.0, 1.0, -1.0, 1.0])  # mean exactly 0
    y = x + 0.5
    assert math.isnan(nmse(x, y, "paper"))
    assert math.isnan(nmse(x, y, "paper_abs", bounds=(-1, 1)))
    tiny = np.array([1e-8, -1e-8 + 1e-9, 2e-9, 0.0])  # x̄ = 7.5e-10
    # |x̄·ȳ| ≈ 7.5e-13 < τ·(U−L)² = 4e-12: undefined; with ȳ ≈ 0.5 it is 3.75e-10: defined
    assert math.isnan(nmse(tiny, tiny + 1e-3, "paper", bounds=(-1, 1)))
    assert np.isfinite(nmse(tiny, tiny + 0.5, "paper", bounds=(-1, 1)))
    assert np.isfinite(nmse(X1, Y1, "paper", bounds=(0, 4)))


def test_mean_nmse_over_runs_is_ratio_of_means(rng):
    x = np.stack([X_LPA2, X_LPA2[::-1] * 3])
    runs = x + laplace_noise(rng, 0.5, (50, *x.shape))
    mean_mse = np.mean((runs - x) ** 2, axis=(0, 2))
    np.testing.assert_allclose(mean_nmse_over_runs(x, runs, "var"), mean_mse / x.var(axis=1), rtol=1e-12)
    np.testing.assert_allclose(mean_nmse_over_runs(x, runs, "range", bounds=(0, 3)), mean_mse / 9, rtol=1e-12)
    expected_paper = mean_mse / (x.mean(axis=1) * runs.mean(axis=(0, 2)))
    np.testing.assert_allclose(mean_nmse_over_runs(x, runs, "paper"), expected_paper, rtol=1e-12)
    # not the mean of per-run ratios
    per_run = nmse(np.broadcast_to(x, runs.shape), runs, "paper").mean(axis=0)
    assert not np.allclose(per_run, expected_paper)
    with pytest.raises(ValueError):
        mean_nmse_over_runs(x, runs[:, 0], "var")


def test_utility_and_db():
    assert utility(0.35) == pytest.approx(1 / 0.35)
    assert utility_db(0.35) == pytest.approx(10 * math.log10(1 / 0.35))
    assert utility_db(0.1) == pytest.approx(10.0)
    assert utility(0.0) == math.inf
    np.testing.assert_allclose(utility_db(np.array([1.0, 0.01])), [0.0, 20.0])


def test_mse_axis():
    a = np.arange(6.0).reshape(2, 3)
    b = np.zeros((2, 3))
    assert mse(a, b) == pytest.approx(np.mean(a**2))
    np.testing.assert_allclose(mse(a, b, axis=1), [5 / 3, 50 / 3])


def test_pearson_cc_matches_scipy_and_handles_constants(rng):
    a, b = rng.normal(size=(2, 50))
    assert pearson_cc(a, a + 0.3 * b) == pytest.approx(stats.pearsonr(a, a + 0.3 * b).statistic, rel=1e-12)
    m1, m2 = rng.normal(size=(2, 4, 30))
    expected = [np.corrcoef(u, v)[0, 1] for u, v in zip(m1, m2)]
    np.testing.assert_allclose(pearson_cc(m1, m2, axis=1), expected, rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(pearson_cc(np.full(5, 2.0), np.arange(5.0)))
        assert math.isnan(pearson_cc(np.full(5, 0.1), np.full(5, 0.1)))


def test_lag_correlation_against_direct_loop(rng):
    s = np.cumsum(rng.normal(size=(40, 25)), axis=1)
    curve = lag_correlation(s, ref_index=4, max_lag=12)
    direct = [np.corrcoef(s[:, 4], s[:, 4 + d])[0, 1] for d in range(13)]
    np.testing.assert_allclose(curve, direct, rtol=1e-12)
    assert lag_correlation(s).shape == (25 - 4,)


def test_lag_correlation_white_noise_is_near_zero(rng):
    p = 2000
    curve = lag_correlation(rng.normal(size=(p, 30)), ref_index=4)
    assert curve[0] == pytest.approx(1.0)
    # sample CC of independent columns has sd 1/√P ≈ 0.022; allow 5 sd
    assert np.max(np.abs(curve[1:])) < 5 / math.sqrt(p)


def test_lag_correlation_random_walk_is_near_one(rng):
    p, ref = 2000, 200
    walks = np.cumsum(rng.normal(size=(p, 221)), axis=1)
    curve = lag_correlation(walks, ref_index=ref, max_lag=20)
    # theory: corr(S_a, S_b) = √(a/b) with a = ref + 1 steps, b = ref + 1 + Δ
    theory = np.sqrt((ref + 1) / (ref + 1 + np.arange(21)))
    assert np.all(curve > 0.9)
    np.testing.assert_allclose(curve, theory, atol=0.02)


def test_lag_correlation_validation():
    with pytest.raises(ValueError):
        lag_correlation(np.zeros((3, 5)), ref_index=5)
    with pytest.raises(ValueError):
        lag_correlation(np.zeros((3, 5)), ref_index=2, max_lag=3)
    with pytest.raises(ValueError):
        lag_correlation(np.zeros(5))


def test_acf_against_np_correlate(rng):
    x = rng.normal(size=(3, 57)).cumsum(axis=1)
    got = acf(x, 20)
    for row, g in zip(x, got):
        xc = row - row.mean()
        full = np.correlate(xc, xc, mode="full")[row.size - 1:]
        np.testing.assert_allclose(g, full[:21] / full[0], rtol=1e-10, atol=1e-12)
    single = acf(x[0], 5)
    assert single.shape == (6,) and single[0] == pytest.approx(1.0)
    assert np.all(np.isnan(acf(np.full(10, 3.0), 3)))
    with pytest.raises(ValueError):
        acf(x, 57)
