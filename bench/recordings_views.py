"""Every real recording in ../shared/realdata through the library route to the four views, timed.

Run: python bench/recordings_views.py [--realdata ../shared/realdata] [--only NAME]
For each file: io.read_recording (format detected, own geometry), then
* Heatmaps: fixations (detected in gaze, or the file's own), fitted to the screen (io.fit_to_canvas), the first
  stimulus with at least 2 observers through heatmaps.preview.fixations_for_stimulus and maps.gaze_maps;
* Time series: Recording.features (window = io.windows.suggested_window_s, step = window / 2), then
  timeseries.signals.feature_tensor and a CFPA preview on the fixation-rate series;
* Attacks: the same feature table into attacks.evaluate (re-identification, SVM) as it is;
* Gaze samples: samples.streams.prepare_streams on the recording's screen and a Kaleido preview of 2,000 samples.
Prints one row per file and view: outcome (ok, or the message) and seconds. The files are read by path and
never copied into the repository.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eyedp_core import attacks, io  # noqa: E402
from eyedp_core.data import derived  # noqa: E402
from eyedp_core.dp.registry import Mech  # noqa: E402
from eyedp_core.gaze.feature_specs import feature_bounds  # noqa: E402
from eyedp_core.gazestream.kaleido import kaleido_plan, kaleido_run  # noqa: E402
from eyedp_core.gazestream.streams import prepare_streams  # noqa: E402
from eyedp_core.heatmaps import maps, preview  # noqa: E402
from eyedp_core.io import windows  # noqa: E402
from eyedp_core.timeseries.preview import PreviewSetting, run_preview  # noqa: E402
from eyedp_core.timeseries.signals import feature_tensor  # noqa: E402

FILES = ["gazebase_sample/S_1001_S1_TEX.csv", "lund2013/lund2013_samples.csv.gz",
         "saccades_testdata/example.csv", "saccades_testdata/example_eyelink_events.txt",
         "saccades_testdata/s1_actioncliptest00001.txt", "uniss_fgd/fgd_samples.csv.gz",
         "uniss_fgd/fgd_fixations.csv.gz", "osie/osie_fixations.csv.gz"]


def _timed(fn):
    t = time.perf_counter()
    try:
        return "ok: " + fn(), time.perf_counter() - t
    except Exception as err:  # noqa: BLE001 - the bench reports every outcome
        return f"{type(err).__name__}: {str(err)[:160]}", time.perf_counter() - t


def views(path: Path) -> list[tuple[str, str, float]]:
    """A recording's path -> (view, outcome, seconds) rows."""
    rows = []
    t = time.perf_counter()
    try:
        rec = io.read_recording(path)
    except Exception as err:  # noqa: BLE001
        return [("read", f"{type(err).__name__}: {str(err)[:160]}", time.perf_counter() - t)]
    rows.append(("read", f"ok: {rec.summary()[:120]}", time.perf_counter() - t))
    geometry = rec.geometry or io.PRESETS["desktop_24"]

    def heatmaps() -> str:
        fix = rec.fixations() if rec.kind == "fixations" else rec.detect_fixations()[0]
        stim = None
        if "stimulus" in fix.columns:
            n = fix.groupby("stimulus")["observer"].nunique()
            stim = str(n[n >= 2].index[0]) if (n >= 2).any() else None
        if stim is None and fix["observer"].nunique() < 2:
            raise ValueError(f"{fix['observer'].nunique()} observer: a heatmap needs 2")
        w, h = derived.data_extent(fix)
        sub, how = preview.fixations_for_stimulus(fix, path.name, stim or "blank", w, h)
        gm = maps.gaze_maps(sub, w, h, 16, "count")
        return f"{gm.n_observers} observers, {len(sub)} fixations on {stim or 'the file'}"

    table_box = {}

    def features():
        if "table" not in table_box:
            w = windows.suggested_window_s(rec.samples)
            table_box["table"] = rec.features(w, w / 2)
        return table_box["table"]

    def time_series() -> str:
        table = features()
        names = ["fix_rate_hz"]
        x, recs = feature_tensor(table, names, length=int(table.groupby(["participant", "recording"]).size().max()),
                                 fill="edge", order_col="window")
        lo, hi = feature_bounds(names, table.attrs["window_s"])
        setting = PreviewSetting(mech=Mech.CFPA, chunk=min(32, x.shape[2]), epsilon=1.0, k=1, nmse_kind="range")
        prev = run_preview(x, setting, bounds=(lo, hi), rng=np.random.default_rng(0), feature=0)
        return (f"{x.shape[0]} recordings × T = {x.shape[2]} windows of {table.attrs['window_s']:g} s, "
                f"NMSE {float(prev.nmse_feature[0]):.3g}")

    def attack() -> str:
        table = features()
        if table["participant"].nunique() < 2:
            raise ValueError("1 participant: re-identification needs 2")
        r = attacks.evaluate(table, "identity", classifier="svm", seed=0)
        return f"identity accuracy {r.accuracy:.2f} (chance {r.chance:.2f}), {r.n_test} test recordings"

    def gaze_samples() -> str:
        if rec.kind != "gaze":
            raise ValueError("no gaze samples in a fixation file")
        streams = prepare_streams(rec.samples, width_px=geometry.width_px, height_px=geometry.height_px)
        df = streams.frame
        one = df[df["participant"] == df["participant"].iloc[0]].head(2000)
        plan = kaleido_plan(epsilon=1.0, w=60, l_thresh=20.0, t_skip=12, r=50.0, h=2.0)
        _, out = kaleido_run(one, plan, np.random.default_rng(0), (geometry.width_px, geometry.height_px))
        return f"{len(df)} samples in streams; Kaleido on {len(out)}"

    for name, fn in (("Heatmaps", heatmaps), ("Time series", time_series), ("Attacks", attack),
                     ("Gaze samples", gaze_samples)):
        outcome, seconds = _timed(fn)
        rows.append((name, outcome, seconds))
    return rows


def main() -> None:
    """Parse the arguments, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    ap.add_argument("--only", default=None, help="a part of a file name")
    args = ap.parse_args()
    print("| file | view | outcome | s |\n|---|---|---|---|")
    for rel in FILES:
        if args.only and args.only not in rel:
            continue
        path = args.realdata / rel
        if not path.exists():
            continue
        for view, outcome, seconds in views(path):
            print(f"| {rel} | {view} | {outcome} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
