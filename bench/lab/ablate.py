"""Lab: ablations. The app of another checkout (a git worktree whose code reads LAB_SKIP to leave parts out, edited
by hand for the question at hand), once per set of parts left out, one slider's moves alternated with the tuned
trivial page's (medians).

python bench/lab/ablate.py <checkout> <repeats> <url path> <slider label> <set> [<set> ...]   (set: LAB_SKIP's
value, comma-separated part names; '-' for none)"""
import os
import statistics
import sys

ROOT = sys.argv[1]
sys.path[:0] = [ROOT, ROOT + "/tests/browser", ROOT + "/bench"]
from playwright.sync_api import sync_playwright  # noqa: E402
from run import _open, slider_rerender  # noqa: E402

import harness  # noqa: E402

repeats, path, label, sets = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
with sync_playwright() as p:
    browser = harness.launch_browser(p)
    tproc, turl = harness.start_app("bench/trivial_app.py")
    trivial = browser.new_page()
    trivial.goto(turl)
    harness.wait_idle(trivial)
    slider_rerender(trivial, 1)
    for parts in sets:
        os.environ["LAB_SKIP"] = parts  # the app process inherits it
        proc, url = harness.start_app("app.py")
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            _open(page, url, path)
            page.wait_for_timeout(800)
            sel = f'[data-testid="stSlider"]:has([data-testid="stWidgetLabel"]:has-text("{label}")) input[type="range"]'
            slider = page.locator(sel).first
            slider_rerender(page, 2, locator=slider)
            mine, base = [], []
            for i in range(repeats):
                key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
                mine += slider_rerender(page, 1, key=key, locator=slider)
                base += slider_rerender(trivial, 1, key=key)
            m, b = statistics.median(mine), statistics.median(base)
            print(f"{parts:28s} {m:.3f} {b:.3f} {m / b:.2f}", flush=True)
            page.close()
        finally:
            harness.stop_app(proc)
    harness.stop_app(tproc)
