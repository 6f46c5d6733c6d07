"""Lab: slider-to-render of the variants in variants.py against the trivial page, in one run (medians).

python bench/lab/run_lab.py <repeats> <variant> [<variant> ...]   (variant names: variants.py BODIES, select)"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser"), str(ROOT / "bench"), str(ROOT / "bench" / "lab")]
from alternate import measure, open_trivial  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

import harness  # noqa: E402


def _open(page, url: str):
    """The lab page, drawn; its first slider."""
    page.goto(url)
    harness.wait_idle(page, 120000)


repeats, names = int(sys.argv[1]), sys.argv[2:]
with sync_playwright() as p:
    browser = harness.launch_browser(p)
    tproc, trivial = open_trivial(browser)
    for name in names:
        print(f"{name:20s}", measure(browser, trivial, "bench/lab/variants.py", {"EYEDP_LAB_VARIANT": name}, _open,
                                     repeats), flush=True)
    harness.stop_app(tproc)
