"""Gaze simulator: determinism, raw-signal physiology, task structure, free viewing, stimuli, CLI."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from eyedp_core.data import bundled
from eyedp_core.data.simulator import main as simulate
from eyedp_core.data.simulator.freeview import idiosyncratic_spots
from eyedp_core.data.simulator.people import Modulation, situational
from eyedp_core.data.simulator.stimuli import HEIGHT, STIMULI, WIDTH, comic_layout, render_stimuli
from eyedp_core.data.simulator.tasks import DOCUMENTS, comic_fixations, text_fixations
from eyedp_core.gaze.events import detect_events


@pytest.fixture(scope="module")
def people() -> pd.DataFrame:
    return simulate.readers()


def _still(duration: float = 400.0) -> Modulation:
    """A modulation with flat latent states and no fatigue (isolates the task model)."""
    n = int(duration) + 2
    return Modulation({"engagement": np.zeros(n), "arousal": np.zeros(n)}, 1.0, 0.0, 0.0)


def test_recordings_are_deterministic_and_personal(people):
    a = simulate.simulate_recording(2, "newspaper", people)
    b = simulate.simulate_recording(2, "newspaper", people)
    pd.testing.assert_frame_equal(a, b)
    c = simulate.simulate_recording(3, "newspaper", people)
    assert not np.allclose(a["x"].to_numpy()[:1000], c["x"].to_numpy()[:1000], equal_nan=True)
    assert simulate.readers().equals(people)


def test_raw_signal_physiology(people):
    s = simulate.simulate_recording(5, "textbook", people)
    t = s["t_s"].to_numpy()
    assert np.allclose(np.diff(t), 1 / 120) and t[-1] >= 299.9
    assert 0.005 < s["x"].isna().mean() < 0.12
    assert s["pupil"].dropna().between(1.5, 9).all()
    ev = detect_events(s, simulate.SAMPLE_SCREEN)
    sac = ev[ev["type"] == "saccade"]
    big = sac[sac["amplitude_deg"] > 1.0]
    # Main sequence: bigger saccades are faster and last longer (as in Bahill et al. 1975).
    assert big["amplitude_deg"].corr(big["peak_velocity_deg_s"], method="spearman") > 0.6
    assert big["amplitude_deg"].corr(big["duration_ms"], method="spearman") > 0.5
    fx = ev[ev["type"] == "fixation"]
    assert 150 < fx["duration_ms"].mean() < 400
    blinks = ev[ev["type"] == "blink"]
    rate = len(blinks) / (t[-1] / 60)
    expected = people.iloc[5]["blink_per_min"] * np.exp(-0.30)  # textbook lowers blinking
    assert expected / 2 < rate < expected * 2


def test_textbook_is_read_line_by_line(people, rng):
    traits = situational(rng, people.iloc[0])
    layouts, shares = DOCUMENTS["textbook"]
    fx = text_fixations(rng, traits, _still(), "textbook", 300.0, layouts, shares)
    text = fx["kind"] == 0
    x, y = fx["x"][text], fx["y"][text]
    dx, dy = np.diff(x), np.diff(y)
    same_line = np.abs(dy) < 10
    assert np.mean(dx[same_line] > 0) > 0.75  # progressive saccades dominate, some regressions
    assert 0.03 < np.mean(dx[same_line] < 0) < 0.3
    sweeps = (dx < -250) & (dy > 10) & (dy < 60)
    lines = np.unique(np.round((y - 100) / 30 / traits["zoom"]))
    assert sweeps.sum() >= 0.5 * lines.size  # one return sweep per line read (pages excepted)
    assert (~text).any()  # some excursions to the figure


def test_newspaper_columns_and_comic_panels(people, rng):
    traits = situational(rng, people.iloc[1])
    layouts, shares = DOCUMENTS["newspaper"]
    news = text_fixations(rng, traits, _still(), "newspaper", 300.0, layouts, shares)
    tb = text_fixations(rng, traits, _still(), "textbook", 300.0, *DOCUMENTS["textbook"])
    amp = lambda f: np.hypot(np.diff(f["x"]), np.diff(f["y"]))  # noqa: E731
    # Narrower columns: shorter return sweeps, so fewer very long horizontal jumps than in the textbook.
    assert np.mean(amp(news) > 500) < np.mean(amp(tb) > 500)
    panels = comic_layout(np.random.default_rng([simulate.MASTER_SEED, 7, STIMULI.index("comic")]))
    comic = comic_fixations(rng, traits, _still(), 300.0, panels)
    boxes = np.array([p.box for p in panels])
    zx = 640 + (comic["x"] - 640) / np.clip(traits["zoom"], 0.85, 1.15)
    zy = 400 + (comic["y"] - 400) / np.clip(traits["zoom"], 0.85, 1.15)
    inside = ((zx[:, None] >= boxes[:, 0] - 30) & (zx[:, None] <= boxes[:, 2] + 30)
              & (zy[:, None] >= boxes[:, 1] - 30) & (zy[:, None] <= boxes[:, 3] + 30)).any(axis=1)
    assert inside.mean() > 0.97
    vertical = lambda f: np.mean(np.abs(np.diff(f["y"])) > np.abs(np.diff(f["x"])))  # noqa: E731
    assert vertical(comic) > 2 * vertical(tb)
    assert np.mean(comic["kind"] == 1) > 0.25  # comics: much more picture viewing


def test_free_viewing_follows_regions_and_personal_spots():
    fx = bundled.load_sample("fixations")
    spots = idiosyncratic_spots(simulate.MASTER_SEED, 40) * [WIDTH, HEIGHT]
    obs = sorted(fx["observer"].unique())
    near = np.zeros((40, 40))  # near[o, k]: share of o's fixations within 40 px of k's spot
    for i, o in enumerate(obs):
        f = fx[fx["observer"] == o]
        d = np.hypot(f["x"].to_numpy()[:, None] - spots[:, 0], f["y"].to_numpy()[:, None] - spots[:, 1])
        near[i] = (d < 40).mean(axis=0)
    own = np.diag(near)
    others = (near.sum(axis=0) - own) / 39
    # Each observer keeps returning to a spot nobody else favours: a difference attack can find them.
    assert (own > 0.05).all() and (own > 3 * others + 0.02).mean() >= 0.95
    _, regions = render_stimuli(simulate.MASTER_SEED)["portrait"]
    p = fx[fx["stimulus"] == "portrait"]
    eyes = [r for r in regions if "eye" in r.name]
    on_eyes = sum(((p["x"] - r.x) / (2 * r.sx)) ** 2 + ((p["y"] - r.y) / (2 * r.sy)) ** 2 < 1 for r in eyes)
    assert on_eyes.mean() > 0.2  # eyes are 0.2 % of the picture's area
    first = fx.sort_values("t_start_s").groupby(["observer", "stimulus"]).first()
    assert (np.hypot(first["x"] - 640, first["y"] - 400) < 60).all()


def test_stimuli_match_bundle_and_regions_are_inside():
    for name, (img, regions) in render_stimuli(simulate.MASTER_SEED).items():
        assert img.size == (WIDTH, HEIGHT)
        stored = np.asarray(Image.open(bundled.STIMULUS_DIR / f"{name}.png").convert("RGB"), float)
        assert np.abs(np.asarray(img, float) - stored).mean() < 1.0
        assert all(0 <= r.x <= WIDTH and 0 <= r.y <= HEIGHT and r.weight > 0 for r in regions)


# Regenerating must reproduce the stored sample on any x86-64 machine, within a stated tolerance. numpy picks
# its SIMD kernels for exp, log, sin, ... by CPU (AVX-512, AVX2 or the baseline), and they differ in the last
# bits. In a few recordings such a difference flips one discrete step of the simulator, and from there that
# recording is another, equally valid draw of the same person. Measured on the machine that wrote the sample,
# with numpy's AVX-512 kernels (or all but the baseline ones) switched off: 3 of the 60 reading recordings
# (P01, P02, P04 comic; 4.8 % of the feature windows) differ, every other recording of every table is identical
# to the bit, and no feature's mean or standard deviation over the table moves by more than 0.22 %. So:
REPRODUCED_SHARE = 0.9  # of each table's recordings must be reproduced (measured: 57 of 60, 95 %)
RTOL = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-9}  # "reproduced": float32 rounding flips 1 ulp
COLUMN_RTOL = 0.01  # each float column's mean and standard deviation over the whole table (measured <= 0.22 %)
# A recording: one person (in one task or on one stimulus); the tables' person and condition columns.
RECORDING_KEYS = ("participant", "observer", "task", "stimulus")


def _reproduced(new: pd.DataFrame, old: pd.DataFrame) -> np.ndarray:
    """Row-wise: every column as stored (floats within RTOL of their stored dtype, the rest exactly)."""
    same = np.ones(len(old), dtype=bool)
    for c in old.columns:
        a, b = new[c].to_numpy(), old[c].to_numpy()
        if b.dtype.kind == "f":
            same &= np.isclose(a, b, rtol=RTOL[b.dtype], atol=0.0, equal_nan=True)
        else:
            same &= a == b
    return same


def _assert_within_tolerance(sample_dir) -> None:
    """Every regenerated table in sample_dir matches the bundled one within the tolerance stated above."""
    for name in bundled.SAMPLE_NAMES:
        new = pd.read_parquet(sample_dir / f"{name}.parquet")
        old = pd.read_parquet(bundled.SAMPLE_DIR / f"{name}.parquet")
        # Layout, and every column that is not a float (ids, labels, ages), exactly as stored.
        assert list(new.columns) == list(old.columns) and (new.dtypes == old.dtypes).all(), name
        assert len(new) == len(old), name
        fixed = [c for c in old.columns if old[c].dtype.kind != "f"]
        pd.testing.assert_frame_equal(new[fixed], old[fixed], check_exact=True, obj=name)
        keys = [c for c in RECORDING_KEYS if c in old.columns]
        same = pd.Series(_reproduced(new, old)).groupby([old[k] for k in keys]).all() if keys else None
        if same is not None:
            assert same.mean() >= REPRODUCED_SHARE, (
                f"{name}: only {same.sum()} of {same.size} recordings reproduced; differing: "
                f"{list(same.index[~same.to_numpy()])[:10]}")
        for c in old.columns:
            if old[c].dtype.kind != "f":
                continue
            for stat in ("mean", "std"):
                want, got = getattr(old[c].astype(float), stat)(), getattr(new[c].astype(float), stat)()
                assert abs(got - want) <= COLUMN_RTOL * abs(want) + 1e-12, f"{name}.{c} {stat}: {got} vs {want}"


def test_full_regeneration_is_fast_and_reproduces_the_sample(tmp_path):
    t = time.perf_counter()
    args = ["--sample-dir", str(tmp_path / "data"), "--stimulus-dir", str(tmp_path / "stim")]
    assert simulate.main(args) == 0
    assert time.perf_counter() - t < 60  # target: < 2 minutes on a shared 2-core machine; measured ~5 s
    _assert_within_tolerance(tmp_path / "data")
    assert sorted(p.name for p in (tmp_path / "stim").iterdir()) == [f"{s}.png" for s in sorted(STIMULI)]


@pytest.mark.slow
def test_regeneration_with_other_simd_kernels_stays_within_tolerance(tmp_path):
    """The same regeneration in a process whose numpy may use only its baseline kernels (as on an older CPU):
    the stated tolerance must hold there too, so it is checked on every machine, not only on another one."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    extra = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]  # what this CPU adds to the baseline
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(extra),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(bundled.ROOT), os.environ.get("PYTHONPATH")]))}
    args = ["--sample-dir", str(tmp_path / "data"), "--stimulus-dir", str(tmp_path / "stim")]
    done = subprocess.run([sys.executable, "-m", simulate.__name__, *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    _assert_within_tolerance(tmp_path / "data")
