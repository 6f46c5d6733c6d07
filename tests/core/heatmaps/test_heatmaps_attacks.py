"""The difference attack (Liu et al. §3.3-3.4, docs/PRIVACY_MODEL.md §6.4): exact recovery from noise-free and
random-selection releases, failure under calibrated noise; on synthetic and on real (OSIE) recordings."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eyedp_core.heatmaps import attacks as ha
from eyedp_core.heatmaps import maps as hm
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap, heatmap_sensitivity


def _sparse_observers(rng, n=20, per=12, width=300, height=200, repeats=True):
    """Observers fixating random pixels of a fine grid (distinct maps), some pixels fixated twice."""
    xs = rng.uniform(0, width, n * per)
    ys = rng.uniform(0, height, n * per)
    df = pd.DataFrame({"observer": np.repeat(np.arange(n), per), "x": xs, "y": ys})
    if repeats:
        df = pd.concat([df, df.iloc[::4]], ignore_index=True)  # every 4th fixation again: counts of 2
    return hm.gaze_maps(df, width, height)


@pytest.mark.parametrize("cap_m", [1.0, 2.0, None])
def test_noise_free_release_gives_every_observer_away(rng, cap_m):
    gm = _sparse_observers(rng)
    rel = ha.noise_free(gm, cap_m)
    assert "NOT differentially private" in rel.label
    for target in range(gm.n_observers):
        res = ha.difference_attack(rel.map, gm, target, cap_m)
        assert res.exact and res.max_abs_error < 1e-9
        truth = gm.observer_map(target) if cap_m is None else np.minimum(gm.observer_map(target), cap_m)
        np.testing.assert_allclose(res.recovered, truth, atol=1e-9)


@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_attack_fails_under_calibrated_noise(rng, mechanism):
    gm = _sparse_observers(rng)
    n, eps, delta = gm.n_observers, 1.0, gm.n_observers ** -1.5
    sens = heatmap_sensitivity(gm.n_cells, n, 1.0)
    agg = hm.aggregate(gm, 1.0)
    pm = hm.privatize(agg, HeatmapSetting(eps, delta, mechanism), sens, rng, dtype=np.float64)
    res = ha.difference_attack(pm.map, gm, 3, 1.0, mechanism=mechanism)
    assert not res.exact
    # The attacker's error is n× the noise: per-cell error variance n²·std², checked to 4 standard errors.
    expected = (n * pm.calibration.std) ** 2
    kurt = 3.0 if mechanism == "gaussian" else 6.0
    se = expected * math.sqrt((kurt - 1) / gm.n_cells)
    assert abs(res.mse - expected) < 4 * se
    # The noise swamps the signal: a map of 0/1 cells against noise of std n·σ >> 1.
    assert res.mse > 100 * np.mean(res.truth ** 2)


@pytest.mark.parametrize("replace", [False, True])
def test_random_selection_reveals_drawn_observers(replace):
    rng = np.random.default_rng(7)
    gm = _sparse_observers(rng, n=16)
    hits = 0
    for trial in range(40):
        rel = ha.random_selection(gm, 0.5, replace, rng, cap_m=1.0)
        assert rel.k == 8
        target = trial % gm.n_observers
        drawn = target in rel.selected
        res = ha.difference_attack(rel.map, gm, target, 1.0, mechanism=rel.mechanism, k=rel.k)
        # The attacker knows whether the target was drawn, and then recovers the map exactly.
        assert res.included_guess is drawn
        assert res.exact is drawn
        hits += drawn
    assert 5 < hits < 35  # ~c = 1/2 of the trials (δ ≥ c)


def test_random_selection_mean_is_over_the_sample(rng):
    gm = _sparse_observers(rng, n=10)
    rel = ha.random_selection(gm, 0.3, True, rng, cap_m=1.0)
    dense = np.minimum(gm.dense(), 1.0)
    np.testing.assert_allclose(rel.map, dense[rel.selected].sum(axis=0) / rel.k)


def test_attack_demo_table(rng):
    gm = _sparse_observers(rng, n=12)
    df = ha.attack_demo(gm, 4, HeatmapSetting(1.0, 12 ** -1.5, cap_m=1.0), rng)
    assert list(df["mechanism"]) == ["noise-free", "rs1", "rs2", "gaussian", "laplace"]
    row = df.set_index("mechanism")
    assert row.loc["noise-free", "exact_recovery"] and not row.loc["noise-free", "private"]
    assert not row.loc["gaussian", "exact_recovery"] and not row.loc["laplace", "exact_recovery"]
    assert row.loc["gaussian", "private"] and row.loc["laplace", "private"]
    for mech in ("rs1", "rs2"):
        assert row.loc[mech, "exact_recovery"] == row.loc[mech, "target_drawn"]
    sens = heatmap_sensitivity(gm.n_cells, 12, 1.0)
    sigma = calibrate_heatmap(sens, 1.0, 12 ** -1.5).std
    assert row.loc["gaussian", "mse"] == pytest.approx((12 * sigma) ** 2, rel=0.05)


def test_realdata_osie_difference_attack(realdata):
    fix = pd.read_csv(realdata / "osie" / "osie_fixations.csv.gz")
    one = fix[fix["image"] == "1010.jpg"]
    gm = hm.gaze_maps(one, 800, 600, observer_col="subject")
    assert gm.n_observers == 15
    for cap_m in (1.0, None):
        rel = ha.noise_free(gm, cap_m)
        for target in (0, 7, 14):
            res = ha.difference_attack(rel.map, gm, target, cap_m)
            assert res.exact
            sub = one[one["subject"] == gm.observers[target]]
            if cap_m is None:
                # The recovered map holds exactly that subject's fixations, pixel by pixel.
                assert res.recovered.sum() == pytest.approx(len(sub))
                ys, xs = np.nonzero(res.recovered)
                assert set(zip(xs, ys)) == set(zip((sub.x // 1).astype(int), (sub.y // 1).astype(int)))
    # Coarse duration-weighted grid: still exact, the attack does not need a fine grid.
    coarse = hm.gaze_maps(one, 800, 600, cell=40, weight="duration", observer_col="subject")
    res = ha.difference_attack(ha.noise_free(coarse, 0.5).map, coarse, 3, 0.5)
    assert res.exact
