"""Steil et al.: published sampler (not DP, V-STEIL-1..3) and the faithful Laplace replacement (§7.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eyedp_core.timeseries import steil


def test_v_steil_1_magnitudes(rng):
    eps, t_max, delta = 15 / 52, 120, 2.64
    lam = eps / (2 * t_max * delta)
    assert lam == pytest.approx(4.552739e-4, rel=1e-6)
    assert (math.log(1 / lam) - np.euler_gamma) / (lam * t_max) == pytest.approx(130.277, rel=1e-5)
    assert steil.steil_scale(1200, 10, eps, delta) == pytest.approx(1098.24, rel=1e-6)
    cal = steil.steil_calibration(1200, 10, eps, delta)
    assert cal.scale == pytest.approx(1098.24, rel=1e-6) and cal.valid
    assert not steil.steil_calibration(1200, 10, eps, delta, "data-derived").valid
    x = np.zeros((4000, 120))
    out = steil.steil_published(x, epsilon=eps, value_range=delta, rng=rng)
    disp = np.abs(out[:, 0])  # every element of a series moves by the same |ln y|/(λ t_max)
    se = disp.std() / math.sqrt(disp.size)
    assert abs(disp.mean() - 130.277) < 4 * se + 0.5  # E|ln y| exceeds E ln y by < 0.1 here


def test_v_steil_2_degenerate_support(rng):
    p = rng.random(12)
    q = p.copy()
    q[3] += 0.5
    for _ in range(5):
        r = steil.steil_published(p, epsilon=1.0, value_range=1.0, rng=rng)
        assert np.unique(np.round(np.abs(r - p), 9)).size == 1
        assert np.unique(np.round(np.abs(r - q), 9)).size == 2
    faithful = steil.steil_laplace(p, epsilon=1.0, bounds=(0.0, 2.0), rng=rng)
    assert np.unique(np.round(np.abs(faithful - p), 9)).size == 12


def _reference_density(z: np.ndarray, eps: float, delta: float) -> np.ndarray:
    lam = eps / (2 * delta)

    def fw(v: np.ndarray) -> np.ndarray:
        return lam**2 * np.exp(lam * v) * np.exp(-lam * np.exp(lam * v))

    return 0.5 * (fw(z) + fw(-z))


@pytest.mark.parametrize("eps,delta,expected", [(1.0, 1.0, 1.0709), (0.2885, 2.64, 0.9197)])
def test_v_steil_3_one_element_is_not_eps_dp(eps, delta, expected):
    worst = steil.published_worst_log_ratio(eps, delta)
    assert worst == pytest.approx(expected, abs=1e-3)
    assert worst > eps
    z = np.linspace(-30, 30, 2001)
    np.testing.assert_allclose(
        np.exp(steil.published_log_density(z, eps, delta)),
        _reference_density(z, eps, delta),
        rtol=1e-9,
        atol=1e-300,
    )


def test_published_sampler_follows_its_density(rng):
    eps, delta = 1.0, 1.0
    out = steil.steil_published(np.zeros((200_000, 1)), epsilon=eps, value_range=delta, rng=rng)[:, 0]
    edges = np.linspace(-8, 8, 33)
    hist, _ = np.histogram(out, bins=edges)
    mids = 0.5 * (edges[1:] + edges[:-1])
    expected = _reference_density(mids, eps, delta) * np.diff(edges) * out.size
    big = expected > 500
    np.testing.assert_allclose(hist[big], expected[big], rtol=0.06)


def test_faithful_laplace_scale_and_subsampling(rng):
    t, w, eps = 95, 10, 2.0
    x = np.tile(np.arange(t, dtype=float) / t, (3000, 1))
    out, pos = steil.steil_laplace(x, epsilon=eps, bounds=(0.0, 1.0), w=w, rng=rng, return_positions=True)
    assert out.shape == (3000, 10) and steil.subsampled_length(t, w) == 10
    # One position per window, inside the window, the last (partial) window included.
    assert np.all(pos // w == np.arange(10)) and pos[:, -1].max() < t
    assert np.bincount(pos[:, 0], minlength=10).min() > 200  # uniform inside the first window
    noise = out - pos / t
    b = 10 * 1.0 / eps
    assert noise.var() == pytest.approx(2 * b**2, rel=0.03)
    assert steil.steil_scale(t, w, eps, 1.0) == pytest.approx(b)


def test_published_range_is_data_derived():
    data = np.array([[0.2, 0.5], [0.1, 0.9]])
    assert steil.published_range(data) == pytest.approx(0.8)
    assert "not differentially private" in steil.PUBLISHED_LABEL
