"""Timing figures of the Gaze-samples core (eyedp_core.gazestream), each against a baseline measured in the same
run. Run alone: python bench/bench_samples.py; or via bench/run.py --only samples.

Targets: Kaleido on 60 s of 120 Hz samples for 10 participants < 200 ms; k-same-synth on the bundled
streams < 2 s.

Baselines:
* Kaleido: one vectorised planar-Laplace draw for every sample (what a non-adaptive, non-sequential
  mechanism would cost) — the sequential budget logic is the difference;
* k-same-synth: I-VT event detection alone on the same streams (the fixed cost any event-based method pays).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import median_time  # noqa: E402
from eyedp_core import gazestream  # noqa: E402
from eyedp_core.data import bundled  # noqa: E402
from eyedp_core.dp.planar import planar_laplace  # noqa: E402
from eyedp_core.gaze.events import SAMPLE_SCREEN, detect_events  # noqa: E402

KALEIDO = dict(epsilon=5.0, w=60, l_thresh=60.0, r=50.0, h=2.0)  # the page's defaults


def _streams_60s():
    """Ten participants x 60 s x 120 Hz = 72,000 samples (the bundled streams' first minute)."""
    g = bundled.load_sample("gaze_streams")
    return g[g["t_s"] < 60].reset_index(drop=True)


def run(repeats: int = 5) -> list[dict]:
    """Repeats in, one dict per figure out: name, seconds, baseline_seconds, ratio."""
    g60 = _streams_60s()
    pts = g60[["x", "y"]].to_numpy()
    rng = np.random.default_rng(0)
    t_floor = median_time(lambda: planar_laplace(np.nan_to_num(pts), 0.02, rng), repeats)
    rows = []
    for skip in (12, 6, 1):
        t = median_time(lambda: gazestream.kaleido(g60, gazestream.kaleido_plan(t_skip=skip, **KALEIDO), rng, (1280, 800)), repeats)
        rows.append(dict(name=f"Kaleido 10 x 60 s x 120 Hz, t_skip={skip} (target < 0.2 s)", seconds=t,
                         baseline_seconds=t_floor))
    full = bundled.load_sample("gaze_streams")
    t_detect = median_time(lambda: detect_events(full[["participant", "task", "t_s", "x", "y"]], SAMPLE_SCREEN),
                           max(2, repeats // 2))
    t_synth = median_time(lambda: gazestream.k_same_synth(full, 3, np.random.default_rng(1)), max(2, repeats // 2))
    rows.append(dict(name="k-same-synth k=3, bundled streams 10 x 120 s (target < 2 s)", seconds=t_synth,
                     baseline_seconds=t_detect))
    for row in rows:
        row["ratio"] = row["seconds"] / row["baseline_seconds"]
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row['name'][:70]:70s} {row['seconds']:8.3f}s  baseline {row['baseline_seconds']:8.3f}s  "
              f"ratio {row['ratio']:7.2f}")
