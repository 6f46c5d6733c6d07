"""Bundled sample data: shapes, columns, contents, size, load speed, copies, stimuli."""
from __future__ import annotations

import time

import numpy as np
import pytest

from eyedp_core.data import bundled
from eyedp_core.gaze.feature_specs import FEATURE_NAMES


def test_reading_features_layout():
    df = bundled.load_sample("reading_features")
    assert list(df.columns) == ["participant", "gender", "task", "window", "t_start_s"] + FEATURE_NAMES
    assert sorted(df["participant"].unique()) == [f"P{i:02d}" for i in range(1, 21)]
    genders = df.groupby("participant")["gender"].first()
    assert (genders == "female").sum() == 10 and (genders == "male").sum() == 10
    per_rec = df.groupby(["participant", "task"])
    assert per_rec.ngroups == 60 and set(df["task"]) == {"textbook", "newspaper", "comic"}
    # >= 5 minutes each: (300 - 30) / 0.5 + 1 windows at least, numbered 0.. and 0.5 s apart.
    assert per_rec.size().min() >= 541
    assert (per_rec["window"].min() == 0).all() and (per_rec["window"].diff().dropna() == 1).all()
    np.testing.assert_allclose(df["t_start_s"], df["window"] * 0.5)
    assert df[FEATURE_NAMES].dtypes.eq(np.float64).all() and df[FEATURE_NAMES].notna().all().all()


def test_fixations_streams_demographics():
    fx = bundled.load_sample("fixations")
    assert list(fx.columns)[:5] == ["observer", "stimulus", "x", "y", "duration_ms"]
    assert fx["observer"].nunique() >= 40 and sorted(fx["observer"].unique())[0] == "O01"
    assert set(fx["stimulus"]) == set(bundled.stimulus_names()) and fx["stimulus"].nunique() >= 3
    assert fx["x"].between(0, 1280).all() and fx["y"].between(0, 800).all()
    assert fx.groupby(["observer", "stimulus"]).size().min() >= 10
    gs = bundled.load_sample("gaze_streams")
    assert {"participant", "t_s", "x", "y", "pupil"} <= set(gs.columns)
    assert gs["participant"].nunique() >= 10
    for _, g in gs.groupby("participant"):
        dt = np.diff(g["t_s"].to_numpy())
        assert np.allclose(dt, 1 / 120) and g["t_s"].max() >= 119.9
        assert 0.005 < g["x"].isna().mean() < 0.15  # blinks and tracker loss
    demo = bundled.load_sample("demographics")
    assert list(demo.columns) == ["participant", "age", "gender"] and len(demo) == 20
    assert demo["age"].between(18, 70).all()
    rf = bundled.load_sample("reading_features")
    assert (rf.groupby("participant")["gender"].first() == demo.set_index("participant")["gender"]).all()
    assert set(gs["participant"]) <= set(demo["participant"])


def test_copies_cache_and_load_speed():
    a = bundled.load_sample("demographics")
    a.loc[0, "age"] = -1
    assert bundled.load_sample("demographics").loc[0, "age"] != -1
    bundled._read.cache_clear()
    t = time.perf_counter()
    for name in bundled.SAMPLE_NAMES:
        bundled.load_sample(name)
    assert time.perf_counter() - t < 1.0
    with pytest.raises(KeyError, match="unknown sample"):
        bundled.load_sample("nope")


def test_bundle_size_and_readme():
    files = list(bundled.SAMPLE_DIR.glob("*.parquet"))
    assert {f.stem for f in files} == set(bundled.SAMPLE_NAMES)
    assert sum(f.stat().st_size for f in files) < 20e6
    readme = (bundled.SAMPLE_DIR / "README.md").read_text()
    for name in bundled.SAMPLE_NAMES:
        assert name in readme
    assert "MASTER_SEED" in readme and all(isinstance(v, str) and v for v in bundled.SAMPLE_NAMES.values())


def test_stimuli_and_screen():
    names = bundled.stimulus_names()
    assert names == ["comic", "portrait", "webpage"]
    for n in names:
        img = bundled.stimulus_image(n)
        assert img.shape == (800, 1280, 3) and img.dtype == np.uint8
        assert img.std() > 30  # a real picture, not a flat fill
        img[0, 0] = 0  # writable copy, the cache stays intact
    with pytest.raises(KeyError):
        bundled.stimulus_image("missing")
    s = bundled.SAMPLE_SCREEN
    assert (s.width_px, s.height_px) == (1280, 800)
    assert s.deg_per_px()[0] == pytest.approx(0.0354, abs=0.001)


def test_the_summary_file_matches_the_bundled_tables() -> None:
    """sample_data/summary.json (what Home lists without loading a table) equals a summary of each loaded table."""
    for name in bundled.SAMPLE_NAMES:
        assert bundled.summary(name) == bundled.summarise(bundled.load_sample(name)), name
