"""Lab: py-spy the app server while a page's slider is moved N times (where the server spends a re-render).

python bench/lab/spy.py <url path> <moves> <out.txt> [slider label]"""
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from playwright.sync_api import sync_playwright  # noqa: E402

import harness  # noqa: E402 - found through the sys.path entry above

path, moves, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
label = sys.argv[4] if len(sys.argv) > 4 else None
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app()
    try:
        page = b.new_page(viewport={"width": 1440, "height": 1000})
        harness.open_view(page, url, path)  # "page#View label" clicks that view first
        page.wait_for_selector(harness.SLIDER, timeout=30000)
        page.wait_for_timeout(500)
        sl = page.locator(harness.SLIDER).first if not label else page.locator(f'[data-testid="stMain"] [data-testid="stSlider"]:has-text("{label}") input[type="range"]').first
        spy = subprocess.Popen(["py-spy", "record", "-p", str(proc.pid), "-o", out, "-f", "raw", "-r", "500", "--idle"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        for i in range(moves):
            sl.focus()
            page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            harness.wait_idle(page)
            page.wait_for_timeout(200)
        spy.send_signal(2)
        spy.wait(30)
    finally:
        harness.stop_app(proc)
