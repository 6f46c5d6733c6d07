"""Lab: Chrome's trace events over N slider moves on a page, total time per move by event name (JavaScript against
style, layout and paint).

python bench/lab/timeline.py <url path> <slider label or ''> <moves>   (SCRIPT=bench/trivial_app.py for the trivial
page)"""
import collections
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser"), str(ROOT / "bench")]
from alternate import labelled_slider  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402
from run import _open, slider_rerender  # noqa: E402

import harness  # noqa: E402

path, label, moves = sys.argv[1], sys.argv[2], int(sys.argv[3])
script = os.environ.get("SCRIPT", "app.py")
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app(script)
    try:
        page = b.new_page(viewport={"width": 1440, "height": 1000})
        if script == "app.py":
            _open(page, url, path)
        else:
            page.goto(url)
            harness.wait_idle(page)
        page.wait_for_timeout(1000)
        slider = labelled_slider(page, label)
        slider_rerender(page, 2, locator=slider)
        b.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
        times = slider_rerender(page, moves, locator=slider, quiet_ms=300)
        raw = b.stop_tracing()
    finally:
        harness.stop_app(proc)
events = json.loads(raw)
events = events["traceEvents"] if isinstance(events, dict) else events
# The renderer's main thread: the one that runs the page's JavaScript.
main = collections.Counter((e["pid"], e["tid"]) for e in events if e.get("name") == "FunctionCall").most_common(1)[0][0]
total, count = collections.Counter(), collections.Counter()
for e in events:
    if (e.get("pid"), e.get("tid")) == main and e.get("ph") == "X" and "dur" in e:
        total[e["name"]] += e["dur"]
        count[e["name"]] += 1
print(f"median move {sorted(times)[len(times) // 2] * 1000:.0f} ms")
for name, us in total.most_common(30):
    if not name.startswith("V8.GC_"):
        print(f"{us / 1000 / moves:8.2f} ms/move  {count[name] / moves:6.1f}/move  {name}")
