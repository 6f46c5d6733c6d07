"""Lab: py-spy the app server while a page's slider is moved N times (where the server spends a re-render).

python bench/lab/spy.py <url path> <moves> <out.txt> [slider label]"""
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))  # run.py, which alternate.py uses
from alternate import labelled_slider, open_at_slider  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402

import harness  # noqa: E402 - found through the sys.path entry above

path, moves, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
label = sys.argv[4] if len(sys.argv) > 4 else None
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app()
    try:
        page = open_at_slider(b, url, path)  # "page#View label" clicks that view first
        sl = labelled_slider(page, label)
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
