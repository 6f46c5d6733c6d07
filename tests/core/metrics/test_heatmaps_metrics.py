"""Heatmap similarity metrics (eyedp_core.heatmaps.saliency, eyedp_core.metrics) against independent computations."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.special import rel_entr
from scipy.stats import wasserstein_distance

from eyedp_core import metrics
from eyedp_core.heatmaps import saliency as sm


def test_cc_mse_nmse(rng):
    a = rng.random((30, 40))
    b = a + rng.normal(0, 0.3, a.shape)
    assert metrics.pearson_cc(a, b) == pytest.approx(np.corrcoef(a.ravel(), b.ravel())[0, 1], rel=1e-12)
    assert metrics.mse(a, b) == pytest.approx(((a - b) ** 2).sum() / a.size, rel=1e-12)
    assert metrics.nmse_by_energy(a, b) == pytest.approx(np.linalg.norm(a - b) ** 2 / np.linalg.norm(a) ** 2, rel=1e-12)
    assert metrics.nmse_by_energy(a, np.zeros_like(a)) == pytest.approx(1.0)
    assert np.isnan(metrics.pearson_cc(np.ones(5), a.ravel()[:5]))


def test_distribution_metrics(rng):
    p = rng.random((8, 9)) + 0.01
    q = rng.random((8, 9)) + 0.01
    P, Q = p / p.sum(), q / q.sum()
    assert sm.kl_divergence(p, q) == pytest.approx(rel_entr(P, Q).sum(), rel=1e-9)
    assert sm.kl_divergence(p, p) == pytest.approx(0.0, abs=1e-12)
    assert sm.similarity(p, q) == pytest.approx(np.minimum(P, Q).sum(), rel=1e-12)
    assert sm.similarity(p, 3 * p) == pytest.approx(1.0)
    disjoint_a, disjoint_b = np.eye(4), np.fliplr(np.eye(4)) * (1 - np.eye(4))
    assert sm.similarity(disjoint_a, disjoint_b) == 0.0
    noisy = p - 0.5  # negative cells: clipped before normalising
    d = sm.to_distribution(noisy)
    assert d.min() >= 0 and d.sum() == pytest.approx(1.0) and np.all(d[noisy <= 0] == 0)
    assert np.allclose(sm.to_distribution(-np.ones((2, 2))), 0.25)
    fix = np.zeros((8, 9))
    fix[2, 3], fix[5, 5] = 1, 2
    z = (p - p.mean()) / p.std()
    assert sm.nss(p, fix) == pytest.approx((z[2, 3] + 2 * z[5, 5]) / 3)


def test_emd_one_dimensional_equals_wasserstein(rng):
    p, q = rng.random((1, 17)), rng.random((1, 17))
    pos = np.arange(17)
    assert sm.emd(p, q, max_bins=32) == pytest.approx(wasserstein_distance(pos, pos, p[0], q[0]), rel=1e-8)
    w1 = wasserstein_distance(pos, pos, p[0], q[0])
    assert sm.emd(p.T, q.T, max_bins=32, cell=5.0) == pytest.approx(5 * w1, rel=1e-8)


def _full_transport_l1(P, Q):
    """Reference EMD: the bipartite transportation LP with city-block costs between all cell pairs."""
    rows, cols = P.shape
    yy, xx = np.divmod(np.arange(rows * cols), cols)
    cost = np.abs(yy[:, None] - yy[None, :]) + np.abs(xx[:, None] - xx[None, :])
    k = rows * cols
    a_rows = sp.kron(sp.eye(k), np.ones((1, k)))
    a_cols = sp.kron(np.ones((1, k)), sp.eye(k))
    res = linprog(cost.ravel(), A_eq=sp.vstack([a_rows, a_cols]), b_eq=np.concatenate([P.ravel(), Q.ravel()]),
                  bounds=(0, None), method="highs")
    return res.fun


def test_emd_two_dimensional_equals_full_transport(rng):
    for shape in ((3, 4), (5, 5)):
        p, q = rng.random(shape) ** 3, rng.random(shape) ** 3
        P, Q = p / p.sum(), q / q.sum()
        assert sm.emd(p, q) == pytest.approx(_full_transport_l1(P, Q), rel=1e-7)


def test_emd_on_a_coarse_grid_measures_shifts_in_pixels():
    a = np.zeros((64, 128))
    b = np.zeros((64, 128))
    a[10:14, 20:24] = 1.0
    b[10:14, 52:56] = 1.0  # shifted by 32 cells = exactly 8 blocks of 4 cells
    assert sm.emd(a, b, max_bins=32, cell=2.0) == pytest.approx(32 * 2.0, rel=1e-9)
    out = sm.heatmap_metrics(a, b, cell=2.0)
    assert set(out) == {"cc", "mse", "nmse", "kl", "sim", "emd_px"} and out["sim"] == 0.0
    assert "emd_px" not in sm.heatmap_metrics(a, b, emd_bins=None)


def test_heatmap_metrics_in_one_pass_equal_the_single_metrics(rng):
    """heatmap_metrics (distributions computed once) gives the single-metric functions' numbers, float32 in."""
    ref = rng.gamma(2.0, 1.0, (40, 64))
    est = (ref + rng.normal(0, 0.8, ref.shape)).astype(np.float32)
    out = sm.heatmap_metrics(ref, est, emd_bins=None)
    assert "emd_px" not in out
    single = {"cc": metrics.pearson_cc, "mse": metrics.mse, "nmse": metrics.nmse_by_energy, "kl": sm.kl_divergence, "sim": sm.similarity}
    for name, f in single.items():
        assert out[name] == pytest.approx(f(ref, est), rel=1e-12, abs=1e-15), name
