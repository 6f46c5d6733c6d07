"""Public feature bounds against real eye movements: every real recording in ../shared/realdata, read by path.

Run: python bench/bounds_realdata.py [--realdata PATH] [--no-cache]

Each readable recording file is read with `eyedp_core.io.read_recording` and turned into window features with
`eyedp_core.gaze.features.window_features` (30-s windows every 0.5 s, I-VT), as the app does. Recordings shorter
than one window (Uniss-FGD's 3-s images, Lund's 10-s images, OSIE's per-image fixations) are laid end to end per
person in presentation order with the blank time between them removed, so a window spans several stimuli.

Per feature, pooled over every dataset's windows (each dataset weighted by its windows), for the bounds before
(the previous public bounds, kept below for the comparison) and after (`feature_specs.FEATURE_SPECS`):
* clipped share: the share of real window values outside [L, U];
* range / sd: the public range R = U − L divided by the standard deviation of the real values. The noise of
  every mechanism is proportional to R, the signal's spread is the sd: this is the factor by which the bound
  alone inflates noise-to-signal.
* range / p1–p99: R divided by the width of the central 98 % of the real values (how many times wider than
  real data the bound is).
Saccade durations are compared only on raw samples (in a fixation table they are the gaps between fixations).
Pupil features are used only where the recording's pupil is in millimetres (median 1.5–9); EyeLink, SMI and
GazeBase pupils are in device units and are left out (the bound is in mm).

Assumptions (the sources do not give them): Uniss-FGD on a 17" 1280 × 1024 monitor (33.8 × 27.0 cm) at
67.5 cm; OSIE's 800 × 600 images at about 24 px/deg (36 × 27 cm at 60 cm); the ALSOA1 EyeLink file's
640 × 480 display on 40 × 30 cm at 60 cm; the Lund and GazeBase set-ups from their presets. SB-SAT gives
no gaze (a trial report), so it is not a recording read_recording takes; it is listed as skipped.
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

from eyedp_core import io  # noqa: E402
from eyedp_core.gaze.feature_specs import FEATURE_NAMES, feature_bounds  # noqa: E402
from eyedp_core.gaze.features import window_features  # noqa: E402
from eyedp_core.gaze.geometry import Geometry  # noqa: E402
from eyedp_core.io.person_column import PersonColumn, with_person_column  # noqa: E402

CACHE = Path("/tmp/eyedp_bounds_realdata.parquet")

# (file, assumed geometry or None = the file's own / a preset)
FILES: dict[str, Geometry | str | None] = {
    "uniss_fgd/fgd_samples.csv.gz": Geometry.from_cm(1280, 1024, 33.8, 27.0, 67.5),
    "uniss_fgd/fgd_fixations.csv.gz": Geometry.from_cm(1280, 1024, 33.8, 27.0, 67.5),
    "lund2013/lund2013_samples.csv.gz": "lund2013",
    "gazebase_sample/S_1001_S1_TEX.csv": None,
    "osie/osie_fixations.csv.gz": Geometry.from_cm(800, 600, 36.0, 27.0, 60.0),
    "saccades_testdata/example_eyelink_events.txt": Geometry.from_cm(640, 480, 40.0, 30.0, 60.0),
    "saccades_testdata/s1_actioncliptest00001.txt": None,
    "saccades_testdata/example.csv": Geometry.from_cm(640, 480, 40.0, 30.0, 60.0),
    "sbsat/18sat_trialfinal.csv": None,
}

# The public bounds before they were re-derived from published ranges (window 30 s), for the comparison.
BEFORE: dict[str, tuple[float, float]] = {
    "fix_rate_hz": (0, 5), "fix_dur_mean_ms": (0, 2000), "fix_dur_var_ms2": (0, 1e6), "fix_dur_max_ms": (0, 2000),
    "fix_dur_min_ms": (0, 2000), "fix_time_ratio": (0, 1), "fix_disp_x_deg": (0, 22), "fix_disp_y_deg": (0, 14),
    "sacc_rate_hz": (0, 6), "sacc_amp_mean_deg": (0, 50), "sacc_amp_var_deg2": (0, 625),
    "sacc_amp_max_deg": (0, 50), "sacc_amp_min_deg": (0, 50), "sacc_dur_mean_ms": (0, 200),
    "sacc_peak_vel_mean_deg_s": (0, 1000), "sacc_peak_vel_max_deg_s": (0, 1000), "sacc_peak_vel_var": (0, 250000),
    "sacc_vel_per_deg_hz": (0, 500), "sacc_large_ratio": (0, 1), "sacc_right_ratio": (0, 1),
    "sacc_left_ratio": (0, 1), "sacc_up_ratio": (0, 1), "sacc_down_ratio": (0, 1),
    "blink_rate_per_min": (0, 60), "blink_dur_mean_ms": (0, 500), "blink_dur_var_ms2": (0, 62500),
    "blink_dur_max_ms": (0, 500), "pupil_mean_mm": (1.5, 9), "pupil_var_mm2": (0, 14.0625),
    "pupil_min_mm": (1.5, 9), "pupil_max_mm": (1.5, 9), "pupil_slope_mm_min": (-10, 10),
    **{f"wb{n}_distinct": (0, min(8**n, 180)) for n in (1, 2, 3, 4)},
    **{f"wb{n}_{s}": (0, 180) for n in (1, 2, 3, 4) for s in ("max_count", "mean_count")},
    **{f"wb{n}_var_count": (0, 8100) for n in (1, 2, 3, 4)},
}


def stitch(table: pd.DataFrame, person: str, time_col: str) -> pd.DataFrame:
    """Rows of several short recordings -> one timeline per person (recordings end to end, blanks removed)."""
    parts = [c for c in ("stimulus", "trial") if c in table.columns]
    if not parts or time_col not in table.columns:
        return table
    t = table[time_col].to_numpy(float)
    key = table[[person, *parts]].astype(str).agg("|".join, axis=1)
    g = pd.Series(t).groupby(key.to_numpy())
    first, span = g.transform("min").to_numpy(), (g.max() - g.min())
    step = float(np.nanmedian(np.diff(np.sort(t[: min(len(t), 5000)])))) if len(t) > 1 else 0.0
    order = pd.DataFrame({"key": span.index, "span": span.to_numpy() + max(step, 0.0),
                          "first": g.min().to_numpy()})
    order["person"] = order["key"].str.split("|").str[0]
    order = order.sort_values(["person", "first"])
    order["offset"] = order.groupby("person")["span"].cumsum() - order["span"]
    out = table.copy()
    out[time_col] = t - first + order.set_index("key")["offset"].reindex(key.to_numpy()).to_numpy()
    return out.drop(columns=parts).sort_values([person, time_col], kind="stable").reset_index(drop=True)


def dataset_features(root: Path, rel: str, geometry: Geometry | str | None) -> tuple[pd.DataFrame | None, str]:
    """One real file -> (its window features with a `dataset` column, or None; a note on what was done)."""
    try:
        rec = io.read_recording(root / rel)
    except io.DataError as err:
        return None, f"not a recording read_recording takes: {err}"
    if isinstance(geometry, str):
        geo = io.PRESETS[geometry]
    elif geometry is None:
        geo = rec.geometry
    else:
        geo = geometry
    s = rec.samples
    note = []
    if rec.kind == "fixations":
        s = with_person_column(s, PersonColumn.PARTICIPANT)
        if "t_start_s" in s.columns:
            s = stitch(s, "participant", "t_start_s")
        else:  # no onsets (OSIE): each observer's fixations end to end per image, images in file order
            s = s.drop(columns=[c for c in ("stimulus",) if c in s.columns])
        if "t_start_s" in s.columns:
            s = s.sort_values(["participant", "t_start_s"], kind="stable")
    else:
        s = stitch(s, "participant", "t_s")
        if "pupil" in s.columns:
            med = float(np.nanmedian(s["pupil"])) if s["pupil"].notna().any() else np.nan
            if not 1.5 <= med <= 9:
                s = s.drop(columns=["pupil"])
                note.append(f"pupil in device units (median {med:.4g}), left out")
        s = s[[c for c in ("participant", "t_s", "x", "y", "pupil") if c in s.columns]]
    feats = window_features(s, geometry=geo, group_cols=["participant"])
    if rec.kind == "fixations":
        # Between two fixations of a fixation table the "saccade duration" is the gap between them (negative
        # where a vendor's fixations overlap): not a saccade's duration, so it is not compared with the bound.
        feats["sacc_dur_mean_ms"] = np.nan
    if feats.empty:
        return None, "shorter than one 30-s window"
    feats.insert(0, "dataset", rel.split("/")[0] + ("-fix" if rec.kind == "fixations" else ""))
    note.insert(0, f"{rec.kind}, {s['participant'].nunique()} people, {len(feats)} windows")
    return feats, "; ".join(note)


def load_all(root: Path, use_cache: bool = True) -> tuple[pd.DataFrame, dict[str, str]]:
    """Every real file -> (all window features, a note per file)."""
    notes: dict[str, str] = {}
    if use_cache and CACHE.is_file():
        table = pd.read_parquet(CACHE)
        return table, {"(cache)": str(CACHE)}
    frames = []
    for rel, geo in FILES.items():
        t0 = time.perf_counter()
        feats, note = dataset_features(root, rel, geo)
        notes[rel] = f"{note} ({time.perf_counter() - t0:.1f} s)"
        if feats is not None:
            frames.append(feats)
    table = pd.concat(frames, ignore_index=True)
    table["participant"] = table["participant"].astype(str)
    table.to_parquet(CACHE)
    return table, notes


def bound_table(table: pd.DataFrame) -> pd.DataFrame:
    """Window features -> per feature: real spread, and clipped share, range/sd, range/(p99−p1) before and after."""
    lo, hi = feature_bounds(FEATURE_NAMES)
    rows = []
    for i, name in enumerate(FEATURE_NAMES):
        v = table[name].to_numpy(float)
        v = v[np.isfinite(v)]
        if v.size == 0:
            continue
        sd = float(np.std(v))
        p1, p99 = np.percentile(v, [1, 99])
        width = max(p99 - p1, 1e-12)
        row = {"feature": name, "n": v.size, "min": float(v.min()), "p1": p1, "p99": p99, "max": float(v.max()),
               "sd": sd}
        for tag, (a, b) in (("before", BEFORE[name]), ("after", (lo[i], hi[i]))):
            row[f"L {tag}"], row[f"U {tag}"] = a, b
            row[f"clipped {tag}"] = float(np.mean((v < a) | (v > b)))
            row[f"R/sd {tag}"] = (b - a) / sd if sd > 0 else np.inf
            row[f"R/p98 {tag}"] = (b - a) / width
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    """Read every real recording, print the per-feature comparison of the bounds before and after."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args()
    table, notes = load_all(args.realdata, not args.no_cache)
    for rel, note in notes.items():
        print(f"- {rel}: {note}")
    print(table.groupby("dataset").agg(people=("participant", "nunique"), windows=("window", "size")))
    res = bound_table(table)
    pd.set_option("display.width", 250, "display.max_rows", 100, "display.max_columns", 30)
    cols = ["feature", "p1", "p99", "max", "sd", "L before", "U before", "clipped before", "R/sd before",
            "L after", "U after", "clipped after", "R/sd after", "R/p98 before", "R/p98 after"]
    print(res[cols].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    for tag in ("before", "after"):
        r = res[f"R/sd {tag}"]
        print(f"{tag}: R/sd median {r.median():.3g}, max {r.max():.4g} ({res.loc[r.idxmax(), 'feature']}); "
              f"clipped share max {res[f'clipped {tag}'].max():.4f}; windows {len(table)}")


if __name__ == "__main__":
    main()
