"""Release-grade exports (eyedp_core.exports, release_source): files re-import through EyeDP's own readers,
no export holds a raw input value where it should be noisy, and release noise follows its claimed law."""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from scipy import stats

from eyedp_core import io
from eyedp_core.data import bundled
from eyedp_core.dp.noise import GaussianMechanism, LaplaceMechanism
from eyedp_core.dp.registry import Mech
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports import release_feature_table, release_gaze_samples
from eyedp_core.gazestream.kaleido import kaleido_plan
from eyedp_core.gazestream.streams import prepare_streams
from eyedp_core.timeseries.setting import MechanismSetting
from eyedp_core.timeseries.signals import feature_columns, feature_tensor

# KS tests of unseeded draws (OpenDP, by design): a correct sampler fails once in a million runs, and N = 8,000
# draws still reject the std-vs-scale confusion (a law √2 too wide: D ≈ 0.06 against a critical 0.03).
P_MIN = 1e-6
N = 8000


@pytest.fixture(scope="module")
def features():
    f = bundled.load_sample("reading_features")
    names = tuple(feature_columns(f))[:6]
    x, recs = feature_tensor(f, names, length=600)
    lo, hi = np.nanmin(x, axis=(0, 2)), np.nanmax(x, axis=(0, 2))
    return f, names, x, recs, lo, hi


def test_feature_export_reimports_and_holds_no_raw_value(features) -> None:
    raw, names, x, recs, lo, hi = features
    rel = release_feature_table(x, recs, names, lo, hi,
                                setting=MechanismSetting(mech=Mech.CFPA, chunk=32, k=2, epsilon=1e4),
                                participant_epsilon=1e4 * 6 * 19 * 3, invocations=6 * 19 * 3)
    csv = io.to_csv_bytes(rel.table)
    back = io.apply_mapping(io.read_table(csv, "eyedp_features_release.csv"),
                            io.guess_mapping(io.read_table(csv, "eyedp_features_release.csv"), "features"),
                            "features", "eyedp_features_release.csv")
    assert len(back) == len(rel.table) and set(names) <= set(back.columns)
    # Exactly T = 600 rows per recording (rows past a recording's end are released noise, not its length).
    assert len(rel.table) == 600 * len(recs)
    merged = rel.table.merge(raw, on=["participant", "task", "window"], suffixes=("_rel", "_raw"))
    assert len(merged) == int(np.minimum(recs["length"], 600).sum())
    for n in names:
        released, original = merged[f"{n}_rel"].to_numpy(), merged[f"{n}_raw"].to_numpy()
        inside = (released > lo[names.index(n)]) & (released < hi[names.index(n)])  # clamped values are bounds
        assert inside.mean() > 0.5, n
        assert not np.any(released[inside] == original[inside]), f"raw value of {n} in the export"
    man = rel.manifest
    assert man["mode"] == "release" and man["noise"]["seeded"] is False and man["noise"]["values_drawn"] > 0
    assert man["mechanism"] == "CFPA-32" and man["parameters"]["k"] == 2


def test_gaze_export_reimports_drops_pupil_and_moves_every_point() -> None:
    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02"])].reset_index(drop=True)
    df = prepare_streams(g, width_px=1280, height_px=800).frame
    plan = kaleido_plan(epsilon=5.0, w=60, l_thresh=60, t_skip=12, r=50, h=2.0, min_pub=0.15)
    rel = release_gaze_samples(df, plan, (1280, 800))
    assert "pupil" not in rel.table.columns
    csv = io.to_csv_bytes(rel.table)
    raw_back = io.read_table(csv, "eyedp_gaze_release.csv")
    back = io.apply_mapping(raw_back, io.guess_mapping(raw_back, "gaze"), "gaze", "eyedp_gaze_release.csv")
    assert len(back) == len(rel.table)
    joined = rel.table.merge(df, on=["participant", "task", "t_s"], suffixes=("_rel", "_raw"))
    same = (joined["x_rel"] == joined["x_raw"]) | (joined["y_rel"] == joined["y_raw"])
    inside = (joined["x_rel"] > 0) & (joined["x_rel"] < 1280) & (joined["y_rel"] > 0) & (joined["y_rel"] < 800)
    assert not same[inside].any(), "a raw gaze position in the export"
    assert rel.windows_per_person == -(-int(df.groupby("participant").size().max()) // 60)
    assert rel.manifest["unit_of_privacy"] == "w-event" and rel.manifest["noise"]["seeded"] is False


def test_release_functions_take_no_seed() -> None:
    for fn in (release_feature_table, release_gaze_samples, ReleaseSource.__init__):
        params = set(inspect.signature(fn).parameters)
        assert not params & {"seed", "rng", "random_state"}, fn


def test_release_laplace_and_gaussian_follow_their_laws() -> None:
    src = ReleaseSource()
    z = LaplaceMechanism(epsilon=0.5, sensitivity=2.0).sample(src, (N,))  # b = 4
    assert stats.kstest(z, stats.laplace(scale=4.0).cdf).pvalue > P_MIN
    assert stats.kstest(z, stats.laplace(scale=4.0 * np.sqrt(2)).cdf).pvalue < P_MIN  # the test has the power
    g = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0).sample(src, (N,))
    sigma = GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0).scale
    assert stats.kstest(g, stats.norm(scale=sigma).cdf).pvalue > P_MIN
    assert stats.kstest(g, stats.norm(scale=sigma * np.sqrt(2)).cdf).pvalue < P_MIN
    # Per-element scales: each group follows its own scale.
    s = np.where(np.arange(N) % 2 == 0, 1.0, 10.0)
    mixed = src.draw("laplace", (N,), s)
    assert stats.kstest(mixed[::2], stats.laplace(scale=1.0).cdf).pvalue > P_MIN
    assert stats.kstest(mixed[1::2], stats.laplace(scale=10.0).cdf).pvalue > P_MIN
    # Two sources give different draws (no hidden seed).
    assert not np.array_equal(src.draw("laplace", (50,), 1.0), ReleaseSource().draw("laplace", (50,), 1.0))


def test_release_planar_laplace_has_gamma2_radius_and_uniform_angle() -> None:
    d = ReleaseSource().planar_unit(N)
    radius = np.hypot(d[:, 0], d[:, 1])
    angle = np.arctan2(d[:, 1], d[:, 0])
    assert stats.kstest(radius, stats.gamma(a=2.0).cdf).pvalue > P_MIN
    assert stats.kstest(angle, stats.uniform(loc=-np.pi, scale=2 * np.pi).cdf).pvalue > P_MIN
    # Mean radius 2/ε' for ε' = 0.25 through the mechanism object (8 px), within 5 %.
    from eyedp_core.dp.planar import PlanarLaplaceMechanism
    r = np.hypot(*PlanarLaplaceMechanism(epsilon=0.25).sample(ReleaseSource(), 4000).T)
    assert r.mean() == pytest.approx(8.0, rel=0.05)
