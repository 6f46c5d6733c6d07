"""Lab: slider-to-render of small variant apps vs the trivial page, in one run."""
import statistics, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "tests" / "browser")); sys.path.insert(0, str(ROOT / "bench"))
import harness
from run import slider_rerender
from playwright.sync_api import sync_playwright
repeats = int(sys.argv[1]); scripts = sys.argv[2:]
with sync_playwright() as p:
    browser = harness.launch_browser(p)
    tproc, turl = harness.start_app("bench/trivial_app.py")
    trivial = browser.new_page(); trivial.goto(turl); harness.wait_idle(trivial); slider_rerender(trivial, 1)
    for s in scripts:
        path = ""
        if "::" in s:
            s, path = s.split("::")
        proc, url = harness.start_app(s)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000}); page.goto(f"{url}/{path}"); harness.wait_idle(page, 120000)
            page.wait_for_selector(harness.SLIDER, timeout=30000)
            slider_rerender(page, 1)
            mine, base = [], []
            for i in range(repeats):
                key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
                mine += slider_rerender(page, 1, key=key); base += slider_rerender(trivial, 1, key=key)
            m, b = statistics.median(mine), statistics.median(base)
            print(f"{s+('::'+path if path else ''):40s} {m:.3f} {b:.3f} {m/b:.2f}", flush=True)
            page.close()
        finally:
            harness.stop_app(proc)
    harness.stop_app(tproc)
