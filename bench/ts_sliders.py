"""Time series: every slider of the page (and the participant picker) against the trivial page in one run.

Run: python bench/ts_sliders.py [repeats]. bench/run.py moves every slider the page shows at its defaults; this
opens the page also with the settings that show R, k (the manual choice of k) and the free chunk size, moves
every slider through bench/run.py's measurement, then picks another participant and feature.
"""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import run  # noqa: E402
from run import harness  # noqa: E402

# url paths (with the settings that show a slider) -> the slider they are opened for
CASES = {"time_series": "ε total", "time_series?ts_runs=20": "Draws R", "time_series?ts_k_src=manual": "k —",
         "time_series?ts_chunk=free": "Free chunk"}

# selectbox label -> two options picked in turn (the bundled sample)
PICKERS = {"Participant": ("P03", "P02"), "Feature shown": ("fix_dur_mean_ms (ms)", "fix_rate_hz (1/s)")}

_CLICK_ARM = run._ARM.replace("document.addEventListener('keydown'", "document.addEventListener('pointerdown'")


def picker_rerender(page, picker: str, option: str, quiet_ms: int = 700) -> float:
    """Seconds from a click on an option of the `picker` selectbox to the last DOM change of the re-render."""
    page.locator('[data-testid="stSelectbox"]').filter(has_text=picker).first.click()
    page.evaluate(_CLICK_ARM)
    page.get_by_role("option", name=option, exact=True).click()
    harness.wait_idle(page)
    page.wait_for_function(f"window.__eyedp_last !== null && performance.now() - window.__eyedp_last > {quiet_ms}",
                           timeout=120_000, polling=50)
    return page.evaluate("(window.__eyedp_last - window.__eyedp_t0) / 1000")


def main() -> None:
    """Slider rows through bench/run.py, then the participant picker against the trivial page's slider."""
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rows = run.browser_figures(repeats, list(CASES), cold_repeats=0)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = harness.launch_browser(p)
        tproc, turl = harness.start_app("bench/trivial_app.py", extra_args=run.TRIVIAL_DEFAULTS)
        proc, url = harness.start_app("app.py")
        try:
            trivial = browser.new_page()
            trivial.goto(turl)
            harness.wait_idle(trivial)
            run.slider_rerender(trivial, 1)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(f"{url}/time_series")
            harness.wait_idle(page, 120_000)
            page.wait_for_selector(harness.SLIDER, timeout=30_000)
            for picker, options in PICKERS.items():
                picker_rerender(page, picker, options[1])  # warm-up
                mine, base = [], []
                for i in range(repeats):
                    mine.append(picker_rerender(page, picker, options[i % 2]))
                    base += run.slider_rerender(trivial, 1, key="ArrowRight" if i % 2 == 0 else "ArrowLeft")
                rows.append(dict(name=f"re-render after picking another {picker.lower()}",
                                 seconds=statistics.median(mine), baseline_seconds=statistics.median(base)))
        finally:
            harness.stop_app(proc)
            harness.stop_app(tproc)
    print(run.HEADER)
    for r in rows:
        print(run._row_text(r))

if __name__ == "__main__":
    main()
