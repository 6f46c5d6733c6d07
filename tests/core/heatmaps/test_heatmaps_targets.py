"""The hot-spots-kept measure, the target finder (smallest ε, observers needed), the private choice of m next to a
fixed m and the A/B sentence (eyedp_core.heatmaps.targets), against independent brute-force computations."""
from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import ndimage

from eyedp_core.heatmaps import maps
from eyedp_core.heatmaps import targets as T
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap, heatmap_sensitivity
from eyedp_core.heatmaps.cap import (
    SelectionSpec,
    cap_score_sensitivity,
    cap_scores,
    noise_std_for_caps,
    selection_probabilities,
)


def _brute_kept(clean: np.ndarray, noisy: np.ndarray, q: float) -> float:
    """Top-q overlap by enumeration: clean set = all cells >= the k-th largest value (> 0); noisy set of the same
    size with ties broken uniformly, averaged over every possible tie-break."""
    c, x = clean.ravel().tolist(), noisy.ravel().tolist()
    k = max(1, math.ceil(q * len(c)))
    kth = sorted(c, reverse=True)[k - 1]
    hot = {i for i, v in enumerate(c) if v >= kth and v > 0}
    size = len(hot)
    order = sorted(set(x), reverse=True)
    chosen: list[int] = []
    for v in order:  # whole tie groups while they fit
        group = [i for i, w in enumerate(x) if w == v]
        if len(chosen) + len(group) <= size:
            chosen += group
            continue
        need = size - len(chosen)
        subsets = list(itertools.combinations(group, need))
        return sum(len(hot & (set(chosen) | set(s))) for s in subsets) / len(subsets) / size
    return len(hot & set(chosen)) / size


def test_top_cells_keeps_ties_and_never_zero_cells():
    m = np.array([[5.0, 3.0, 3.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    # q = 0.25 of 8 cells: k = 2, the 2nd largest is 3 and both 3s are in (3 cells).
    assert T.top_cells(m, 0.25).sum() == 3
    assert not T.top_cells(m, 1.0)[m == 0].any()  # the whole map asked for: unvisited cells are no hot spots
    assert T.top_cells(np.zeros((3, 3)), 0.5).sum() == 0
    with pytest.raises(ValueError):
        T.top_cells(m, 0.0)


@pytest.mark.parametrize("seed", range(6))
def test_hot_spots_kept_matches_enumeration(seed):
    rng = np.random.default_rng(seed)
    clean = rng.integers(0, 4, (4, 5)).astype(float)  # many ties
    noisy = np.round(clean + rng.normal(0, 1.0, clean.shape))  # ties in the noisy map too
    for q in (0.05, 0.1, 0.2, 0.35):
        assert T.hot_spots_kept(clean, noisy, q) == pytest.approx(_brute_kept(clean, noisy, q), abs=1e-12)


def test_hot_spots_kept_is_one_for_the_clean_map_and_vectorised():
    rng = np.random.default_rng(1)
    clean = rng.random((6, 7))
    assert T.hot_spots_kept(clean, clean, 0.1) == 1.0
    stack = np.stack([clean, -clean, clean + 0.01])
    got = T.hot_spots_kept(clean, stack, 0.1)
    assert got.shape == (3,)
    assert got[0] == 1.0 and got[1] == 0.0 and got[2] == 1.0


# --------------------------------------------------------------------------------------------
# a small map and a brute-force curve


def _small_map(seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    agg = rng.gamma(0.3, 0.02, (12, 16))
    agg[3:5, 4:7] += 0.4
    agg[8, 12] += 0.3
    return agg


SIGMA_CELLS = 1.0
SETTING = HeatmapSetting(epsilon=1.0, delta=1e-4, mechanism="gaussian", method="analytic", cap_m=1.0, cap_total=None,
                         cell_px=1, sigma_px=SIGMA_CELLS)
N_OBS = 20


def _brute_curve(agg: np.ndarray, eps_grid, R: int, seed: int, q: float):
    """Mean CC and hot spots kept per ε from plain numpy noise and scipy's gaussian_filter (no common numbers)."""
    rng = np.random.default_rng(seed)
    ref = ndimage.gaussian_filter(agg, SIGMA_CELLS, mode="reflect", truncate=4.0)
    sens = heatmap_sensitivity(agg.size, N_OBS, 1.0, None)
    cc, kept = [], []
    for e in eps_grid:
        std = calibrate_heatmap(sens, e, SETTING.delta, "gaussian", "analytic").std
        c_e, k_e = [], []
        for _ in range(R):
            noisy = ndimage.gaussian_filter(agg + rng.normal(0, std, agg.shape), SIGMA_CELLS, mode="reflect",
                                            truncate=4.0)
            c_e.append(np.corrcoef(ref.ravel(), noisy.ravel())[0, 1])
            k_e.append(_brute_kept(ref, noisy, q))
        cc.append(np.mean(c_e))
        kept.append(np.mean(k_e))
    return np.array(cc), np.array(kept)


def test_finder_agrees_with_brute_force_on_a_small_map():
    agg = _small_map()
    grid = tuple(np.geomspace(0.3, 300, 10))
    ans = {m: T.epsilon_for_target(agg, N_OBS, SETTING, m, 0.6, np.random.default_rng(0), basis=T.Basis.PILOT,
                                   draws=T.DrawSpec(R=300, q=0.1, grid=grid))
           for m in T.Measure}
    cc_b, kept_b = _brute_curve(agg, grid, 150, 11, 0.1)
    # Mean curves agree within 4 standard errors of the difference of two Monte-Carlo means (300 and 150 draws).
    for measure, brute in ((T.Measure.CC, cc_b), (T.Measure.HOT_SPOTS, kept_b)):
        v = ans[measure].draws.values(measure)
        se = v.std(axis=1) * math.sqrt(1 / 300 + 1 / 150)
        assert np.all(np.abs(v.mean(axis=1) - brute) <= 4 * se + 1e-3), (v.mean(axis=1), brute, se)
    for measure, brute in ((T.Measure.CC, cc_b), (T.Measure.HOT_SPOTS, kept_b)):
        a = ans[measure]
        i = int(np.argmax(brute >= 0.6))
        assert brute[i] >= 0.6
        # The interpolated answer lies in the brute-force bracket (one grid step of slack for MC error).
        assert grid[max(i - 2, 0)] <= a.value <= grid[min(i + 1, len(grid) - 1)]
        assert a.low <= a.value <= a.high
        assert a.expected == pytest.approx(0.6, abs=0.05)
        assert a.expected_band[0] <= a.expected <= a.expected_band[1]


def test_finder_is_monotone_in_the_target_and_consistent_with_observers_needed():
    agg = _small_map()
    kw = dict(basis=T.Basis.PRIVATE, draws=T.DrawSpec(R=120, q=0.1))
    eps = [T.epsilon_for_target(agg, N_OBS, SETTING, T.Measure.CC, t, np.random.default_rng(0), **kw).value
           for t in (0.5, 0.7, 0.9)]
    assert eps[0] < eps[1] < eps[2]
    # Observers needed shrink as ε grows, and at the ε that reaches the target with n observers ≈ n are needed.
    ns = [T.observers_for_target(agg, HeatmapSetting(e, 1e-4, sigma_px=SIGMA_CELLS), T.Measure.CC, 0.7, np.random.default_rng(0), **kw).value
          for e in (0.5, 2.0, 8.0)]
    assert ns[0] > ns[1] > ns[2]
    back = T.observers_for_target(agg, HeatmapSetting(eps[1], 1e-4, sigma_px=SIGMA_CELLS), T.Measure.CC, 0.7, np.random.default_rng(0), **kw)
    assert back.value == pytest.approx(N_OBS, rel=0.12)
    assert back.what == "N" and back.value == int(back.value)


def test_unreachable_target_says_so_and_answers_are_seeded():
    agg = _small_map()
    kw = dict(basis=T.Basis.PILOT, draws=T.DrawSpec(R=40, grid=(0.1, 0.2, 0.4)))
    a = T.epsilon_for_target(agg, N_OBS, SETTING, T.Measure.CC, 0.99, np.random.default_rng(0), **kw)
    assert not a.reached and a.value is None and a.expected is None
    b1 = T.epsilon_for_target(agg, N_OBS, SETTING, T.Measure.CC, 0.3, np.random.default_rng(5), **kw)
    b2 = T.epsilon_for_target(agg, N_OBS, SETTING, T.Measure.CC, 0.3, np.random.default_rng(5), **kw)
    np.testing.assert_array_equal(b1.draws.cc, b2.draws.cc)


def test_utility_at_stds_zero_noise_and_laplace_variance():
    agg = _small_map()
    d = T.utility_at_stds(agg, [0.0], np.random.default_rng(0), HeatmapSetting(sigma_px=SIGMA_CELLS), T.DrawSpec(R=3))
    np.testing.assert_allclose(d.cc, 1.0, atol=1e-12)
    np.testing.assert_allclose(d.kept, 1.0)
    # Laplace draws are scaled to unit variance: same std, similar mean CC as Gaussian (±0.03 over 400 draws).
    g = T.utility_at_stds(agg, [0.05], np.random.default_rng(1), HeatmapSetting(mechanism="gaussian"),
                          T.DrawSpec(R=400)).cc.mean()
    lap = T.utility_at_stds(agg, [0.05], np.random.default_rng(1), HeatmapSetting(mechanism="laplace"),
                            T.DrawSpec(R=400)).cc.mean()
    assert lap == pytest.approx(g, abs=0.03)


# --------------------------------------------------------------------------------------------
# the private choice of m next to a fixed m


def _gaze_maps(seed: int = 0, n: int = 25) -> maps.GazeMaps:
    rng = np.random.default_rng(seed)
    rows = []
    for o in range(n):
        k = rng.integers(20, 40)
        hot = rng.random(k) < 0.7
        x = np.where(hot, rng.normal(100, 15, k), rng.uniform(0, 320, k))
        y = np.where(hot, rng.normal(80, 15, k), rng.uniform(0, 200, k))
        rows.append(pd.DataFrame({"observer": o, "x": np.clip(x, 0, 319), "y": np.clip(y, 0, 199)}))
    return maps.gaze_maps(pd.concat(rows), 320, 200, cell=10)


def test_cap_choice_probabilities_and_mixture():
    gm = _gaze_maps()
    cands = (1.0, 2.0, 4.0, 8.0)
    s = HeatmapSetting(epsilon=5.0, delta=1e-4, cap_total=40.0, sigma_px=10.0)
    kw = dict(fixed_m=1.0, candidates=cands, setting=s, basis=T.Basis.PRIVATE, draws=T.DrawSpec(R=30))
    c = T.cap_choice_utility(gm, selection=SelectionSpec(10.0, 0.1, "exponential"),
                             rng=np.random.default_rng(0), **kw)
    stds = noise_std_for_caps(gm.n_observers, gm.n_cells, cands, 5.0, 1e-4, "gaussian", "analytic", 40.0)
    want = selection_probabilities(cap_scores(gm, cands, 10.0, stds, 40.0), 0.1,
                                   cap_score_sensitivity(cands, 10.0, gm.n_observers, gm.n_cells, 40.0))
    np.testing.assert_allclose(c.probabilities, want)
    summ = c.summary(T.Measure.CC)
    assert summ["private"][0] == pytest.approx(float(want @ c.cc.mean(axis=1)), abs=1e-9)
    assert summ["fixed"][0] == pytest.approx(c.cc[0].mean(), abs=1e-12)  # the fixed m = 1 is candidate 0
    assert summ["private"][1] <= summ["private"][0] <= summ["private"][2]
    # A huge selection ε always picks the lowest score; report-noisy-min agrees with it there.
    for method in ("exponential", "report-noisy-min"):
        big = T.cap_choice_utility(gm, selection=SelectionSpec(10.0, 1e6, method),
                                   rng=np.random.default_rng(0), **kw)
        assert big.probabilities.max() == pytest.approx(1.0, abs=1e-6)
        assert int(np.argmax(big.probabilities)) == int(np.argmax(want))


def test_difference_sentence_words():
    a = T.SettingUtility("A", 1.0, 1e-4, 0.02, 0.8, 0.7)
    b = T.SettingUtility("B", 10.0, 1e-4, 0.004, 0.95, 0.9)
    s = T.difference_sentence(a, b)
    assert s.startswith("B spends ε = 10 per observer instead of 1")
    assert "5× less noise than A" in s and "a CC 0.15 higher" in s and "20 percentage points more" in s
    same = T.difference_sentence(a, a)
    assert "the same ε per observer" in same and "the same noise" in same and "the same CC" in same


def test_eps_curves_carry_hot_spots_kept(monkeypatch):
    from eyedp_core.heatmaps import curves

    agg = _small_map()
    sens = heatmap_sensitivity(agg.size, N_OBS, 1.0, None)
    df = curves.eps_curves(agg, sens, HeatmapSetting(delta=1e-4, sigma_px=SIGMA_CELLS),
                           curves.CurveSpec(epsilons=(0.01, 1e6), R=60, hot_spots_q=0.1), np.random.default_rng(0))
    summ = curves.summarize_curves(df).set_index(["mechanism", "eps"])
    for mech in ("gaussian", "laplace"):
        assert summ.loc[(mech, 1e6), "kept_mean"] == pytest.approx(1.0, abs=0.02)  # next to no noise
        assert summ.loc[(mech, 0.01), "kept_mean"] < 0.4  # noise only: about the share q, by chance
    monkeypatch.setattr(curves, "HOT_SPOT_CELLS", 10)
    df = curves.eps_curves(agg, sens, HeatmapSetting(delta=1e-4), curves.CurveSpec(epsilons=(1.0,), R=5, hot_spots_q=0.1),
                           np.random.default_rng(0))
    assert df["hot_spots"].isna().all() and any("hot spots kept left out" in n for n in df.attrs["notes"])


def test_observers_by_subsample_includes_sampling_error_and_meets_the_model_at_n():
    gm = _gaze_maps(n=30)
    s = HeatmapSetting(epsilon=20.0, delta=1e-4, cap_total=40.0, sigma_px=10.0)
    kw = dict(basis=T.Basis.PRIVATE, draws=T.DrawSpec(R=150))
    sub = T.observers_by_subsample(gm, s, T.Measure.CC, 0.8, np.random.default_rng(0), **kw)
    grid, mean, _, _ = sub.curve()
    assert grid[0] == 2 and grid[-1] == gm.n_observers
    assert mean[0] < mean[-1]  # fewer observers: more sampling error and more noise
    # With all n observers the subsample is the study itself: the planning model at N = n (noise only) agrees.
    agg = maps.aggregate(gm, 1.0, 40.0)
    model = T.utility_at_stds(agg, [s.std(gm.n_observers, gm.n_cells)], np.random.default_rng(1),
                              replace(s, cell_px=gm.cell), T.DrawSpec(R=400), measures=(T.Measure.CC,)).cc[0]
    se = model.std() * math.sqrt(1 / 400 + 1 / 150)
    assert abs(mean[-1] - model.mean()) <= 4 * se + 1e-3
    # Sampling error only adds: the subsample answer needs at least as many observers as the noise-only model.
    plan = T.observers_for_target(agg, replace(s, cell_px=gm.cell), T.Measure.CC, 0.8, np.random.default_rng(0), **kw)
    assert sub.value is not None and plan.value - 1 <= sub.value <= gm.n_observers
    assert sub.low <= sub.value <= sub.high
    unreachable = T.observers_by_subsample(gm, s, T.Measure.CC, 0.999, np.random.default_rng(0), **kw)
    assert unreachable.value is None
