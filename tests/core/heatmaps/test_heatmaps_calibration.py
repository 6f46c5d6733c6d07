"""Calibrations, Liu's Theorem 3.4 and r*, presets and the noise calculator (docs/PRIVACY_MODEL.md §6.1-6.3,
VECTORS.md V-LIU-1..4, V-LIU-7). Exact δ is recomputed here with scipy.stats.norm, independently."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from eyedp_core.dp.calibration import gaussian_sigma
from eyedp_core.dp.noise import liu_thm34_sigma, r_star
from eyedp_core.heatmaps import calibration as hc
from eyedp_core.heatmaps import maps as hm

D900 = 900 ** -1.5


def exact_delta(sigma: float, d2: float, eps: float) -> float:
    """Balle–Wang δ(σ) of the Gaussian mechanism, straight from the formula."""
    a, b = d2 / (2 * sigma), eps * sigma / d2
    return norm.cdf(a - b) - math.exp(eps) * norm.cdf(-a - b)


def test_v_liu_1_sensitivities_and_calibrations():
    sens = hc.heatmap_sensitivity(90_000, 900, 1.0)
    assert math.isclose(sens.l2, 1 / 3, rel_tol=1e-12) and math.isclose(sens.l1, 100.0, rel_tol=1e-12)
    assert D900 == pytest.approx(3.7037037e-5, rel=1e-7)
    an = hc.calibrate_heatmap(sens, 1.0, D900, "gaussian", "analytic")
    liu = hc.calibrate_heatmap(sens, 1.0, D900, "gaussian", "liu-thm-3.4")
    lap = hc.calibrate_heatmap(sens, 1.0, D900, "laplace")
    assert an.scale == pytest.approx(1.1426220, rel=1e-6)
    assert liu.scale == pytest.approx(1.5674167, rel=1e-6)
    indep_liu = (1 / 900) * math.sqrt(90_000 * (0.5 + math.log(90_000 / D900)))
    assert liu.scale == pytest.approx(indep_liu, rel=1e-12)
    assert lap.scale == pytest.approx(100.0, rel=1e-12) and lap.std == pytest.approx(141.421356, rel=1e-8)
    assert hc.liu_thm35_std(sens.l1, 1.0) == pytest.approx(141.421356, rel=1e-8)
    # Exact δ achieved, recomputed with scipy: analytic holds with equality, Liu's happens to be far below.
    assert exact_delta(an.scale, sens.l2, 1.0) == pytest.approx(D900, rel=1e-6)
    assert exact_delta(an.scale * (1 - 1e-6), sens.l2, 1.0) > D900  # smallest such σ
    assert exact_delta(liu.scale, sens.l2, 1.0) == pytest.approx(8.828e-8, rel=1e-3)
    assert exact_delta(1.5221867, sens.l2, 1.0) == pytest.approx(1.796e-7, rel=1e-3)
    assert liu.valid and "r* = 2.848" in liu.note
    assert "b = " in lap.plugged_tex and r"\sqrt{2}" in lap.plugged_tex


def test_calibration_table_shows_classical_only_below_one():
    sens = hc.heatmap_sensitivity(90_000, 900, 1.0)
    assert [c.method for c in hc.calibration_table(sens, 1.0, D900)] == ["analytic", "liu-thm-3.4", "laplace"]
    tab = hc.calibration_table(sens, 0.5, D900)
    assert [c.method for c in tab] == ["analytic", "classical", "liu-thm-3.4", "laplace"]
    sig = {c.method: c.scale for c in tab}
    assert sig["analytic"] == pytest.approx(2.1334656, rel=1e-6)   # V-LIU-4
    assert sig["classical"] == pytest.approx(3.0443734, rel=1e-6)
    assert sig["liu-thm-3.4"] == pytest.approx(3.1170611, rel=1e-6)
    assert sig["classical"] == pytest.approx((1 / 3) * math.sqrt(2 * math.log(1.25 / D900)) / 0.5, rel=1e-12)
    with pytest.raises(ValueError):
        hc.calibrate_heatmap(sens, 1.5, D900, "gaussian", "classical")


# (ε, δ, r, Liu σ/Δ2, analytic σ/Δ2, δ achieved by Liu's σ, Liu valid?)  — VECTORS.md V-LIU-2
V_LIU_2 = [
    (1, D900, 1, 3.2716, 3.4279, 7.068e-5, False),
    (1, D900, 2, 3.3759, 3.4279, 4.602e-5, False),
    (1, D900, 3, 3.4354, 3.4279, 3.588e-5, True),
    (1, 1e-5, 1, 3.4660, 3.7306, 3.154e-5, False),
    (1, 1e-10, 1, 4.8503, 5.8678, 3.992e-8, False),
    (1, 1e-10, 10_000, 5.7216, 5.8678, 2.507e-10, False),
    (1, 1e-10, 90_000, 5.9104, 5.8678, 7.619e-11, True),
    (3, D900, 1, 1.1404, 1.2974, 2.881e-4, False),
    (0.1, 1e-6, 1, 37.2364, 36.3047, 6.631e-7, True),
]


@pytest.mark.parametrize("eps,delta,r,liu_ratio,an_ratio,achieved,valid", V_LIU_2)
def test_v_liu_2_theorem_3_4_fails_below_r_star(eps, delta, r, liu_ratio, an_ratio, achieved, valid):
    sens = hc.heatmap_sensitivity(r, 1, 1.0)  # Δ2 = √r, so σ/Δ2 is read off directly
    liu = hc.calibrate_heatmap(sens, eps, delta, "gaussian", "liu-thm-3.4")
    an = hc.calibrate_heatmap(sens, eps, delta, "gaussian", "analytic")
    assert liu.scale / sens.l2 == pytest.approx(liu_ratio, abs=6e-5)
    assert an.scale / sens.l2 == pytest.approx(an_ratio, abs=6e-5)
    assert exact_delta(liu.scale, sens.l2, eps) == pytest.approx(achieved, rel=2e-3)
    assert liu.valid is valid
    assert bool(exact_delta(liu.scale, sens.l2, eps) <= delta) is valid
    assert ("WARNING" in liu.note) is (not valid)


@pytest.mark.parametrize("eps,delta,expected", [(1, D900, 2.848), (3, D900, 31.33), (1, 1e-5, 6.717),
                                                (1, 1e-8, 1203), (1, 1e-10, 54_450), (0.5, 1e-6, 8.722),
                                                (0.1, 1e-6, 0.504)])
def test_v_liu_3_r_star(eps, delta, expected):
    rs = r_star(eps, delta)
    assert rs == pytest.approx(expected, rel=2e-3)
    # r* is the threshold: Liu's σ gives the guarantee just above it and not just below it.
    d2 = 1.0
    for r, ok in ((rs * 1.01, True), (rs * 0.99, False)):
        sigma = d2 * math.sqrt(eps / 2 + math.log(r / delta)) / eps
        assert bool(exact_delta(sigma, d2, eps) <= delta) is ok


def test_v_liu_4_other_settings():
    sens = hc.heatmap_sensitivity(90_000, 900, 1.0)
    liu3 = hc.calibrate_heatmap(sens, 3.0, D900, "gaussian", "liu-thm-3.4")
    assert liu3.scale == pytest.approx(0.5341563, rel=1e-6)
    assert hc.calibrate_heatmap(sens, 3.0, D900).scale == pytest.approx(0.4324517, rel=1e-6)
    n = 50_000
    paper = hc.heatmap_sensitivity(1050 * 1680, n, 1.0)
    assert liu_thm34_sigma(paper.l2, 1.5, n ** -1.5, paper.r) == pytest.approx(0.0991734, rel=1e-6)
    assert hc.liu_thm35_std(paper.l1, 1.5) == pytest.approx(33.2623, rel=1e-5)


def test_v_liu_7_total_count_cap():
    sens = hc.heatmap_sensitivity(90_000, 900, 1.0, cap_total=500)
    assert sens.l2 == pytest.approx(0.0351364, rel=1e-6) and sens.l1 == pytest.approx(1.111111, rel=1e-6)
    assert sens.binding == "total cap C"
    an = hc.calibrate_heatmap(sens, 1.0, D900)
    assert an.scale == pytest.approx(0.1204429, rel=1e-6)
    assert exact_delta(an.scale, sens.l2, 1.0) == pytest.approx(D900, rel=1e-6)
    assert 9 < sens.l2_cell_only / sens.l2 < 10  # "about 10x less noise"
    # C large: the cell cap binds again and both formulas agree.
    loose = hc.heatmap_sensitivity(100, 10, 1.0, cap_total=1e6)
    assert loose.binding == "per-cell cap m" and loose.l2 == pytest.approx(1.0)


def test_presets_and_poor_privacy_warning():
    n = 900
    pre = hc.privacy_presets(n)
    assert (pre["okay"].epsilon, pre["good"].epsilon) == (3.0, 1.0)
    # δ = 1/n²: n times below 1/n ("much smaller than 1/n", docs/PRIVACY_MODEL.md §6.6), also below the paper's n^-1.5.
    assert pre["okay"].delta == pytest.approx(n ** -2.0) and pre["good"].delta == pytest.approx(n ** -2.0)
    assert pre["good"].delta * n == pytest.approx(1 / n) and pre["good"].delta < n ** -1.5
    assert pre["poor"].delta >= 1 / n
    # The paper's δ = n^-1.5 is below 1/n but not far enough for the presets' levels: "custom".
    assert hc.privacy_level(1.0, n ** -1.5, n) == "custom"
    for name, p in pre.items():
        assert hc.privacy_level(p.epsilon, p.delta, n) == name
        assert bool(hc.privacy_warnings(p.epsilon, p.delta, n)) is (name == "poor")
    assert hc.privacy_warnings(1.0, 1 / n, n) and not hc.privacy_warnings(1.0, 0.999 / n, n)
    assert hc.privacy_level(0.5, 1e-9, n) == "good" and hc.privacy_level(5.0, 1e-9, n) == "custom"


def test_noise_std_is_vectorised_and_matches_scalar_calibration():
    ns = np.array([[50], [300], [900]])
    rs = np.array([[100, 10_000, 90_000]])
    out = hc.noise_std(ns, rs, 1.0, lambda n: n ** -1.5)
    assert out.shape == (3, 3)
    for i, n in enumerate(ns.ravel()):
        for j, r in enumerate(rs.ravel()):
            indep = math.sqrt(r) / n * gaussian_sigma(1.0, 1.0, n ** -1.5)
            assert out[i, j] == pytest.approx(indep, rel=1e-12)
    liu = hc.noise_std(900, 90_000, 1.0, D900, method="liu-thm-3.4")
    assert float(liu) == pytest.approx(1.5674167, rel=1e-6)
    lap = hc.noise_std(900, 90_000, 1.0, D900, mechanism="laplace")
    assert float(lap) == pytest.approx(141.421356, rel=1e-8)


def test_noise_surface_figure_2a():
    df = hc.noise_surface([300, 900], [100, 300], 1.0, lambda n: n ** -1.5, method="liu-thm-3.4")
    assert len(df) == 4 and set(df.columns) >= {"n", "sqrt_r", "r", "delta", "std"}
    row = df[(df.n == 900) & (df.sqrt_r == 300)].iloc[0]
    assert row["std"] == pytest.approx(1.5674167, rel=1e-6)  # the paper's σ ≈ 1.5 at n = 900, 300×300
    good = hc.noise_surface([900], [300], 1.0, lambda n: n ** -1.5)
    assert good["std"].iloc[0] == pytest.approx(1.1426220, rel=1e-6)


@pytest.mark.parametrize("delta", [1e-6, "n^-1.5"])
@pytest.mark.parametrize("method", ["analytic", "liu-thm-3.4"])
def test_observers_needed_is_minimal(delta, method):
    dl = (lambda n: n ** -1.5) if delta == "n^-1.5" else delta
    r, eps, target = 90_000, 1.0, 1.5

    def sigma(n):  # independent: σ = Δ2(n)·(unit σ at δ(n)) or Liu's closed form
        d = n ** -1.5 if delta == "n^-1.5" else delta
        d2 = math.sqrt(r) / n
        if method == "liu-thm-3.4":
            return d2 * math.sqrt(eps / 2 + math.log(r / d)) / eps
        return d2 * gaussian_sigma(1.0, eps, d)

    n = hc.observers_needed(target, r, hc.HeatmapSetting(eps, method=method), delta_of_n=dl)
    assert sigma(n) <= target < sigma(n - 1)
    if method == "liu-thm-3.4" and delta == "n^-1.5":
        assert 900 < n < 1000  # the paper: σ = 1.5 needs "of the order of n = 900" at 300×300
    # Any target is met by the smallest n with a valid δ (δ = n^-1.5 needs n >= 2).
    assert hc.observers_needed(1e9, r, hc.HeatmapSetting(eps, method=method), delta_of_n=dl) == (2 if delta == "n^-1.5" else 1)


def test_grid_for_sigma_finest_grid_meeting_target():
    n, w, h, eps = 40, 800, 600, 1.0
    d = n ** -1.5
    got = hm.grid_for_sigma(0.5, n, w, h, hc.HeatmapSetting(eps, d))
    assert got is not None
    unit = gaussian_sigma(1.0, eps, d)

    def std(cell):
        return math.sqrt(math.ceil(w / cell) * math.ceil(h / cell)) / n * unit

    assert got.grid_shape == (math.ceil(h / got.cell), math.ceil(w / got.cell))
    assert got.std == pytest.approx(std(got.cell), rel=1e-12)
    assert std(got.cell) <= 0.5 < std(got.cell - 1)
    assert hm.grid_for_sigma(1e-6, n, w, h, hc.HeatmapSetting(eps, d)) is None
    # With a total cap C the noise no longer grows with r: the full-resolution grid can qualify.
    capped = hm.grid_for_sigma(2.0, 2000, w, h, hc.HeatmapSetting(eps, 2000 ** -1.5, cap_m=1.0, cap_total=200))
    assert capped is not None and capped.cell == 1
