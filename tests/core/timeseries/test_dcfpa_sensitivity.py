"""DCFPA under public bounds: the kept Fourier parameters' L1 sensitivity (docs/PRIVACY_MODEL.md §4).

The generic bound √(kn)·Δ2(d) over-calibrates at small k: at k = 1 the only kept parameter is Σd = x_n, which
moves by at most R, while √(32)·√125·R = 63.2·R. EyeDP uses the smaller of the generic and the direct bound;
these tests check the direct bound against an independent computation (brute force over every vertex of the
neighbours' box) and against docs/PRIVACY_MODEL.md §4 (V-DCFPA-3, V-DCFPA-4) for the generic one.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import mechanisms as ts
from eyedp_core.timeseries.calibration import fpa_calibration
from eyedp_core.timeseries.sensitivity import dcfpa_kept_l1, dcfpa_kept_ratio, diff_l2_public
from eyedp_core.timeseries.setting import MechanismSetting


def _kept_params(d: np.ndarray, k: int) -> np.ndarray:
    """Differences (..., n) -> the kept real parameters (DC, Re/Im of bins 1 … k−1), backward rfft."""
    spec = np.fft.rfft(d, axis=-1)[..., :k]
    return np.concatenate([spec.real, spec.imag[..., 1:]], axis=-1)


def _diff(x: np.ndarray) -> np.ndarray:
    return np.concatenate([x[..., :1], np.diff(x, axis=-1)], axis=-1)


def test_k1_is_exactly_r_and_attained():
    """k = 1: Σd = x_n, so Δ1 = R exactly; changing only the last value by R attains it."""
    n, r = 32, 2.5
    assert dcfpa_kept_l1(n, 1, r) == pytest.approx(r)
    x = np.zeros(n)
    y = x.copy()
    y[-1] = r
    assert np.abs(_kept_params(_diff(y), 1) - _kept_params(_diff(x), 1)).sum() == pytest.approx(r)
    # V-DCFPA-3 (docs/PRIVACY_MODEL.md §4): Δ2(d) = √(4n − 3) = 11.180340 for R = 1, n = 32; the generic λ·ε = √(kn)·Δ2(d).
    assert diff_l2_public(32, 1.0) == pytest.approx(11.180340, abs=1e-6)
    cal = fpa_calibration(32, MechanismSetting(mech=Mech.DCFPA, k=1, epsilon=1.0), value_range=1.0)
    assert cal.scale == pytest.approx(1.0) and cal.sensitivity == pytest.approx(1.0)
    assert np.sqrt(32) * 11.180340 == pytest.approx(63.245553, abs=1e-5)  # the generic √(kn)·Δ2(d) λ: 63× too large


@pytest.mark.parametrize("n", [6, 8])
def test_direct_bound_covers_every_vertex_of_the_neighbours_box(n):
    """Brute force: max over Δx ∈ {−R, R}^n (the max of a convex function over a box is at a vertex) of
    ‖Δθ‖₁ ≤ min(generic, direct) for every k, and the min is attained at k = 1."""
    r = 1.0
    verts = np.array(list(itertools.product([-r, r], repeat=n)))
    for k in range(1, n // 2 + 2):
        true_max = np.abs(_kept_params(_diff(verts), k)).sum(axis=1).max()
        generic = np.sqrt(k * n) * diff_l2_public(n, r)
        used = min(generic, dcfpa_kept_l1(n, k, r))
        assert true_max <= used + 1e-9, (k, true_max, used)
        if k == 1:
            assert true_max == pytest.approx(used)
    # The ratio helper is the same min, scale-free.
    for k in range(1, n // 2 + 2):
        want = min(1.0, dcfpa_kept_l1(n, k, 3.0) / (np.sqrt(k * n) * diff_l2_public(n, 3.0)))
        assert dcfpa_kept_ratio(n, k) == pytest.approx(want)


def test_with_an_increment_bound_the_bound_is_in_difference_space():
    """Clipped increments (|d_t| ≤ B): brute force over Δd_1 ∈ ±R, Δd_t ∈ ±2B covers the direct bound."""
    n, r, b = 8, 1.0, 0.1
    sides = [[-r, r]] + [[-2 * b, 2 * b]] * (n - 1)
    verts = np.array(list(itertools.product(*sides)))
    for k in range(1, n // 2 + 2):
        true_max = np.abs(_kept_params(verts, k)).sum(axis=1).max()
        assert true_max <= dcfpa_kept_l1(n, k, r, b) + 1e-9
    assert dcfpa_kept_l1(n, 1, r, b) == pytest.approx(r + 2 * (n - 1) * b)
    # V-DCFPA-4's generic Δ2(d) with B = R/60 is unchanged: √(1 + 4·31/3600) = 1.017076.
    assert diff_l2_public(32, 1.0, 1 / 60) == pytest.approx(1.017076, abs=1e-6)


def test_the_drawn_noise_has_the_smaller_scale():
    """run(DCFPA, k = 1) draws with λ = R/ε: the end of each chunk (x_n + Lap(λ)) has sd √2·R/ε."""
    rng = np.random.default_rng(4)
    x = np.full((4000, 32), 0.5)
    res = ts.run(x, MechanismSetting(mech=Mech.DCFPA, epsilon=2.0, k=1, chunk=32), rng=rng, bounds=(0.0, 1.0))
    assert res.calibrations[0].scale == pytest.approx(0.5)
    end = res.values[:, -1] - 0.5
    assert np.std(end) == pytest.approx(np.sqrt(2) * 0.5, rel=0.05)
