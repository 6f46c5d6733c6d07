"""Window features: exact agreement with a brute-force reference, input kinds, bounds, real data."""
from __future__ import annotations

import time
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from eyedp_core.attacks import protocols as attacks
from eyedp_core.data.bundled import SAMPLE_SCREEN
from eyedp_core.gaze.events import angular_distance_deg, pix_to_deg
from eyedp_core.gaze.feature_specs import (
    FEATURE_GROUPS,
    FEATURE_NAMES,
    FEATURE_SPECS,
    LARGE_SACCADE_DEG,
    feature_bounds,
)
from eyedp_core.gaze.features import saccade_letters, window_features
from eyedp_core.gaze.geometry import Geometry


def _random_events(rng: np.random.Generator, duration_s: float = 60.0) -> pd.DataFrame:
    """Alternating fixations and saccades with a few blinks; random but plausible values."""
    n = int(duration_s / 0.3)
    fix_d = rng.uniform(80, 500, n)
    sac_d = rng.uniform(15, 60, n)
    start = np.cumsum(np.r_[0.0, (fix_d + sac_d)[:-1]]) / 1000.0
    x = rng.uniform(0, 1280, n + 1)
    y = rng.uniform(0, 800, n + 1)
    fix = pd.DataFrame({"type": "fixation", "t_start_s": start, "duration_ms": fix_d, "x": x[:-1], "y": y[:-1],
                        "mean_pupil": rng.uniform(2.5, 5.0, n)})
    fix["t_end_s"] = fix["t_start_s"] + fix_d / 1000
    sac = pd.DataFrame({"type": "saccade", "t_start_s": start + fix_d / 1000, "duration_ms": sac_d,
                        "x": x[:-1], "y": y[:-1], "dx": np.diff(x), "dy": np.diff(y),
                        "amplitude_deg": angular_distance_deg(x[:-1], y[:-1], x[1:], y[1:], SAMPLE_SCREEN),
                        "peak_velocity_deg_s": rng.uniform(50, 600, n)})
    sac["t_end_s"] = sac["t_start_s"] + sac_d / 1000
    nb = int(duration_s / 4)
    b_start = np.sort(rng.uniform(0, duration_s - 1, nb))
    blink = pd.DataFrame({"type": "blink", "t_start_s": b_start, "duration_ms": rng.uniform(60, 400, nb)})
    blink["t_end_s"] = blink["t_start_s"] + blink["duration_ms"] / 1000
    ev = pd.concat([fix, sac, blink], ignore_index=True).sort_values("t_start_s", kind="stable")
    return ev.reset_index(drop=True)


def _reference(ev: pd.DataFrame, ws: float, we: float, window_s: float) -> dict[str, float]:
    """Straightforward per-window computation of the features (the slow, obviously-right way)."""
    inw = ev[(ev["t_start_s"] >= ws) & (ev["t_start_s"] < we)]
    f, s, b = (inw[inw["type"] == k] for k in ("fixation", "saccade", "blink"))
    d, a, pv, bd = (f["duration_ms"].to_numpy(), s["amplitude_deg"].to_numpy(),
                    s["peak_velocity_deg_s"].to_numpy(), b["duration_ms"].to_numpy())
    xd, yd = pix_to_deg(f["x"].to_numpy(), f["y"].to_numpy(), SAMPLE_SCREEN)
    p = f["mean_pupil"].to_numpy()
    tm = (f["t_start_s"].to_numpy() - ev["t_start_s"].min()) / 60
    letters = saccade_letters(s["dx"].to_numpy(), s["dy"].to_numpy(), a)
    r = {"fix_rate_hz": len(f) / window_s, "fix_dur_mean_ms": d.mean(), "fix_dur_var_ms2": d.var(),
         "fix_dur_max_ms": d.max(), "fix_dur_min_ms": d.min(),
         "fix_time_ratio": min(d.sum() / 1000 / window_s, 1),
         "fix_disp_x_deg": xd.std(), "fix_disp_y_deg": yd.std(), "sacc_rate_hz": len(s) / window_s,
         "sacc_amp_mean_deg": a.mean(), "sacc_amp_var_deg2": a.var(), "sacc_amp_max_deg": a.max(),
         "sacc_amp_min_deg": a.min(), "sacc_dur_mean_ms": s["duration_ms"].mean(),
         "sacc_peak_vel_mean_deg_s": pv.mean(), "sacc_peak_vel_max_deg_s": pv.max(),
         "sacc_peak_vel_var": pv.var(),
         "sacc_vel_per_deg_hz": pv.sum() / a.sum(), "sacc_large_ratio": np.mean(a >= LARGE_SACCADE_DEG),
         "sacc_right_ratio": np.mean(letters // 2 == 0), "sacc_left_ratio": np.mean(letters // 2 == 1),
         "sacc_up_ratio": np.mean(letters // 2 == 2), "sacc_down_ratio": np.mean(letters // 2 == 3),
         "blink_rate_per_min": len(b) / window_s * 60, "blink_dur_mean_ms": bd.mean() if len(bd) else 0.0,
         "blink_dur_var_ms2": bd.var() if len(bd) else 0.0, "blink_dur_max_ms": bd.max() if len(bd) else 0.0,
         "pupil_mean_mm": p.mean(), "pupil_var_mm2": p.var(), "pupil_min_mm": p.min(),
         "pupil_max_mm": p.max(),
         "pupil_slope_mm_min": np.polyfit(tm, p, 1)[0]}
    # n-grams over the whole saccade sequence, kept when their first and last saccade start in the window.
    all_s = ev[ev["type"] == "saccade"]
    all_l = saccade_letters(all_s["dx"].to_numpy(), all_s["dy"].to_numpy(), all_s["amplitude_deg"].to_numpy())
    t = all_s["t_start_s"].to_numpy()
    for n in (1, 2, 3, 4):
        c = Counter(tuple(all_l[i:i + n]) for i in range(len(all_l) - n + 1)
                    if t[i] >= ws and t[i + n - 1] < we)
        v = np.array(list(c.values()), float)
        r.update({f"wb{n}_distinct": len(v), f"wb{n}_max_count": v.max(), f"wb{n}_mean_count": v.mean(),
                  f"wb{n}_var_count": v.var()})
    return r


def test_event_table_features_match_brute_force(rng):
    ev = _random_events(rng, 60.0)
    ev.insert(0, "participant", "A")
    out = window_features(ev, window_s=10.0, step_s=0.5, geometry=SAMPLE_SCREEN)
    t0, t_end = ev["t_start_s"].min(), ev["t_end_s"].max()
    assert len(out) == int(np.floor((t_end - t0 - 10.0) / 0.5 + 1e-9)) + 1
    assert list(out.columns[:3]) == ["participant", "window", "t_start_s"]
    assert list(out.columns[3:]) == FEATURE_NAMES
    for k in [0, 1, 7, 40, len(out) // 2, len(out) - 1]:
        ref = _reference(ev, t0 + 0.5 * k, t0 + 0.5 * k + 10.0, 10.0)
        got = out.iloc[k]
        assert got["t_start_s"] == pytest.approx(t0 + 0.5 * k)
        for name in FEATURE_NAMES:
            assert got[name] == pytest.approx(ref[name], rel=1e-7, abs=1e-9), (k, name)


def test_samples_path_recovers_known_gaze_pattern():
    """Synthetic gaze: 250-ms fixations alternating between two points 10 deg apart, a blink every 5 s."""
    fs, dur = 120.0, 40.0
    t = np.arange(int(dur * fs)) / fs
    dpp = SAMPLE_SCREEN.deg_per_px()[0]
    cycle = np.floor(t / 0.25).astype(int)
    xa, xb = 640 - 5 / dpp, 640 + 5 / dpp
    x = np.where(cycle % 2 == 0, xa, xb)
    y = np.full(t.size, 400.0)
    blink = (t % 5.0 >= 2.1) & (t % 5.0 < 2.25)
    x = np.where(blink, np.nan, x)
    samples = pd.DataFrame({"participant": "S", "t_s": t, "x": x, "y": np.where(blink, np.nan, y),
                            "pupil": np.where(blink, np.nan, 3.5)})
    out = window_features(samples, window_s=20.0, step_s=1.0)
    assert len(out) == 21
    assert out["fix_rate_hz"].mean() == pytest.approx(4.0, abs=0.15)
    assert out["fix_dur_mean_ms"].mean() == pytest.approx(240.0, abs=20.0)
    assert out["sacc_amp_mean_deg"].mean() == pytest.approx(10.0, abs=0.3)
    assert out["sacc_large_ratio"].min() == 1.0
    assert out["sacc_right_ratio"].mean() == pytest.approx(0.5, abs=0.05)
    assert out["blink_rate_per_min"].mean() == pytest.approx(12.0, abs=1.0)
    assert out["blink_dur_mean_ms"].mean() == pytest.approx(150.0, abs=10.0)
    assert out["pupil_mean_mm"].mean() == pytest.approx(3.5, abs=1e-6)
    assert out["wb1_distinct"].max() == 2  # only "large right" and "large left"


def test_fixation_table_input(rng):
    fx = pd.DataFrame({"observer": "O1", "t_start_s": np.arange(100) * 0.3, "duration_ms": 250.0,
                       "x": rng.uniform(0, 1280, 100), "y": rng.uniform(0, 800, 100)})
    out = window_features(fx, window_s=10.0, step_s=1.0)
    assert len(out) == int(np.floor((29.7 + 0.25 - 10.0) / 1.0 + 1e-9)) + 1
    assert out["blink_rate_per_min"].isna().all() and out["sacc_peak_vel_mean_deg_s"].isna().all()
    assert out["pupil_mean_mm"].isna().all()
    assert out["fix_rate_hz"].iloc[0] == pytest.approx(34 / 10.0)
    assert out["sacc_dur_mean_ms"].iloc[0] == pytest.approx(50.0)
    amp = angular_distance_deg(fx["x"][:-1].to_numpy(), fx["y"][:-1].to_numpy(), fx["x"][1:].to_numpy(),
                               fx["y"][1:].to_numpy(), SAMPLE_SCREEN)
    # Window 0 = [0, 10): saccades start at the end of fixations 0..32 (t = 0.25 .. 9.85).
    assert out["sacc_amp_mean_deg"].iloc[0] == pytest.approx(amp[:33].mean())


def test_short_recordings_and_bad_input():
    ev = pd.DataFrame({"participant": "A", "type": ["fixation"], "t_start_s": [0.0], "duration_ms": [200.0],
                       "x": [1.0], "y": [1.0]})
    out = window_features(ev, window_s=30.0)
    assert out.empty and list(out.columns) == ["participant", "window", "t_start_s"] + FEATURE_NAMES
    with pytest.raises(ValueError, match="needs raw samples"):
        window_features(pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match="positive"):
        window_features(ev, window_s=0)


def test_feature_specs_and_bounds():
    assert len(FEATURE_SPECS) >= 30
    assert {s.group for s in FEATURE_SPECS.values()} == set(FEATURE_GROUPS)
    lo, hi = feature_bounds(FEATURE_NAMES)
    assert lo.shape == hi.shape == (len(FEATURE_NAMES),) and np.all(lo < hi)
    for spec in FEATURE_SPECS.values():
        assert spec.unit and spec.description and spec.name == spec.name.lower()
    assert feature_bounds(["fix_rate_hz"]) == (np.array([0.0]), np.array([6.0]))
    # Count bounds scale with the window, rates and durations do not; distinct n-grams cap at 8^n.
    _, h10 = feature_bounds(["wb2_max_count", "wb2_var_count", "fix_dur_mean_ms", "wb1_distinct"], 10.0)
    _, h30 = feature_bounds(["wb2_max_count", "wb2_var_count", "fix_dur_mean_ms", "wb1_distinct"], 30.0)
    np.testing.assert_allclose(h10 / h30, [1 / 3, 1 / 9, 1.0, 1.0])
    assert feature_bounds(["wb3_distinct"], 600.0)[1][0] == 512
    with pytest.raises(KeyError):
        feature_bounds(["no_such_feature"])


KNOWN_GROUNDS = {"definition", "definition (a share)", "geometry"}


def test_every_public_bound_lies_inside_its_documented_source():
    """Fails when any feature's public range is wider than the range its cited source supports."""
    from eyedp_core.gaze.feature_specs import REFERENCES

    for spec in FEATURE_SPECS.values():
        src = spec.source
        assert src.low <= spec.lower < spec.upper <= src.high, spec.name
        assert src.derivation, spec.name
        for ref in src.reference.split("; "):
            assert ref in KNOWN_GROUNDS or any(ref.startswith(key) for key in REFERENCES), (spec.name, ref)


def test_bound_wider_than_its_source_is_caught(monkeypatch):
    """The check above is not vacuous: widening one bound past its source makes it fail."""
    import dataclasses

    from eyedp_core.gaze import feature_specs as fs

    wide = dataclasses.replace(fs.FEATURE_SPECS["pupil_mean_mm"], upper=9.0)
    monkeypatch.setitem(fs.FEATURE_SPECS, "pupil_mean_mm", wide)
    with pytest.raises(AssertionError):
        test_every_public_bound_lies_inside_its_documented_source()


def test_privacy_model_lists_the_same_bounds_and_sources():
    """docs/PRIVACY_MODEL.md §13 holds exactly the table the code builds (bounds, sources, derivations)."""
    from pathlib import Path

    from eyedp_core.gaze.feature_specs import REFERENCES, sources_markdown

    doc = (Path(__file__).resolve().parents[3] / "docs" / "PRIVACY_MODEL.md").read_text(encoding="utf-8")
    assert sources_markdown() in doc
    for key, citation in REFERENCES.items():
        assert f"**{key}**: {citation}" in doc


def test_wordbook_bounds_reproduce_the_public_reading_model():
    """The wordbook bounds are the reading model's 99.9th percentile rounded up (within 30 % above it)."""
    from eyedp_core.gaze.feature_specs import (
        WORDBOOK_LETTERS,
    )
    from eyedp_core.gaze.feature_specs import (
        WORDBOOK_MODEL_FORWARD_SHARE as q,
    )
    from eyedp_core.gaze.feature_specs import (
        WORDBOOK_MODEL_QUANTILE as quant,
    )
    from eyedp_core.gaze.features import _wordbook

    rng = np.random.default_rng(1998)
    n_sacc, reps = 180, 1500
    p = np.r_[q, np.full(WORDBOOK_LETTERS - 1, (1 - q) / (WORDBOOK_LETTERS - 1))]
    letters = rng.choice(WORDBOOK_LETTERS, size=(reps, n_sacc), p=p)
    t = np.arange(n_sacc) * 30.0 / n_sacc
    # All repetitions at once: one recording each, one 30-s window per recording.
    rec = np.repeat(np.arange(reps), n_sacc)
    model = pd.DataFrame(_wordbook(letters.reshape(-1), rec, np.tile(t, reps), np.arange(reps), np.zeros(reps),
                                   np.full(reps, 30.0))).quantile(quant)
    lo, hi = feature_bounds(FEATURE_NAMES)
    bound = dict(zip(FEATURE_NAMES, hi, strict=True))
    for n in (2, 3, 4):
        for stat in ("max_count", "mean_count", "var_count"):
            name = f"wb{n}_{stat}"
            assert model[name] <= bound[name] <= 1.3 * model[name], (name, model[name], bound[name])
    assert bound["wb1_mean_count"] == 180 / 4 and bound["wb1_var_count"] == 180**2 / 4


def _uniss_samples(path) -> pd.DataFrame:
    """Uniss-FGD Tobii export -> samples per participant, images back to back in recording order."""
    cols = ["image_index", "ParticipantName", "RecordingTimestamp", "GazePointX(MCSpx)", "GazePointY(MCSpx)",
            "PupilLeft", "PupilRight", "MediaPosX(ADCSpx)", "MediaPosY(ADCSpx)"]
    df = pd.read_csv(path, usecols=cols).sort_values(["ParticipantName", "RecordingTimestamp"], kind="stable")
    key = df["ParticipantName"].astype(str) + "/" + df["image_index"].astype(str)
    seg_start = df.groupby(key, sort=False)["RecordingTimestamp"].transform("min").to_numpy(float)
    order = df.assign(_k=key).groupby("ParticipantName", sort=False)["_k"].transform(
        lambda k: pd.factorize(k)[0]).to_numpy()
    # Each image is shown for ~3.03 s; placing them 3.2 s apart leaves a gap the detector respects.
    t_s = (df["RecordingTimestamp"].to_numpy(float) - seg_start) / 1000 + order * 3.2
    pup = df[["PupilLeft", "PupilRight"]].to_numpy(float)
    pup = np.where(pup > 0, pup, np.nan)
    n_ok = np.isfinite(pup).sum(axis=1)
    pupil = np.where(n_ok > 0, np.nansum(pup, axis=1) / np.maximum(n_ok, 1), np.nan)
    # Media coordinates + media position = screen pixels, where the viewing geometry applies.
    x = df["GazePointX(MCSpx)"].to_numpy(float) + df["MediaPosX(ADCSpx)"].to_numpy(float)
    y = df["GazePointY(MCSpx)"].to_numpy(float) + df["MediaPosY(ADCSpx)"].to_numpy(float)
    return pd.DataFrame({"participant": df["ParticipantName"].astype(str).to_numpy(), "t_s": t_s,
                         "x": x, "y": y, "pupil": pupil})


# Uniss-FGD: Tobii at ~300 Hz, 1280 x 1024 screen. Size and distance are not published: assumed a 17"
# 5:4 monitor (33.8 x 27.0 cm) at 65 cm, the usual set-up for Tobii T60/T120 studies.
UNISS_SCREEN = Geometry.from_cm(1280, 1024, 33.8, 27.0, 65.0)


def test_uniss_real_samples_reidentify_far_above_chance(realdata):
    t = time.perf_counter()
    samples = _uniss_samples(realdata / "uniss_fgd" / "fgd_samples.csv.gz")
    assert samples["participant"].nunique() == 20
    assert time.perf_counter() - t < 20
    # 119 images x 3 s = ~6 min per person: 15-s windows every second (shorter than Steil's 30 s).
    feats = window_features(samples, window_s=15.0, step_s=1.0, geometry=UNISS_SCREEN)
    assert feats.groupby("participant").size().min() > 300
    assert feats[FEATURE_NAMES].notna().mean().min() > 0.95
    res = attacks.reidentify(feats, stride=3)
    # Measured 0.67 per window and 0.95 voted (chance 0.05); pupil size alone is not what carries it:
    assert res.chance == pytest.approx(0.05)
    assert res.window_accuracy > 0.5 and res.vote_accuracy >= 0.85
    no_pupil = [c for c in FEATURE_NAMES if not c.startswith("pupil")]
    assert attacks.reidentify(feats, stride=3, features=no_pupil).vote_accuracy >= 0.6
