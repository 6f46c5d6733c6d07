"""Lab: before/after in ONE run: the same sliders on two checkouts of the app (e.g. main and this branch) and the
trivial page with EyeDP's config, one move on each in turn (medians), so a loaded machine hits all three alike.

python bench/lab/ab.py <other checkout> <repeats> "<url path>|<slider label>" ...   (label '' = first slider)"""

import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))
from playwright.sync_api import sync_playwright  # noqa: E402
from run import _open, _slider, _slider_labels, slider_rerender  # noqa: E402

import harness  # noqa: E402


def start(root: Path, script: str = "app.py") -> tuple[subprocess.Popen, str]:
    """A streamlit server of `script` run from checkout `root` -> (process, url)."""
    port = harness.free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
        ],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{root} did not start")


other, repeats, cases = Path(sys.argv[1]), int(sys.argv[2]), [c.split("|", 1) for c in sys.argv[3:]]
with sync_playwright() as p:
    b = harness.launch_browser(p)
    procs = []
    try:
        (po, uo), (pn, un), (pt, ut) = start(other), start(ROOT), start(ROOT, "bench/trivial_app.py")
        procs = [po, pn, pt]
        tuned = b.new_page()
        tuned.goto(ut)
        harness.wait_idle(tuned)
        slider_rerender(tuned, 1)
        print(f"{'page | slider':62s} {'before':>8s} {'after':>8s} {'trivial':>8s} {'before×':>8s} {'after×':>8s}")
        for path, label in cases:
            pages, sliders = [], []
            for u in (uo, un):
                pg = b.new_page(viewport={"width": 1440, "height": 1000})
                _open(pg, u, path)
                region, lab, idx = next(
                    ((r, name, i) for r, name, i in _slider_labels(pg) if not label or name.startswith(label))
                )
                s = _slider(pg, region, lab, idx)
                slider_rerender(pg, 1, locator=s)
                pages.append(pg)
                sliders.append(s)
            t = {"before": [], "after": [], "trivial": []}
            for i in range(repeats):
                key = "ArrowLeft" if i % 2 == 0 else "ArrowRight"
                t["before"] += slider_rerender(pages[0], 1, key=key, locator=sliders[0])
                t["after"] += slider_rerender(pages[1], 1, key=key, locator=sliders[1])
                t["trivial"] += slider_rerender(tuned, 1, key=key)
            m = {k: statistics.median(v) for k, v in t.items()}
            print(
                f"{(path or 'home') + ' | ' + lab:62s} {m['before']:8.3f} {m['after']:8.3f} {m['trivial']:8.3f} "
                f"{m['before'] / m['trivial']:8.2f} {m['after'] / m['trivial']:8.2f}",
                flush=True,
            )
            for pg in pages:
                pg.close()
    finally:
        for pr in procs:
            pr.terminate()
            pr.wait(20)
