"""Cao et al. temporal privacy leakage (docs/PRIVACY_MODEL.md §10.2, V-TPL-1/2)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from eyedp_core.timeseries import temporal_leakage as tl

P2 = np.array([[0.8, 0.2], [0.1, 0.9]])
P3 = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.3, 0.5]])


def brute_loss(m: np.ndarray, alpha: float) -> float:
    """Max over row pairs and ALL state subsets J (no sorting trick)."""
    s = m.shape[0]
    best = 0.0
    g = math.expm1(alpha)
    for q, d in itertools.permutations(range(s), 2):
        for size in range(1, s + 1):
            for subset in itertools.combinations(range(s), size):
                qj, dj = m[q, list(subset)].sum(), m[d, list(subset)].sum()
                best = max(best, math.log((qj * g + 1) / (dj * g + 1)))
    return best


def test_v_tpl_1_loss_function():
    assert tl.leakage_loss(P2, 0.1) == pytest.approx(0.07032186, rel=1e-6)
    assert tl.leakage_loss(P3, 0.5) == pytest.approx(0.3115358, rel=1e-6)
    assert tl.leakage_loss(np.eye(3), 0.3) == pytest.approx(0.3)
    assert tl.leakage_loss(np.full((4, 4), 0.25), 0.7) == 0.0


def test_sorted_prefix_equals_brute_force_on_random_matrices():
    rng = np.random.default_rng(0)
    for s in (2, 3, 5):
        m = rng.dirichlet(np.ones(s), size=s)
        m[0, 0] = 0.0  # zero entries exercise the infinite-ratio ordering
        m[0] /= m[0].sum()
        for alpha in (0.05, 0.5, 2.0):
            assert tl.leakage_loss(m, alpha) == pytest.approx(brute_loss(m, alpha), rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(
        tl.leakage_loss(P2, np.array([0.1, 0.5])), [brute_loss(P2, 0.1), brute_loss(P2, 0.5)], rtol=1e-10
    )


def test_v_tpl_2_recursion():
    bpl = tl.backward_leakage(P2, 0.1, steps=50)
    np.testing.assert_allclose(bpl[:5], [0.1, 0.1703219, 0.2201012, 0.2554648, 0.2806373], rtol=1e-6)
    assert bpl[-1] == pytest.approx(0.3432490, rel=1e-6)
    table = tl.temporal_leakage(P2, P2, 0.1, steps=200)
    assert table.tpl.iloc[99] == pytest.approx(0.5864981, rel=1e-6)
    assert table.tpl.iloc[99] == pytest.approx(table.bpl.iloc[99] + table.fpl.iloc[99] - 0.1)
    assert tl.backward_leakage(np.eye(2), 0.1, steps=10)[-1] == pytest.approx(1.0)
    # Forward leakage is the backward recursion run from the end.
    np.testing.assert_allclose(tl.forward_leakage(P2, 0.1, steps=50), bpl[::-1])


def test_transition_matrices_recover_a_simulated_chain():
    rng = np.random.default_rng(1)
    states = np.empty((50, 400), dtype=int)
    states[:, 0] = rng.integers(0, 2, size=50)
    u = rng.random((50, 400))
    for t in range(1, 400):  # simulating the chain itself is sequential by nature
        states[:, t] = np.where(u[:, t] < P2[states[:, t - 1], 1], 1, 0)
    back, fwd = tl.transition_matrices(states, 2, smoothing=0.0)
    np.testing.assert_allclose(fwd, P2, atol=0.02)
    # Stationary chain: Pr(prev = b | now = a) = π_b P[b, a] / π_a.
    pi = np.array([1 / 3, 2 / 3])
    np.testing.assert_allclose(back, (pi[None, :] * P2.T) / pi[:, None], atol=0.02)
    assert tl.discretise(np.array([-1.0, 0.0, 0.49, 0.5, 1.0, 2.0]), (0.0, 1.0), 2).tolist() == [
        0,
        0,
        0,
        1,
        1,
        1,
    ]
