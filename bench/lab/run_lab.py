"""Lab: slider-to-render of the variants in variants.py against the trivial page, in one run (medians).

python bench/lab/run_lab.py <repeats> <variant> [<variant> ...]   (variant names: variants.py BODIES, select)"""
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))
from playwright.sync_api import sync_playwright  # noqa: E402
from run import slider_rerender  # noqa: E402

import harness  # noqa: E402

repeats, names = int(sys.argv[1]), sys.argv[2:]
with sync_playwright() as p:
    browser = harness.launch_browser(p)
    tproc, turl = harness.start_app("bench/trivial_app.py")
    trivial = browser.new_page()
    trivial.goto(turl)
    harness.wait_idle(trivial)
    slider_rerender(trivial, 1)
    for name in names:
        os.environ["EYEDP_LAB_VARIANT"] = name  # the app process inherits it
        proc, url = harness.start_app("bench/lab/variants.py")
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.goto(url)
            harness.wait_idle(page, 120000)
            slider_rerender(page, 1)
            mine, base = [], []
            for i in range(repeats):
                key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
                mine += slider_rerender(page, 1, key=key)
                base += slider_rerender(trivial, 1, key=key)
            m, b = statistics.median(mine), statistics.median(base)
            print(f"{name:20s} {m:.3f} {b:.3f} {m / b:.2f}", flush=True)
            page.close()
        finally:
            harness.stop_app(proc)
    harness.stop_app(tproc)
