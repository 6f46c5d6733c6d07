"""Heatmaps' Explore panels at the default settings: the wait from a click on a panel to the panel drawn, in
Chromium, for the ε-curves, the Target finder and Compare A/B, against the trivial page's slider re-render on
the same machine in the same run; and the core's time for each on the bundled sample and on OSIE (15 real
observers, ../shared/realdata/osie).

python bench/bench_hm_panels.py [--skip-browser]   (the browser part needs Chromium; about a minute)"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from eyedp_core.data import bundled  # noqa: E402
from eyedp_core.heatmaps import cap, maps, preview, targets  # noqa: E402
from eyedp_core.heatmaps.calibration import HeatmapSetting, preset_delta  # noqa: E402
from eyedp_core.heatmaps.curves import CurveSpec, eps_curves  # noqa: E402

OSIE = ROOT.parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"
# Panel label -> (its button, what marks it drawn: the default page draws no Plotly chart, only pictures).
PANELS = {"ε-curves": ("ε-curves (Figure 3)", ".js-plotly-plot .main-svg"),
          "Target finder": ("Target finder", '[data-testid="stMetricLabel"]:has-text("Smallest ε")'),
          "Compare A/B": ("Compare A/B", '[data-testid="stMarkdownContainer"]:has-text("percentage points")')}
SIGMA_PX = maps.sigma_px_from_degrees(1.5, bundled.SAMPLE_SCREEN.width_px, bundled.SAMPLE_SCREEN.width_cm,
                                      bundled.SAMPLE_SCREEN.distance_cm)


def _studies() -> dict[str, maps.GazeMaps]:
    """The sample's first stimulus and, when present, OSIE's image 1001 at the page's default 32 px cells."""
    out = {}
    fix = bundled.load_sample("fixations")
    name = bundled.stimulus_names()[0]
    h, w = bundled.stimulus_image(name).shape[:2]
    sub, _ = preview.fixations_for_stimulus(fix, "sample", name, w, h)
    out[f"sample '{name}'"] = maps.gaze_maps(sub, w, h, 32, "count")
    if OSIE.exists():
        o = pd.read_csv(OSIE)
        o = o[o["image"] == "1001.jpg"].rename(columns={"subject": "observer"})
        out["OSIE 1001.jpg"] = maps.gaze_maps(o, 800, 600, 32, "count")
    return out


def core_figures() -> list[dict]:
    """Seconds of the core calls behind each panel at the page defaults (ε = 3, m = 1, C = 30, R = 100)."""
    rows = []
    for label, gm in _studies().items():
        n = gm.n_observers
        agg = maps.aggregate(gm, 1.0, 30.0)
        sens = preview.maps_sensitivity(gm, 1.0, 30.0)
        s = HeatmapSetting(3.0, preset_delta(n), cap_m=1.0, cap_total=30.0, cell_px=32, sigma_px=SIGMA_PX)
        calls = {
            "ε-curves core (5 ε × R = 100 × 2 mechanisms, CC and hot spots)": lambda: eps_curves(
                agg, sens, s, CurveSpec(epsilons=tuple(np.geomspace(0.1, 10, 5)), R=100, hot_spots_q=targets.DEFAULT_Q),
                np.random.default_rng(0)),
            "target finder core (ε and N answers, R = 100)": lambda: (
                targets.epsilon_for_target(agg, n, s, targets.Measure.CC, 0.8, np.random.default_rng(0),
                                           basis=targets.Basis.PRIVATE),
                targets.observers_for_target(agg, s, targets.Measure.CC, 0.8, np.random.default_rng(0),
                                             basis=targets.Basis.PLANNING)),
            "private m vs fixed m core (11 candidates, R = 50)": lambda: targets.cap_choice_utility(
                gm, fixed_m=1.0, candidates=(1, 2, 3, 4, 5, 6, 8, 10), selection=cap.SelectionSpec(10.0, 0.1),
                setting=s, rng=np.random.default_rng(0), basis=targets.Basis.PRIVATE, draws=targets.DrawSpec(R=50)),
        }
        for name, call in calls.items():
            t = []
            for _ in range(3):
                t0 = time.perf_counter()
                call()
                t.append(time.perf_counter() - t0)
            rows.append(dict(name=f"{name}, {label}", seconds=statistics.median(t)))
    return rows


def browser_figures(repeats: int = 3) -> list[dict]:
    """Click-to-drawn seconds of each panel on a fresh session (first open: nothing cached), vs the trivial
    page's slider re-render."""
    from playwright.sync_api import sync_playwright
    from run import slider_rerender

    import harness

    rows = []
    with sync_playwright() as p:
        browser = harness.launch_browser(p)
        tproc, turl = harness.start_app("bench/trivial_app.py")
        proc, url = harness.start_app()
        try:
            trivial = browser.new_page()
            trivial.goto(turl)
            harness.wait_idle(trivial)
            base = statistics.median(slider_rerender(trivial, 5))
            for label, (button, drawn) in PANELS.items():
                times = []
                for _ in range(repeats):
                    page = browser.new_page(viewport={"width": 1440, "height": 1000})
                    page.goto(f"{url}/heatmaps")
                    harness.wait_idle(page, 120_000)
                    harness.figure_drawn(page)
                    t0 = time.perf_counter()
                    page.locator('[data-testid="stMain"] button', has_text=button).first.click()
                    page.wait_for_selector(drawn, timeout=300_000)
                    times.append(time.perf_counter() - t0)
                    harness.wait_idle(page, 300_000)
                    assert page.locator('[data-testid="stException"]').count() == 0
                    page.close()
                med = statistics.median(times)
                rows.append(dict(name=f"open {label} panel (browser, click to drawn)", seconds=med,
                                 baseline_seconds=base, ratio=med / base))
        finally:
            harness.stop_app(proc)
            harness.stop_app(tproc)
    return rows


def main() -> None:
    """Print every figure."""
    rows = core_figures()
    if "--skip-browser" not in sys.argv:
        sys.path.insert(0, str(ROOT / "bench"))
        rows += browser_figures()
    for r in rows:
        extra = f"  (trivial page {r['baseline_seconds']:.3f} s, ×{r['ratio']:.1f})" if "ratio" in r else ""
        print(f"{r['seconds']:8.3f} s  {r['name']}{extra}")


if __name__ == "__main__":
    main()
