"""Every gaze-samples method on real raw streams: uniss_fgd (Tobii, ~300 Hz, faces) and lund2013 (SMI, 500 Hz).

Run: python bench/samples_realdata.py [--images 40] [--realdata ../shared/realdata]
Prints, per dataset, the utility/privacy table of eyedp_core.gazestream.evaluate for the bundled-stream settings
scaled to the recording's rate (Kaleido windows of 0.5 s, tests every 0.1 s). The recordings are read by path
from ../shared/realdata and never copied into the repository.

Assumptions (stated because the sources do not give them):
* uniss_fgd: the Tobii screen is 1280 x 1024 px; its physical size is not documented — we assume a 17"
  5:4 monitor (33.8 x 27.0 cm) at 2.5 x its height (67.5 cm), as the README describes the seating. Positions
  are GazePointX/Y (ADCSpx, screen px); streams are participant x image (about 3 s each).
* lund2013: 1024 x 768 px on 38 x 30 cm at 67 cm (from the recordings' metadata); x = y = 0 is signal loss;
  'dots' recordings have no timestamps, so their samples get a 500 Hz clock; trailing samples with t <= 0 dropped.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eyedp_core import gazestream  # noqa: E402
from eyedp_core.gaze.geometry import Geometry  # noqa: E402
from eyedp_core.gazestream.deniability import PDSettings  # noqa: E402
from eyedp_core.gazestream.evaluate import evaluate, reference, reidentification  # noqa: E402

UNISS_SCREEN = Geometry.from_cm(1280, 1024, 33.8, 27.0, 67.5)
LUND_SCREEN = Geometry.from_cm(1024, 768, 38.0, 30.0, 67.0)


def load_uniss(folder: Path, n_images: int) -> pd.DataFrame:
    """uniss_fgd raw samples of the first n_images images -> participant, stimulus, t_s, x, y, pupil."""
    cols = ["image_index", "ParticipantName", "RecordingTimestamp", "GazePointX(ADCSpx)", "GazePointY(ADCSpx)",
            "PupilLeft", "PupilRight"]
    raw = pd.read_csv(folder / "fgd_samples.csv.gz", usecols=cols)
    raw = raw[raw["image_index"] < n_images]
    return pd.DataFrame({
        "participant": "U" + raw["ParticipantName"].astype(int).map("{:02d}".format),
        "stimulus": "img" + raw["image_index"].astype(int).map("{:03d}".format),
        "t_s": raw["RecordingTimestamp"].to_numpy(float) / 1000.0,
        "x": raw["GazePointX(ADCSpx)"].to_numpy(float), "y": raw["GazePointY(ADCSpx)"].to_numpy(float),
        "pupil": raw[["PupilLeft", "PupilRight"]].mean(axis=1).to_numpy(float),
    })


def load_lund(folder: Path) -> pd.DataFrame:
    """lund2013 raw samples -> participant, stimulus, t_s, x, y (signal loss as NaN, 500 Hz clock where missing)."""
    raw = pd.read_csv(folder / "lund2013_samples.csv.gz")
    t = raw["t_us"].to_numpy(float) / 1e6
    rec = raw.groupby(["participant", "stimulus"], sort=False).ngroup().to_numpy()
    pos = raw.groupby(rec).cumcount().to_numpy()
    no_clock = raw.groupby(rec)["t_us"].transform(lambda s: s.isna().all()).to_numpy()
    t = np.where(no_clock, pos / 500.0, t)
    keep = no_clock | (t > 0)
    x = raw["x_px"].to_numpy(float).copy()
    y = raw["y_px"].to_numpy(float).copy()
    lost = (x == 0) & (y == 0)
    x[lost] = np.nan
    y[lost] = np.nan
    out = pd.DataFrame({"participant": raw["participant"], "stimulus": raw["stimulus"], "t_s": t, "x": x, "y": y})
    return out[keep].reset_index(drop=True)


def run_all(frame: pd.DataFrame, geometry: Geometry, *, k: int, window_s: float, seed: int = 0
            ) -> tuple[pd.DataFrame, dict]:
    """Raw samples and geometry -> (utility/privacy table of every method, timings and notes)."""
    info: dict = {}
    t0 = time.perf_counter()
    prep = gazestream.prepare_streams(frame, width_px=geometry.width_px, height_px=geometry.height_px)
    df = prep.frame
    rate = prep.rate_hz
    info["prepare_s"] = time.perf_counter() - t0
    info["notes"] = len(prep.notes)
    info["excluded"] = len(prep.excluded)
    info["rate_hz"] = rate
    info["samples"] = len(df)
    info["participants"] = df["participant"].nunique()
    w, t_skip = int(round(0.5 * rate)), max(1, int(round(0.1 * rate)))
    t0 = time.perf_counter()
    ref = reference(df, geometry=geometry, window_s=window_s)
    info["reference_s"] = time.perf_counter() - t0
    outputs: dict[str, pd.DataFrame] = {}
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    plan = gazestream.kaleido_plan(epsilon=5.0, w=w, l_thresh=60.0, t_skip=t_skip, r=50.0, h=2.0)
    outputs[f"Kaleido (ε=5 per {w} samples, r=50 px)"], _ = gazestream.kaleido(
        df, plan, np.random.default_rng([seed, 1]), (geometry.width_px, geometry.height_px))
    timings["Kaleido"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ep = gazestream.event_params(df, geometry)
    timings["event parameters"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        res = gazestream.k_same_synth(df, k, np.random.default_rng([seed, 2]), geometry=geometry, events=ep)
        outputs[f"k-same-synth (k={k})"] = res.samples
        info["synth_notes"] = len(res.notes)
    except ValueError as err:
        info["synth_error"] = str(err)
    timings["k-same-synth"] = time.perf_counter() - t0
    for form, sid in (("published", 3), ("randomised", 4)):
        t0 = time.perf_counter()
        r = gazestream.event_synth_pd(df, PDSettings(k=2, gamma=2.0, eps0=1.0, max_tries=20),
                                      np.random.default_rng([seed, sid]), form=form, geometry=geometry, events=ep)
        timings[f"PD {form}"] = time.perf_counter() - t0
        outputs[f"PD {form} (k=2, γ=2)"] = r.samples
        info[f"PD {form} published"] = f"{r.n_published}/{r.n_events}"
    acc0, chance, n0 = reidentification(df, None, ref=ref)
    rows = [dict(method="original", displacement_deg=0.0, heatmap_cc=1.0, fixation_rate_change=0.0,
                 fixation_duration_change=0.0, reid_accuracy=acc0, reid_chance=chance, reid_windows=n0)]
    t0 = time.perf_counter()
    for name, out in outputs.items():
        rows.append(dict(method=name, **evaluate(df, out, ref=ref).__dict__))
    info["evaluate_s"] = time.perf_counter() - t0
    info["timings"] = timings
    info["window_s"] = window_s
    return pd.DataFrame(rows), info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    ap.add_argument("--images", type=int, default=40, help="uniss_fgd: first N of the 119 images (all 20 people)")
    args = ap.parse_args()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    # Re-identification windows: uniss streams last 3 s (1-s windows), lund recordings 1-93 s (2-s windows).
    for name, load, geom, k, window_s in (
            ("uniss_fgd", lambda: load_uniss(args.realdata / "uniss_fgd", args.images), UNISS_SCREEN, 3, 1.0),
            ("lund2013", lambda: load_lund(args.realdata / "lund2013"), LUND_SCREEN, 2, 2.0)):
        t0 = time.perf_counter()
        frame = load()
        t_load = time.perf_counter() - t0
        table, info = run_all(frame, geom, k=k, window_s=window_s)
        print(f"\n=== {name}: {info['participants']} participants, {info['samples']:,} samples at "
              f"{info['rate_hz']:.0f} Hz (load {t_load:.1f} s, {info['notes']} input notes, "
              f"{info['excluded']} participants left out; re-id windows {info['window_s']} s) ===")
        print(table.round(3).to_string(index=False))
        extra = {k: v for k, v in info.items() if k.startswith(("PD", "synth"))}
        print("timings (s):", {k: round(v, 3) for k, v in info["timings"].items()}, "|", extra)


if __name__ == "__main__":
    main()
