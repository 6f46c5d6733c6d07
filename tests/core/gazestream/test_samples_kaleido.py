"""Planar Laplace and Kaleido (docs/PRIVACY_MODEL.md §8; check vectors V-KAL-1, V-KAL-2)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from eyedp_core import gazestream
from eyedp_core.dp.planar import planar_laplace, radius_quantile
from eyedp_core.gazestream.kaleido import kaleido_plan, kaleido_run, window_sums

ALPHA = 0.001  # KS tests: with a fixed seed these are deterministic; alpha bounds the false-alarm rate over seeds


def test_planar_laplace_radius_is_gamma_2_and_angles_uniform(rng):
    eps = 0.01  # ε' per px: ε_pub = 0.5 at r = 50 px (V-KAL-2)
    pts = np.tile([[640.0, 400.0]], (20_000, 1))
    out = planar_laplace(pts, eps, rng)
    d = out - pts
    radius = np.hypot(d[:, 0], d[:, 1])
    angle = np.mod(np.arctan2(d[:, 1], d[:, 0]), 2 * math.pi)
    assert stats.kstest(radius, stats.gamma(a=2, scale=1 / eps).cdf).pvalue > ALPHA
    assert stats.kstest(angle, stats.uniform(0, 2 * math.pi).cdf).pvalue > ALPHA
    # The pseudocode's mistake of using ε instead of ε/r (here: scale 1/0.5) is rejected outright.
    assert stats.kstest(radius, stats.gamma(a=2, scale=2.0).cdf).pvalue < 1e-9
    # A 1-D Laplace per axis (a common shortcut) has the wrong radius law.
    lap = np.hypot(*rng.laplace(0, 1 / eps, (2, 20_000)))
    assert stats.kstest(lap, stats.gamma(a=2, scale=1 / eps).cdf).pvalue < 1e-9
    assert np.linalg.norm(d.mean(axis=0)) < 3.0  # mean displacement vector ~ 0 (E[R] = 200 px)


def test_planar_laplace_quantiles_match_v_kal_2():
    assert radius_quantile(0.5, 0.01) == pytest.approx(167.8347, abs=1e-3)
    assert radius_quantile(0.95, 0.01) == pytest.approx(474.3865, abs=1e-3)
    assert radius_quantile(0.99, 0.01) == pytest.approx(663.8352, abs=1e-3)


def test_budget_split_matches_v_kal_1():
    plan = kaleido_plan(epsilon=1, w=30, t_skip=3, h=2, r=50, l_thresh=20, min_pub=1e-3)
    assert plan.n_test == 10 and plan.eps_test == pytest.approx(0.05)
    assert plan.test_noise_scale == pytest.approx(1000.0)  # Lap(r/ε_test) in px, not Lap(1/ε_test)
    assert plan.schedule(6) == pytest.approx([0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125])


@st.composite
def _streams(draw):
    n = draw(st.integers(1, 400))
    kind = draw(st.sampled_from(["walk", "jumps", "still"]))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    if kind == "walk":
        pts = 600 + np.cumsum(rng.normal(0, 20, (n, 2)), axis=0)
    elif kind == "jumps":
        pts = rng.uniform(0, 1280, (n, 2))
    else:
        pts = np.full((n, 2), 500.0) + rng.normal(0, 1, (n, 2))
    if draw(st.booleans()):  # blinks: runs of NaN
        start = draw(st.integers(0, n - 1))
        pts[start:start + draw(st.integers(1, 50))] = np.nan
    params = dict(epsilon=draw(st.floats(0.05, 20)), w=draw(st.integers(1, 120)), t_skip=draw(st.integers(1, 30)),
                  h=draw(st.floats(1.05, 10)), r=draw(st.floats(1, 300)), l_thresh=draw(st.floats(-50, 300)))
    return pts, params, seed


@settings(max_examples=80, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_streams())
def test_kaleido_never_spends_more_than_epsilon_in_any_window(case):
    pts, p, seed = case
    out, eps = gazestream.kaleido(pts, kaleido_plan(**p), np.random.default_rng(seed))
    assert out.shape == pts.shape and eps.shape == (len(pts),)
    assert np.all(eps >= 0)
    assert window_sums(eps, p["w"]).max(initial=0.0) <= p["epsilon"] * (1 + 1e-9)
    # Tests alone never exceed ε/h per window (at most ⌈w/t_skip⌉ test slots fit in w samples).
    run = kaleido_run(pts, kaleido_plan(**p), np.random.default_rng(seed))
    tests = np.where(run.tested, run.plan.eps_test, 0.0)
    assert window_sums(tests, p["w"]).max(initial=0.0) <= p["epsilon"] / p["h"] * (1 + 1e-9)


def test_budget_refills_in_a_sliding_window(rng):
    """With the pseudocode's whole-history sum the budget would run out after the first window; with the
    sliding window new points keep being published throughout a long stream."""
    pts = rng.uniform(0, 1280, (6000, 2))  # a jump every sample: every test wants to publish
    run = kaleido_run(pts, kaleido_plan(epsilon=1, w=60, l_thresh=0, t_skip=6, r=50, h=2), rng)
    late = run.new_point[3000:]
    assert late.sum() > 100
    assert window_sums(run.eps, 60).max() <= 1.0


def test_noise_is_in_pixels_scaling_the_screen_scales_the_output():
    """Scaling the stream, r and l_thresh by s scales the output by s, with the same draws: both the test noise
    (Lap(r/ε_test)) and the planar noise (ε/r) are in pixel units (the pseudocode's Lap(1/ε_test) is not)."""
    base = np.cumsum(np.random.default_rng(3).normal(0, 15, (2000, 2)), axis=0) + 600
    kw = dict(epsilon=2.0, w=60, t_skip=6, h=2.0)
    a, ea = gazestream.kaleido(base, kaleido_plan(r=40.0, l_thresh=30.0, **kw), np.random.default_rng(9))
    b, eb = gazestream.kaleido(base * 3, kaleido_plan(r=120.0, l_thresh=90.0, **kw), np.random.default_rng(9))
    assert np.allclose(b, 3 * a, equal_nan=True, rtol=1e-9, atol=1e-6) and np.array_equal(ea, eb)


def test_kaleido_on_a_table_keeps_streams_apart(rng):
    import pandas as pd

    t = np.arange(300) / 120
    df = pd.DataFrame({"participant": np.repeat(["A", "B"], 300), "t_s": np.r_[t, t],
                       "x": rng.uniform(0, 1280, 600), "y": rng.uniform(0, 800, 600)})
    out, eps = gazestream.kaleido(df, kaleido_plan(epsilon=1, w=30, l_thresh=10, t_skip=3, r=50, h=2), rng, (1280, 800))
    assert list(out.columns) == list(df.columns) and len(eps) == 600
    for who in "AB":
        e = eps[(df["participant"] == who).to_numpy()]
        assert window_sums(e, 30).max() <= 1.0 and e[0] > 0  # each stream starts its own budget
    x = out["x"].to_numpy()
    assert np.nanmin(x) >= 0 and np.nanmax(x) <= 1280
    with pytest.raises(ValueError, match="h must be > 1"):
        gazestream.kaleido(df, kaleido_plan(epsilon=1, w=30, l_thresh=10, t_skip=3, r=50, h=1), rng)
