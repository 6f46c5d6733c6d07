"""EyeDP benchmark: prints every timing figure the issues ask for, as ratios to a baseline measured in the same run.

Run: python bench/run.py [--repeats N] [--skip-browser] [--only app|heatmaps|timeseries]
Figures:
* app cold start (process start -> first page fully drawn in Chromium) vs the trivial page;
* each page's re-render after a slider move (real browser) vs the trivial page's;
* the core figures of bench/bench_*.py modules (each with its own baseline).
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import harness  # noqa: E402

# Stamps the keydown, then the time of every DOM change outside the slider itself. A fast run can
# start and finish inside one React render (the app's script-state attribute never flips), so the
# end of a re-render is the last DOM change before the page goes quiet.
_ARM = """() => {
  window.__eyedp_t0 = null; window.__eyedp_last = null;
  document.addEventListener('keydown', () => {
    if (window.__eyedp_t0 === null) window.__eyedp_t0 = performance.now();
  }, {capture: true, once: true});
  if (window.__eyedp_obs) window.__eyedp_obs.disconnect();
  window.__eyedp_obs = new MutationObserver((records) => {
    if (window.__eyedp_t0 === null) return;
    if (records.every(r => r.target.closest && r.target.closest('[data-testid="stSlider"]'))) return;
    window.__eyedp_last = performance.now();
  });
  window.__eyedp_obs.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
}"""


def cold_start(browser, script: str, path: str = "") -> float:
    """Seconds from `streamlit run` to the first page fully drawn in the browser."""
    t0 = time.perf_counter()
    proc, url = harness.start_app(script)
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{url}/{path}")
        harness.wait_idle(page, 120_000)
        elapsed = time.perf_counter() - t0
        page.close()
        return elapsed
    finally:
        harness.stop_app(proc)


def slider_rerender(page, repeats: int, key: str = "ArrowRight", quiet_ms: int = 700) -> list[float]:
    """Seconds from a slider key press to the last DOM change of the re-render it triggers, `repeats` times."""
    slider = page.locator(harness.SLIDER).first
    back = "ArrowLeft" if key == "ArrowRight" else "ArrowRight"
    out = []
    for i in range(repeats):
        page.evaluate(_ARM)
        slider.focus()
        page.keyboard.press(key if i % 2 == 0 else back)
        harness.wait_idle(page)
        # Quiet for quiet_ms after the last change (the ms it waits is not counted).
        page.wait_for_function(f"window.__eyedp_last !== null && performance.now() - window.__eyedp_last > {quiet_ms}",
                               timeout=120_000, polling=50)
        out.append(page.evaluate("(window.__eyedp_last - window.__eyedp_t0) / 1000"))
    return out


def browser_figures(repeats: int) -> list[dict]:
    """Cold start and per-page re-render figures, each against the trivial page."""
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    with sync_playwright() as p:
        browser = harness.launch_browser(p)
        base_cold = statistics.median(cold_start(browser, "bench/trivial_app.py") for _ in range(2))
        app_cold = statistics.median(cold_start(browser, "app.py") for _ in range(2))
        rows.append(dict(name="app cold start to first render", seconds=app_cold, baseline_seconds=base_cold))

        proc, url = harness.start_app("bench/trivial_app.py")
        try:
            page = browser.new_page()
            page.goto(url)
            harness.wait_idle(page)
            base = statistics.median(slider_rerender(page, repeats))
        finally:
            harness.stop_app(proc)
        proc, url = harness.start_app("app.py")
        try:
            for path in harness.PAGES:
                page = browser.new_page(viewport={"width": 1440, "height": 1000})
                page.goto(f"{url}/{path}")
                harness.wait_idle(page, 120_000)
                if page.locator(harness.SLIDER).count() == 0:
                    page.close()
                    continue
                t = statistics.median(slider_rerender(page, repeats))
                rows.append(dict(name=f"re-render after slider move: /{path or 'home'}", seconds=t, baseline_seconds=base))
                page.close()
        finally:
            harness.stop_app(proc)
        browser.close()
    return rows


def sample_load_figure(repeats: int) -> list[dict]:
    """Cold load of all bundled samples in a fresh process, against a process that only imports pandas."""
    import subprocess

    def timed(code: str) -> float:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])

    load = ("import time; from eyedp_core import datasets; t = time.perf_counter(); "
            "[datasets.load_sample(n) for n in ('reading_features', 'fixations', 'gaze_streams', 'demographics')]; "
            "[datasets.stimulus_image(n) for n in datasets.stimulus_names()]; print(time.perf_counter() - t)")
    # The floor: reading the same files with pandas/PIL and nothing else.
    base = ("import time, glob, numpy, pandas; from PIL import Image; t = time.perf_counter(); "
            "[pandas.read_parquet(f) for f in glob.glob('sample_data/*.parquet')]; "
            "[numpy.asarray(Image.open(f).convert('RGB')) for f in glob.glob('assets/stimuli/*.png')]; "
            "print(time.perf_counter() - t)")
    t = statistics.median(timed(load) for _ in range(repeats))
    b = statistics.median(timed(base) for _ in range(repeats))
    return [dict(name="load all bundled samples + stimuli (fresh process)", seconds=t, baseline_seconds=b)]


def main() -> None:
    """Parse options, run the selected figures, print a table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--skip-browser", action="store_true")
    ap.add_argument("--only", choices=["app", "data", "heatmaps", "timeseries", "samples", "attacks"])
    args = ap.parse_args()
    rows: list[dict] = []
    if args.only in (None, "data"):
        rows += sample_load_figure(args.repeats)
    if not args.skip_browser and args.only in (None, "app"):
        rows += browser_figures(args.repeats)
    for mod in ("heatmaps", "timeseries", "samples", "attacks"):
        if args.only not in (None, mod):
            continue
        try:
            m = importlib.import_module(f"bench.bench_{mod}")
        except ModuleNotFoundError:
            continue
        rows += m.run()
    print(f"{'figure':62s} {'seconds':>9s} {'baseline':>9s} {'ratio':>8s}")
    for r in rows:
        base = r.get("baseline_seconds")
        ratio = r.get("ratio", r["seconds"] / base if base else float("nan"))
        print(f"{r['name'][:62]:62s} {r['seconds']:9.3f} {base if base is not None else float('nan'):9.3f} {ratio:8.2f}")


if __name__ == "__main__":
    main()
