"""Lab: ablations. The app of another checkout (a git worktree whose code reads LAB_SKIP to leave parts out, edited
by hand for the question at hand), once per set of parts left out, one slider's moves alternated with the tuned
trivial page's (medians).

python bench/lab/ablate.py <checkout> <repeats> <url path> <slider label> <set> [<set> ...]   (set: LAB_SKIP's
value, comma-separated part names; '-' for none)"""
import sys
from pathlib import Path

OTHER = sys.argv[1]  # its harness and run come first: the app starts from that checkout
sys.path[:0] = [OTHER, OTHER + "/tests/browser", OTHER + "/bench", str(Path(__file__).resolve().parent)]
from alternate import labelled_slider, measure, open_trivial  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from run import _open  # noqa: E402

import harness  # noqa: E402

repeats, path, label, sets = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]


def _slider(page, url: str):
    """The page at `path`, drawn; the slider named `label`."""
    _open(page, url, path)
    page.wait_for_timeout(800)
    return labelled_slider(page, label)


with sync_playwright() as p:
    browser = harness.launch_browser(p)
    tproc, trivial = open_trivial(browser)
    for parts in sets:
        print(f"{parts:28s}", measure(browser, trivial, "app.py", {"LAB_SKIP": parts}, _slider, repeats), flush=True)
    harness.stop_app(tproc)
