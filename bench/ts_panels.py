"""Waits of the Time-series panels at the page defaults, against the same machine's trivial page.

Run: python bench/ts_panels.py [--repeats 3]

Each figure is a fresh headless session (AppTest, cold caches): the trivial page's run (bench/trivial_app.py),
the Time-series page's first run, then opening one panel ("Utility vs ε", "Release forms", "Compare A/B") at the
default settings; plus the core sweep alone and the estimate the panel shows before it starts
(eyedp_core.timeseries.experiments.estimated_sweep_seconds). Medians over the repeats. The issue's target:
"Utility vs ε" under 10 s at the defaults; anything longer shows an estimate first.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from eyedp_core.data.bundled import load_sample  # noqa: E402
from eyedp_core.gaze.feature_specs import FEATURE_NAMES, feature_bounds  # noqa: E402
from eyedp_core.timeseries.experiments import SweepSpec, estimated_sweep_seconds, sweep_utility  # noqa: E402
from eyedp_core.timeseries.labels import DEFAULT_SWEEP_LABELS, SWEEP_LABELS  # noqa: E402
from eyedp_core.timeseries.signals import feature_tensor  # noqa: E402


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def trivial() -> float:
    """Seconds of one run of the trivial page in a fresh AppTest session."""
    at = AppTest.from_file(str(ROOT / "bench" / "trivial_app.py"), default_timeout=60)
    return _timed(at.run)


def panel(name: str) -> tuple[float, float]:
    """-> (seconds of the page's first run, seconds of opening the panel) in a fresh session."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    first = _timed(lambda: at.switch_page("pages/time_series.py").run())
    opened = _timed(lambda: at.segmented_control(key="ts_panel").set_value(name).run())
    assert not at.exception, at.exception
    return first, opened


def core_sweep(labels: tuple[str, ...]) -> tuple[float, float]:
    """-> (seconds of the core sweep of these mechanisms at the defaults, the estimate shown before it)."""
    df = load_sample("reading_features")
    x, _ = feature_tensor(df, FEATURE_NAMES, length=600, fill="edge", order_col="window")
    lo, hi = feature_bounds(FEATURE_NAMES)
    eps = tuple(float(f"{v:.4g}") for v in np.logspace(-2, 4, 10))
    spec = SweepSpec(epsilons=eps, runs=10, k_rule="public", n_recordings=3)  # the page default R = 10
    secs = _timed(lambda: [sweep_utility(x, (lo, hi), spec, rng=np.random.default_rng(0), mechanisms=[lab])
                           for lab in labels])
    return secs, estimated_sweep_seconds(x.shape, labels, spec)


def main() -> None:
    """Print the medians."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    base = statistics.median(trivial() for _ in range(args.repeats))
    print(f"trivial page (AppTest run): {base:.3f} s")
    for labels, words in ((DEFAULT_SWEEP_LABELS, "default 4 mechanisms"), (SWEEP_LABELS, "all 8 mechanisms")):
        runs = [core_sweep(labels) for _ in range(args.repeats)]
        print(f"core sweep, {words}: {statistics.median(r[0] for r in runs):.1f} s "
              f"(estimate shown first: {runs[0][1]:.1f} s)")
    for name in ("utility", "forms", "ab"):
        runs = [panel(name) for _ in range(args.repeats)]
        med = statistics.median(r[1] for r in runs)
        print(f"panel {name!r}: opening {med:.1f} s (= {med / base:.0f}× the trivial page); the page's first run "
              f"{statistics.median(r[0] for r in runs):.1f} s")


if __name__ == "__main__":
    main()
