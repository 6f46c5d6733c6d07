"""EyeDP benchmark: prints every timing figure the issues ask for, as ratios to a baseline measured in the same run.

Run: python bench/run.py [--repeats N] [--skip-browser] [--only app|data|heatmaps|timeseries|samples|attacks]
                         [--pages home gaze_samples ...] [--cold-repeats N]
Figures:
* app cold start (process start -> Home fully drawn in Chromium) vs the trivial page, alternated, medians;
* each page's re-render after a slider move (real browser; key press to the last DOM change) vs the trivial
  page's, one move on each alternately, medians. The trivial page runs twice: with Streamlit's defaults (the
  issue's baseline; `ratio`) and with EyeDP's .streamlit/config.toml, whose post-run gc.collect is off
  (`vs tuned`, the stricter figure: the tuning helps the trivial page too) ("no slider" when a page has none; Attacks after one run
  of its default settings, so its results are cached);
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


def cold_start(browser, script: str, path: str = "", extra_args: tuple[str, ...] = ()) -> float:
    """Seconds from `streamlit run` to the first page fully drawn in the browser."""
    t0 = time.perf_counter()
    proc, url = harness.start_app(script, extra_args=extra_args)
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.goto(f"{url}/{path}")
        harness.wait_idle(page, 120_000)
        elapsed = time.perf_counter() - t0
        page.close()
        return elapsed
    finally:
        harness.stop_app(proc)


def slider_rerender(page, repeats: int, key: str = "ArrowRight", quiet_ms: int = 700, locator=None) -> list[float]:
    """Seconds from a slider key press to the last DOM change of the re-render it triggers, `repeats` times."""
    slider = locator if locator is not None else page.locator(harness.SLIDER).first
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


# Pages measured for the slider-to-render ratio (url path -> name in the table), and for some pages which
# slider (an aria label prefix; None: the first slider of the main area).
# "path#view" opens a page and clicks the radio option named in VIEW_CLICKS first.
BENCH_PAGES = {"": "Home", "heatmaps": "Heatmaps", "time_series": "Time series", "gaze_samples": "Gaze samples",
               "gaze_samples#protect": "Gaze samples, Protect view", "attacks": "Attacks (results cached)",
               "report": "Report"}
VIEW_CLICKS = {"gaze_samples#protect": "Protect the stream"}
SLIDER_CHOICE: dict[str, str | None] = {}


def _first_slider(page, path: str):
    """The slider to move on `path` (a Locator), or None when the page shows none."""
    loc = page.locator(harness.SLIDER)
    if loc.count() == 0:
        return None
    label = SLIDER_CHOICE.get(path)
    if label:
        hit = page.locator(f'[data-testid="stMain"] [data-testid="stSlider"]:has-text("{label}") input[type="range"]')
        if hit.count():
            return hit.first
    return loc.first


def _prepare_attacks(page, timeout_ms: float = 900_000) -> None:
    """Press Run attacks with the default settings and wait for the results (their slider) to appear: the
    figure is the re-render after a slider move with the results already cached."""
    button = page.get_by_role("button", name="Run attacks")
    if button.count() == 0:
        return
    button.first.click()
    page.wait_for_selector(harness.SLIDER, timeout=timeout_ms)
    harness.wait_idle(page, timeout_ms)


# The baseline page with Streamlit's own defaults whatever .streamlit/config.toml says (EyeDP turns the post-run GC
# off; a trivial page left at the defaults pays for it).
TRIVIAL_DEFAULTS = ("--runner.postScriptGC", "true")


def _page_vs_trivial(page, trivial, path: str, repeats: int, tuned=None) -> tuple[list[float], ...] | None:
    """Alternate a move on the page's slider with one on the trivial page (and the tuned one, when given):
    (page seconds, trivial seconds, tuned trivial seconds)."""
    if path == "attacks":
        _prepare_attacks(page)
    if path in VIEW_CLICKS:
        page.locator('[data-testid="stMain"] [data-testid="stRadio"] label').filter(
            has_text=VIEW_CLICKS[path]).first.click()
        harness.wait_idle(page, 300_000)
    try:  # a page that is still drawing after its first run (a slow first computation) gets time to finish
        page.wait_for_selector(harness.SLIDER, timeout=30_000)
    except Exception:  # noqa: BLE001 - Playwright's timeout: the page has no slider
        return None
    slider = _first_slider(page, path)
    if slider is None:
        return None
    slider_rerender(page, 1, locator=slider)  # warm-up: first-time caches, Plotly's first layout
    mine, base, strict = [], [], []
    for i in range(repeats):
        key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
        mine += slider_rerender(page, 1, key=key, locator=slider)
        base += slider_rerender(trivial, 1, key=key)
        if tuned is not None:
            strict += slider_rerender(tuned, 1, key=key)
    return mine, base, strict


def browser_figures(repeats: int, pages: list[str] | None = None, cold_repeats: int = 3) -> list[dict]:
    """Cold start and per-page re-render figures, each against the trivial page in the same run (medians)."""
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    with sync_playwright() as p:
        browser = harness.launch_browser(p)
        if cold_repeats > 0:
            # Alternate the two apps so that a busy moment of the machine hits both alike.
            base_c, app_c = [], []
            for _ in range(cold_repeats):
                base_c.append(cold_start(browser, "bench/trivial_app.py", extra_args=TRIVIAL_DEFAULTS))
                app_c.append(cold_start(browser, "app.py"))
            rows.append(dict(name="app cold start to first render (Home)", seconds=statistics.median(app_c),
                             baseline_seconds=statistics.median(base_c)))

        tproc, turl = harness.start_app("bench/trivial_app.py", extra_args=TRIVIAL_DEFAULTS)
        sproc, surl = harness.start_app("bench/trivial_app.py")
        proc, url = harness.start_app("app.py")
        try:
            trivial, tuned = browser.new_page(), browser.new_page()
            for pg, u in ((trivial, turl), (tuned, surl)):
                pg.goto(u)
                harness.wait_idle(pg)
                slider_rerender(pg, 1)
            for path in pages if pages is not None else list(BENCH_PAGES):
                name = BENCH_PAGES.get(path, path)
                page = browser.new_page(viewport={"width": 1440, "height": 1000})
                page.goto(f"{url}/{path.split('#')[0]}")
                harness.wait_idle(page, 120_000)
                got = _page_vs_trivial(page, trivial, path, repeats, tuned)
                if got is None:
                    rows.append(dict(name=f"re-render after slider move: {name}", seconds=float("nan"),
                                     baseline_seconds=None, note="no slider"))
                else:
                    rows.append(dict(name=f"re-render after slider move: {name}", seconds=statistics.median(got[0]),
                                     baseline_seconds=statistics.median(got[1]),
                                     tuned_seconds=statistics.median(got[2])))
                page.close()
        finally:
            for pr in (proc, tproc, sproc):
                harness.stop_app(pr)
        browser.close()
    return rows


def sample_load_figure(repeats: int) -> list[dict]:
    """Cold load of all bundled samples in a fresh process, against a process that only imports pandas."""
    import subprocess

    def timed(code: str) -> float:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
        return float(out.stdout.strip().splitlines()[-1])

    load = ("import time; from eyedp_core.data import bundled; t = time.perf_counter(); "
            "[bundled.load_sample(n) for n in ('reading_features', 'fixations', 'gaze_streams', 'demographics')]; "
            "[bundled.stimulus_image(n) for n in bundled.stimulus_names()]; print(time.perf_counter() - t)")
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
    ap.add_argument("--pages", nargs="*", metavar="PATH",
                    help="url paths of the pages to measure in the browser (home for Home; default: "
                         + ", ".join(p or "home" for p in BENCH_PAGES) + ")")
    ap.add_argument("--cold-repeats", type=int, default=3, help="cold starts of each app (0: skip)")
    args = ap.parse_args()
    rows: list[dict] = []
    if args.only in (None, "data"):
        rows += sample_load_figure(args.repeats)
    if not args.skip_browser and args.only in (None, "app"):
        pages = None if args.pages is None else ["" if p == "home" else p for p in args.pages]
        rows += browser_figures(args.repeats, pages, args.cold_repeats)
    for mod in ("heatmaps", "timeseries", "samples", "attacks"):
        if args.only not in (None, mod):
            continue
        try:
            m = importlib.import_module(f"bench.bench_{mod}")
        except ModuleNotFoundError:
            continue
        rows += m.run()
    print(f"{'figure':62s} {'seconds':>9s} {'baseline':>9s} {'ratio':>8s} {'vs tuned':>9s}")
    for r in rows:
        if r.get("note"):
            print(f"{r['name'][:62]:62s} {r['note']:>28s}")
            continue
        base = r.get("baseline_seconds")
        ratio = r.get("ratio", r["seconds"] / base if base else float("nan"))
        tuned = r.get("tuned_seconds")
        strict = f"{r['seconds'] / tuned:9.2f}" if tuned else ""
        print(f"{r['name'][:62]:62s} {r['seconds']:9.3f} {base if base is not None else float('nan'):9.3f} {ratio:8.2f}"
              f" {strict}")


if __name__ == "__main__":
    main()
