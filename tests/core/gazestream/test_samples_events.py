"""Fitted saccade velocity profiles reproduce synthetic saccades (eyedp_core.gazestream.events)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.gazestream.events import event_params, fit_velocity_profiles, gaussian_profile, saccade_progress


def _saccades(rng: np.random.Generator, fs: float, count: int):
    """Gaussian-profile saccades sampled at fs, positions with 0.01° noise -> flat central-difference speeds."""
    dt = 1 / fs
    a = rng.uniform(150, 500, count)
    b = rng.uniform(0.02, 0.04, count)
    c = rng.uniform(0.008, 0.02, count)
    taus, speeds, segs, truth = [], [], [], []
    for s in range(count):
        tt = np.arange(-2 * dt, b[s] + 4 * c[s] + 2 * dt, dt) + rng.uniform(0, dt)
        pos = a[s] * c[s] * np.sqrt(2 * np.pi) * ndtr((tt - b[s]) / c[s]) + rng.normal(0, 0.01, tt.size)
        v = np.full(tt.size, np.nan)
        v[1:-1] = np.abs(pos[2:] - pos[:-2]) / (2 * dt)
        taus.append(tt)
        speeds.append(v)
        segs.append(np.full(tt.size, s))
        truth.append(gaussian_profile(tt, a[s], b[s], c[s]))
    return (np.concatenate(taus), np.concatenate(speeds), np.concatenate(segs), np.concatenate(truth)), (a, b, c)


@pytest.mark.parametrize("fs", [500.0, 120.0])
def test_fitted_profiles_reproduce_synthetic_saccades(rng, fs):
    (tau, v, seg, truth), (a, b, c) = _saccades(rng, fs, 150)
    fa, fb, fc, ok = fit_velocity_profiles(tau, v, seg, 150, 1 / fs)
    assert ok.mean() > 0.95
    assert np.median(np.abs(fa / a - 1)) < 0.02 and np.max(np.abs(fa / a - 1)) < 0.08
    assert np.median(np.abs(fb - b)) < 0.0005
    assert np.median(np.abs(fc / c - 1)) < 0.02
    # The fitted curve reproduces the true speed at the sample times (relative RMS over each saccade).
    err = (gaussian_profile(tau, fa[seg], fb[seg], fc[seg]) - truth) ** 2
    rel = np.sqrt(np.bincount(seg, err) / np.bincount(seg, truth ** 2))
    assert np.median(rel) < 0.03


def test_box_correction_removes_the_central_difference_blur(rng):
    (tau, v, seg, _), (_, _, c) = _saccades(rng, 120.0, 150)
    _, _, raw_c, _ = fit_velocity_profiles(tau, v, seg, 150, 1 / 120, box_corrected=False)
    _, _, fixed_c, _ = fit_velocity_profiles(tau, v, seg, 150, 1 / 120)
    assert np.median(raw_c / c - 1) > 0.05  # without it, widths come out several % too wide at 120 Hz
    assert abs(np.median(fixed_c / c - 1)) < 0.02


def test_event_params_on_a_synthetic_stream(rng):
    """Fixation-saccade-fixation at 500 Hz through detection: centres, spreads and profiles come back."""
    dt = 1 / 500.0  # 500 Hz
    deg_px = SAMPLE_SCREEN.deg_per_px()[0]
    xs, t_all, true = [], [], []
    x0, t = 300.0, 0.0
    for i in range(12):
        n_fix = 150
        xs.append(x0 + rng.normal(0, 1.5, n_fix))
        t_all.append(t + np.arange(n_fix) * dt)
        t += n_fix * dt
        amp_px = rng.uniform(60, 200) * (1 if i % 2 == 0 else -1)
        c = rng.uniform(0.008, 0.014)
        dur = 8 * c
        tt = np.arange(0, dur, dt)
        xs.append(x0 + amp_px * (ndtr((tt - 4 * c) / c) - ndtr(-4.0)) / (ndtr(4.0) - ndtr(-4.0)))
        t_all.append(t + tt)
        t += tt.size * dt
        true.append((abs(amp_px) * deg_px, c))
        x0 += amp_px
    xs.append(x0 + rng.normal(0, 1.5, 150))
    t_all.append(t + np.arange(150) * dt)
    x = np.concatenate(xs)
    frame = pd.DataFrame({"participant": "S", "t_s": np.concatenate(t_all), "x": x,
                          "y": 400 + rng.normal(0, 1.5, x.size)})
    ep = event_params(frame, SAMPLE_SCREEN)
    assert len(ep.fixations) == 13 and len(ep.saccades) == 12
    assert np.allclose(ep.fixations["sd_x"], 1.5, rtol=0.3)
    amp_true, c_true = map(np.array, zip(*true))
    area = ep.saccades["a"] * ep.saccades["c"] * np.sqrt(2 * np.pi)
    assert np.allclose(area, amp_true, rtol=0.08)
    assert np.allclose(ep.saccades["c"], c_true, rtol=0.15)


def test_saccade_progress_runs_from_zero_to_one():
    tau = np.linspace(0, 0.05, 11)
    p = saccade_progress(tau, np.full(11, 0.025), np.full(11, 0.006), np.full(11, 0.05))
    assert p[0] == pytest.approx(0, abs=1e-9) and p[-1] == pytest.approx(1, abs=1e-9)
    assert np.all(np.diff(p) >= 0)
