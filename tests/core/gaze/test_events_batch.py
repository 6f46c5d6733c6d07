"""detect_events over many recordings gives exactly the table of the single-recording functions run one recording
at a time and concatenated (the plain loop), on Lund 2013 and on synthetic recordings; the cached smoothing
kernel filters exactly as scipy's savgol_filter."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.signal import savgol_filter

from eyedp_core.gaze import events
from eyedp_core.gaze.events import (
    IdtSettings,
    IvtSettings,
    detect_events,
    detect_idt,
    detect_ivt,
    group_positions,
    labels_to_events,
    velocity_deg_s,
)
from eyedp_core.gaze.geometry import Geometry

LUND = Path(__file__).resolve().parents[3].parent / "shared" / "realdata" / "lund2013" / "lund2013_samples.csv.gz"
LUND_SCREEN = Geometry.from_cm(1024, 768, 38.0, 30.0, 67.0)


def _plain_loop(samples: pd.DataFrame, geometry: Geometry, method: str, **opts) -> pd.DataFrame:
    """One recording at a time through the public single-recording functions, tables concatenated."""
    groups = [c for c in events.GROUP_COLUMNS if c in samples.columns]
    frames, keys = [], []
    for key, pos in group_positions(samples, groups):
        one = samples.iloc[pos]
        t, x, y = (one[c].to_numpy(float) for c in ("t_s", "x", "y"))
        pupil = one["pupil"].to_numpy(float) if "pupil" in one else None
        if method == "ivt":
            v = velocity_deg_s(t, x, y, geometry, smooth=opts.get("smooth", "savgol"),
                               savgol_ms=opts.get("savgol_ms", 20.0))
            settings = IvtSettings(**{k: v for k, v in opts.items() if k != "blinks"})
            labels = detect_ivt(t, x, y, geometry, settings, pupil=pupil, blinks=opts.get("blinks", True))
        else:
            v = None
            settings = IdtSettings(**{k: v for k, v in opts.items() if k != "blinks"})
            labels = detect_idt(t, x, y, geometry, settings, pupil=pupil, blinks=opts.get("blinks", True))
        frames.append(labels_to_events(t, x, y, labels, geometry, pupil, velocity=v))
        keys.append(key if isinstance(key, tuple) else (key,))
    out = pd.concat(frames, ignore_index=True)
    counts = [len(f) for f in frames]
    for i, col in enumerate(groups):
        out.insert(i, col, pd.Series([k[i] for k in keys]).repeat(counts).to_numpy())
    return out


@pytest.mark.parametrize("window", [5, 7, 11, 21, 41])
def test_cached_kernel_filters_exactly_as_savgol_filter(window):
    rng = np.random.default_rng(window)
    a = np.cumsum(rng.normal(0, 3, 500)) + 400
    a[rng.choice(500, 20, replace=False)] = np.nan
    assert np.array_equal(events._savgol(a, window), savgol_filter(a, window, 2, mode="nearest"), equal_nan=True)
    assert events._savgol_kernel(window) is events._savgol_kernel(window)


def _synthetic(rng: np.random.Generator) -> pd.DataFrame:
    """Three recordings at 250 Hz: fixations and jumps, one with signal loss, and one too short for any event."""
    parts = []
    for who, n in (("a", 1500), ("b", 1200), ("c", 3)):
        t = np.arange(n) / 250.0
        x = 300 + 200 * (np.arange(n) // 100 % 3) + rng.normal(0, 1.5, n)
        y = 400 + 150 * (np.arange(n) // 150 % 2) + rng.normal(0, 1.5, n)
        if who == "b":
            x[300:330] = np.nan
            y[300:330] = np.nan
        parts.append(pd.DataFrame({"participant": who, "stimulus": "s1", "t_s": t, "x": x, "y": y,
                                   "pupil": rng.uniform(3, 4, n)}))
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("method,opts", [("ivt", {}), ("idt", {}), ("ivt", {"smooth": "central", "blinks": False}),
                                         ("idt", {"dispersion_threshold_deg": 0.5, "min_duration_ms": 80.0})])
def test_many_recordings_equal_the_plain_loop_synthetic(method, opts):
    samples = _synthetic(np.random.default_rng(7))
    got = detect_events(samples, LUND_SCREEN, method, **opts)
    want = _plain_loop(samples, LUND_SCREEN, method, **opts)
    assert len(got) > 20 and set(got["participant"]) == {"a", "b"}  # 'c' has no event
    pd.testing.assert_frame_equal(got, want, check_exact=True)


@pytest.mark.skipif(not LUND.is_file(), reason=f"Lund 2013 samples not found at {LUND}")
@pytest.mark.parametrize("method", ["ivt", "idt"])
def test_many_recordings_equal_the_plain_loop_lund(method):
    from eyedp_core import io

    samples = io.read_recording(LUND, options=io.ReadOptions(sampling_rate_hz=500)).samples
    got = detect_events(samples, LUND_SCREEN, method)
    want = _plain_loop(samples, LUND_SCREEN, method)
    assert got.groupby(["participant", "stimulus"]).ngroups == 63 and len(got) > 3000
    pd.testing.assert_frame_equal(got, want, check_exact=True)
