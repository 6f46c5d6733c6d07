"""Theorem 4.1, Algorithm 1 and the DP selection of the cap m (docs/PRIVACY_MODEL.md §6.5, V-LIU-5/6)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats

from eyedp_core.heatmaps import cap as hcap
from eyedp_core.heatmaps import maps as hm

G5 = np.array([[3.0, 0.0, 1.0, 2.0], [1.0, 1.0, 0.0, 4.0]])  # V-LIU-5, 2 observers × 2×2 pixels


def test_v_liu_5_expected_mse_table_and_argmin():
    m = np.arange(1, 5)
    assert np.allclose(hcap.bias_term(G5, m), [1.25, 0.3125, 0.0625, 0.0])
    assert np.allclose(hcap.expected_mse(G5, m, 0.25), [1.3125, 0.5625, 0.625, 1.0])
    assert hcap.expected_mse(G5, 2, 0.25) == pytest.approx(0.5625)
    curve = hcap.optimal_cap(G5, 0.25)
    assert curve.m_opt == 2 and curve.g_max == 4 and list(curve.m) == [1, 2, 3, 4]
    assert np.allclose(curve.variance, (m * 0.25) ** 2)
    assert not curve.private and "does not cover" in curve.note
    # The same from a dense (n, H, W) array and from a sparse matrix.
    assert np.allclose(hcap.expected_mse(G5.reshape(2, 2, 2), m, 0.25), [1.3125, 0.5625, 0.625, 1.0])
    assert np.allclose(hcap.expected_mse(sp.csr_matrix(G5), m, 0.25), [1.3125, 0.5625, 0.625, 1.0])


def test_v_liu_5_monte_carlo(rng):
    """200 000 Gaussian draws at m = 2, σ = 0.5: the empirical MSE against the uncapped map is 0.5625 ± 1%."""
    draws = 200_000
    capped = np.minimum(G5, 2).mean(axis=0)
    uncapped = G5.mean(axis=0)
    noisy = capped + rng.normal(0.0, 0.5, size=(draws, 4))
    mc = np.mean((noisy - uncapped) ** 2)
    assert mc == pytest.approx(0.5625, rel=0.01)
    # Laplace with the same std (b = σ/√2): Theorem 4.1 holds for any zero-mean noise of that variance.
    noisy_l = capped + rng.laplace(0.0, 0.5 / math.sqrt(2), size=(draws, 4))
    assert np.mean((noisy_l - uncapped) ** 2) == pytest.approx(0.5625, rel=0.015)


def test_v_liu_6_choice_depends_on_one_observer():
    g = G5.copy()
    g[1] = 4.0
    assert np.allclose(hcap.expected_mse(g, np.arange(1, 5), 0.25), [3.75, 1.5625, 0.8125, 1.0])
    assert hcap.optimal_cap(g, 0.25).m_opt == 3


def test_expected_mse_vectorised_equals_loop_reference(rng):
    df = pd.DataFrame({"observer": rng.integers(0, 30, 3000), "x": rng.normal(50, 4, 3000),
                       "y": rng.normal(40, 4, 3000)})
    gm = hm.gaze_maps(df, 100, 80, cell=2)
    dense = gm.dense()
    ms = np.array([1, 2, 3, 5, 8, 13, 40], dtype=float)
    got = hcap.expected_mse(gm, ms, 0.01)
    unc = dense.mean(axis=0)
    for m, v in zip(ms, got):
        ref = (m * 0.01) ** 2 + np.mean((np.minimum(dense, m).mean(axis=0) - unc) ** 2)
        assert v == pytest.approx(ref, rel=1e-12, abs=1e-15)
    curve = hcap.optimal_cap(gm, noise_std=lambda m: 0.02 * np.sqrt(m))
    assert np.allclose(curve.variance, 0.0004 * curve.m)
    assert curve.m_opt == curve.m[np.argmin(curve.expected_mse)]
    assert len(curve.m) == int(np.ceil(gm.g_max()))


def _neighbour_pairs(rng, n, r, B, count):
    for _ in range(count):
        base = rng.poisson(rng.uniform(0, 2, size=(n, 1)), size=(n, r)).astype(float)
        other = base.copy()
        kind = rng.integers(3)
        other[0] = (rng.poisson(3.0, r) if kind == 0 else np.full(r, B) if kind == 1 else np.zeros(r))
        yield base, other


def test_score_sensitivity_bound_holds_on_neighbours(rng):
    n, r, B = 6, 12, 5.0
    cands = np.array([1.0, 2.0, 3.0, 5.0])
    std = 0.1 * cands
    bound = hcap.cap_score_sensitivity(cands, B, n, r)
    assert bound == pytest.approx((B - 1) ** 2 * (2 * n - 1) / n ** 2)
    worst = 0.0
    for a, b in _neighbour_pairs(rng, n, r, B, 400):
        diff = np.abs(hcap.cap_scores(a, cands, B, std) - hcap.cap_scores(b, cands, B, std)).max()
        worst = max(worst, diff)
    assert worst <= bound + 1e-12
    assert worst > 0.2 * bound  # the bound is not vacuous for these neighbours
    # With a public bound C on each observer's total, the bound shrinks and still holds.
    C = 8.0
    bound_c = hcap.cap_score_sensitivity(cands, B, n, r, raw_total_bound=C)
    assert bound_c == pytest.approx(min((B - 1) ** 2 * (2 * n - 1) / n ** 2, 4 * (B - 1) * C / (n * r)))
    for a, b in _neighbour_pairs(rng, n, r, B, 300):
        diff = np.abs(hcap.cap_scores(a, cands, B, std, C) - hcap.cap_scores(b, cands, B, std, C)).max()
        assert diff <= bound_c + 1e-12


def test_exponential_selection_is_epsilon_dp_on_neighbours(rng):
    n, r, B, eps = 6, 12, 5.0, 0.7
    cands = np.array([1.0, 2.0, 3.0, 5.0])
    std = 0.3 * cands
    delta_s = hcap.cap_score_sensitivity(cands, B, n, r)
    worst = 0.0
    for a, b in _neighbour_pairs(rng, n, r, B, 200):
        pa = hcap.selection_probabilities(hcap.cap_scores(a, cands, B, std), eps, delta_s)
        pb = hcap.selection_probabilities(hcap.cap_scores(b, cands, B, std), eps, delta_s)
        worst = max(worst, np.abs(np.log(pa / pb)).max())
    assert worst <= eps + 1e-9


def test_private_selection_samples_the_exponential_mechanism(rng):
    n, r, B, eps = 6, 12, 5.0, 2.0
    cands = np.array([1.0, 2.0, 3.0, 5.0])
    std = 0.3 * cands
    maps = rng.poisson(1.5, size=(n, r)).astype(float)
    p = hcap.selection_probabilities(hcap.cap_scores(maps, cands, B, std), eps,
                                     hcap.cap_score_sensitivity(cands, B, n, r))
    picks = [hcap.select_cap_private(maps, cands, B, std, eps).m for _ in range(3000)]
    counts = np.array([picks.count(c) for c in cands])
    # OpenDP draws the choices (no seed): χ² at 10⁻⁶ fails a correct sampler about once in a million runs.
    assert stats.chisquare(counts, p * counts.sum()).pvalue > 1e-6
    sel = hcap.select_cap_private(maps, cands, B, std, eps, method="report-noisy-min")
    assert sel.m in cands and sel.epsilon == eps and sel.method == "report-noisy-min"
    assert f"ε = {eps:g}" in sel.note
    with pytest.raises(ValueError):
        hcap.select_cap_private(maps, [1.0, 6.0], B, [0.1, 0.2], eps)


def test_selection_prefers_the_best_cap_when_epsilon_is_large(rng):
    # Every observer dwells 6 units on the same cells: capping at m < 6 costs a large bias, so m = 6 wins.
    maps = np.zeros((50, 30))
    maps[:, :10] = 6.0
    cands = np.array([1.0, 3.0, 6.0])
    std = 0.001 * cands
    scores = hcap.cap_scores(maps, cands, 6.0, std)
    assert np.argmin(scores) == 2
    picks = [hcap.select_cap_private(maps, cands, 6.0, std, 50.0).m for _ in range(50)]
    assert picks.count(6.0) >= 45
