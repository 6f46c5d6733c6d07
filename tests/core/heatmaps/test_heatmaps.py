"""Gaze maps, caps, aggregate, smoothing and noise of eyedp_core.heatmaps (docs/PRIVACY_MODEL.md §6.1-6.3)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import ndimage, stats

from eyedp_core.dp.noise import from_calibration
from eyedp_core.heatmaps import maps as hm
from eyedp_core.heatmaps.calibration import HeatmapSetting, heatmap_sensitivity


def _fixations(rng: np.random.Generator, n_obs: int, per_obs: int, width: int, height: int) -> pd.DataFrame:
    n = n_obs * per_obs
    df = pd.DataFrame({
        "observer": np.repeat([f"p{i:02d}" for i in range(n_obs)], per_obs),
        # A hot spot so that cells get several hits per observer, plus uniform background.
        "x": np.where(rng.random(n) < 0.5, rng.normal(width / 3, 3, n), rng.uniform(0, width, n)),
        "y": np.where(rng.random(n) < 0.5, rng.normal(height / 2, 3, n), rng.uniform(0, height, n)),
        "duration_ms": rng.gamma(2.0, 100.0, n),
    })
    return df


def _naive_dense(df, width, height, cell, weight):
    """Reference builder: one Python step per fixation into a dense (n, rows, cols) array."""
    ids = sorted(df["observer"].unique())
    rows, cols = math.ceil(height / cell), math.ceil(width / cell)
    out = np.zeros((len(ids), rows, cols))
    for obs, x, y, d in df[["observer", "x", "y", "duration_ms"]].itertuples(index=False):
        if not (np.isfinite(x) and np.isfinite(y)) or x < 0 or y < 0 or x >= width or y >= height:
            continue
        out[ids.index(obs), int(y // cell), int(x // cell)] += 1.0 if weight == "count" else d / 1000.0
    return out


@pytest.mark.parametrize("cell,weight", [(1, "count"), (7, "count"), (5, "duration"), (64, "count")])
def test_sparse_maps_equal_naive_dense_builder(rng, cell, weight):
    width, height = 97, 61
    df = _fixations(rng, 6, 40, width, height)
    # Edge cases: outside the stimulus, on the far border, missing, and an observer with nothing valid.
    extra = pd.DataFrame({"observer": ["p00", "p01", "p02", "p03", "zz"],
                          "x": [-0.5, 97.0, np.nan, 96.999, 200.0],
                          "y": [3.0, 5.0, 4.0, 60.999, 10.0], "duration_ms": [100.0] * 5})
    df = pd.concat([df, extra], ignore_index=True)
    gm = hm.gaze_maps(df, width, height, cell=cell, weight=weight)
    ref = _naive_dense(df, width, height, cell, weight)
    assert gm.grid_shape == ref.shape[1:]
    assert list(gm.observers) == sorted(df["observer"].unique())
    np.testing.assert_allclose(gm.dense(), ref, rtol=1e-12, atol=1e-12)
    n_bad = int((~((df.x >= 0) & (df.x < width) & (df.y >= 0) & (df.y < height))).sum())
    assert gm.n_dropped == n_bad
    assert gm.totals()[gm.index_of("zz")] == 0.0


def test_roster_and_observer_column_detection(rng):
    df = _fixations(rng, 3, 10, 50, 40).rename(columns={"observer": "subject"})
    gm = hm.gaze_maps(df, 50, 40, observers=["p02", "p00", "p01", "ghost"])
    assert list(gm.observers) == ["p02", "p00", "p01", "ghost"]
    assert gm.n_observers == 4 and gm.totals()[3] == 0
    inside = (df.x >= 0) & (df.x < 50) & (df.y >= 0) & (df.y < 40)
    assert gm.totals()[0] == ((df["subject"] == "p02") & inside).sum()
    with pytest.raises(ValueError):
        hm.gaze_maps(df, 50, 40, observers=["p00"])


def test_raw_samples_count_each_valid_sample(rng):
    t = np.arange(600) / 300.0
    samples = pd.DataFrame({"participant": np.repeat(["a", "b"], 300), "t_s": t,
                            "x": rng.uniform(0, 64, 600), "y": rng.uniform(0, 48, 600)})
    samples.loc[rng.choice(600, 50, replace=False), ["x", "y"]] = np.nan  # blinks / track loss
    gm = hm.gaze_maps(samples, 64, 48, cell=8)
    valid = samples.dropna()
    assert gm.n_dropped == 50
    assert list(gm.totals()) == [(valid.participant == "a").sum(), (valid.participant == "b").sum()]
    cells = (valid.y // 8).astype(int) * 8 + (valid.x // 8).astype(int)
    ref = np.bincount(cells[valid.participant == "b"], minlength=48)
    np.testing.assert_array_equal(gm.observer_map(1).ravel(), ref)


def test_cap_and_aggregate_semantics(rng):
    df = _fixations(rng, 8, 60, 40, 30)
    gm = hm.gaze_maps(df, 40, 30, cell=2)
    dense = gm.dense()
    assert dense.max() > 3  # the test needs cells above the cap
    for m in (1, 2, 3.5):
        np.testing.assert_allclose(hm.aggregate(gm, m), np.minimum(dense, m).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(hm.aggregate(gm, None), dense.mean(axis=0), rtol=1e-12)
    # Total cap: entries stay <= m, totals <= C, maps already within C are untouched.
    m, C = 2.0, 30.0
    capped = hm.cap_matrix(gm, m, C).toarray()
    tot_m = np.minimum(dense, m).reshape(8, -1).sum(axis=1)
    assert capped.max() <= m + 1e-12
    assert np.all(capped.sum(axis=1) <= C + 1e-9)
    small = tot_m <= C
    np.testing.assert_allclose(capped[small], np.minimum(dense, m).reshape(8, -1)[small])
    big = ~small
    assert big.any()
    np.testing.assert_allclose(capped[big].sum(axis=1), C)
    np.testing.assert_allclose(hm.aggregate(gm, m, C).ravel(), capped.mean(axis=0))


def test_sensitivity_bounds_hold_for_capped_maps(rng):
    """‖G(D) − G(D')‖ over replace-one neighbours never exceeds Δ1, Δ2; the cell bound is attained."""
    r, n, m, C = 60, 10, 2.0, 12.0
    sens = heatmap_sensitivity(r, n, m, C)
    for _ in range(300):
        a = np.minimum(rng.poisson(rng.uniform(0, 3), r).astype(float), m)
        b = np.minimum(rng.poisson(rng.uniform(0, 3), r).astype(float), m)
        a *= min(1.0, C / max(a.sum(), 1e-12))
        b *= min(1.0, C / max(b.sum(), 1e-12))
        assert np.abs(a - b).sum() / n <= sens.l1 + 1e-12
        assert np.linalg.norm(a - b) / n <= sens.l2 + 1e-12
    cell_only = heatmap_sensitivity(r, n, m)
    worst = np.full(r, m)
    assert np.isclose(np.linalg.norm(worst) / n, cell_only.l2)
    assert np.isclose(worst.sum() / n, cell_only.l1)


@pytest.mark.parametrize("shape,sigma,cell", [((40, 64), 3.0, 1), ((33, 17), 12.0, 1), ((9, 11), 40.0, 1),
                                              ((30, 50), 20.0, 5), ((25, 25), 0.6, 1)])
def test_smooth_equals_scipy_gaussian_filter(rng, shape, sigma, cell):
    x = rng.gamma(0.3, 1.0, shape)
    ref = ndimage.gaussian_filter(x, sigma / cell, mode="reflect", truncate=4.0)
    np.testing.assert_allclose(hm.smooth(x, sigma, cell=cell), ref, atol=1e-12 * x.max())
    x32 = x.astype(np.float32)
    out32 = hm.smooth(x32, sigma, cell=cell)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, ref, atol=2e-6 * x.max())
    np.testing.assert_array_equal(hm.smooth(x, 0.0), x)


def test_smooth_other_truncation_and_mass(rng):
    x = rng.random((20, 30))
    ref = ndimage.gaussian_filter(x, 2.5, mode="reflect", truncate=7.0)
    np.testing.assert_allclose(hm.smooth(x, 2.5, truncate=7.0), ref, atol=1e-13)
    assert np.isclose(hm.smooth(x, 9.0).sum(), x.sum())  # reflect boundary keeps the total


def test_sigma_px_from_degrees_inverts_visual_angle():
    width_px, width_cm, dist = 1920, 53.1, 60.0
    for deg in (0.5, 1.0, 2.0, 5.0):
        px = hm.sigma_px_from_degrees(deg, width_px, width_cm, dist)
        back = math.degrees(2 * math.atan(px * width_cm / width_px / 2 / dist))
        assert math.isclose(back, deg, rel_tol=1e-12)
    # Rule of thumb: 1° at 57 cm is about 1 cm.
    assert math.isclose(hm.sigma_px_from_degrees(1.0, 100, 100.0, 57.2958), 1.0, rel_tol=1e-4)


@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_privatize_noise_has_the_claimed_law(rng, mechanism):
    n, r_side = 400, 120
    sens = heatmap_sensitivity(r_side * r_side, n, 1.0, cap_total=50.0)
    agg = rng.random((r_side, r_side)) * 0.1
    out = hm.privatize(agg, HeatmapSetting(1.0, n ** -1.5, mechanism), sens, rng)
    cal = out.calibration
    z = (out.map.astype(float) - agg).ravel()
    if mechanism == "gaussian":
        assert cal.std == cal.scale
        p = stats.kstest(z, stats.norm(scale=cal.scale).cdf).pvalue
    else:
        assert math.isclose(cal.scale, sens.l1 / 1.0) and math.isclose(cal.std, math.sqrt(2) * cal.scale)
        p = stats.kstest(z, stats.laplace(scale=cal.scale).cdf).pvalue
    assert p > 1e-3
    # Sample std within 4 standard errors of the claimed std (se of s² ≈ σ²·√((κ−1)/N)).
    kurt = 3.0 if mechanism == "gaussian" else 6.0
    se_var = cal.std ** 2 * math.sqrt((kurt - 1) / z.size)
    assert abs(z.var() - cal.std ** 2) < 4 * se_var


def test_privatize_guards(rng):
    sens = heatmap_sensitivity(100, 10)
    with pytest.raises(ValueError):
        hm.privatize(np.zeros((10, 11)), HeatmapSetting(1.0, 1e-3, "gaussian"), sens, rng)
    with pytest.raises(ValueError):
        hm.privatize(np.zeros((10, 10)), HeatmapSetting(1.0, 1e-3, "random-selection"), sens, rng)
    same_a = hm.privatize(np.zeros((10, 10)), HeatmapSetting(1.0, 1e-3, "gaussian"), sens, np.random.default_rng(5)).map
    same_b = hm.privatize(np.zeros((10, 10)), HeatmapSetting(2.0, 1e-3, "gaussian"), sens, np.random.default_rng(5)).map
    # Same seed, other ε: the same noise pattern rescaled (keeps the preview stable while ε moves).
    assert np.corrcoef(same_a.ravel(), same_b.ravel())[0, 1] > 0.999999


@pytest.mark.parametrize("mechanism,method", [("gaussian", "analytic"), ("gaussian", "liu-thm-3.4"),
                                              ("laplace", "laplace")])
def test_privatize_draws_through_the_mechanism_object_of_its_calibration(mechanism, method):
    """One noise path: the preview noise is exactly what the calibration's mechanism object draws."""
    sens = heatmap_sensitivity(12 * 9, 20, 1.0)
    agg = np.linspace(0, 1, 12 * 9).reshape(12, 9)
    out = hm.privatize(agg, HeatmapSetting(0.7, 1e-5, mechanism, method), sens, np.random.default_rng(8))
    ref = from_calibration(out.calibration).sample(np.random.default_rng(8), agg.shape, np.float32)
    assert out.map.dtype == np.float32 and out.calibration.method == method
    np.testing.assert_array_equal(out.map, ref + agg.astype(np.float32))
    z = hm.draw_noise(np.random.default_rng(8), mechanism, out.calibration.scale, agg.shape)
    np.testing.assert_array_equal(z, ref)


def test_realdata_osie_image_maps_and_aggregate(realdata):
    fix = pd.read_csv(realdata / "osie" / "osie_fixations.csv.gz")
    one = fix[fix["image"] == "1001.jpg"]
    gm = hm.gaze_maps(one, 800, 600, cell=1, observer_col="subject")
    assert gm.n_observers == 15 and gm.n_dropped == 0
    assert gm.totals().sum() == len(one)
    agg = hm.aggregate(gm, cap_m=1)
    assert agg.shape == (600, 800)
    # Aggregate of the capped maps, checked against a direct count of distinct fixated pixels.
    px = one.assign(cx=(one.x // 1).astype(int), cy=(one.y // 1).astype(int))
    px = px.drop_duplicates(["subject", "cx", "cy"])
    assert math.isclose(agg.sum() * 15, len(px))
    coarse = hm.gaze_maps(one, 800, 600, cell=25, weight="duration", observer_col="subject")
    assert coarse.grid_shape == (24, 32)
    assert math.isclose(coarse.totals().sum(), one["duration_ms"].sum() / 1000, rel_tol=1e-12)
    heat = hm.smooth(hm.aggregate(coarse, 2.0), 30.0, cell=25)
    assert heat.shape == (24, 32) and np.isfinite(heat).all()
