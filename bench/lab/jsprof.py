"""Lab: CPU profile of the browser main thread during a cold page load, self time by script and function.

python bench/lab/jsprof.py <script> [url path]"""
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "browser"))
from playwright.sync_api import sync_playwright  # noqa: E402

import harness  # noqa: E402 - found through the sys.path entry above

script = sys.argv[1]
path = sys.argv[2] if len(sys.argv) > 2 else ""
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app(script)
    try:
        page = b.new_page(viewport={"width": 1440, "height": 1000})
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
        page.goto(f"{url}/{path}")
        harness.wait_idle(page, 120000)
        prof = cdp.send("Profiler.stop")["profile"]
    finally:
        harness.stop_app(proc)
nodes = {n["id"]: n for n in prof["nodes"]}
dt = collections.Counter()
for sid, d in zip(prof["samples"], prof["timeDeltas"]):
    dt[sid] += d
by_url = collections.Counter()
by_fn = collections.Counter()
for nid, us in dt.items():
    cf = nodes[nid]["callFrame"]
    u = cf["url"].split("/")[-1] or cf["functionName"] or "(native)"
    by_url[u] += us
    by_fn[(u, cf["functionName"])] += us
tot = sum(by_url.values())
print(f"total sampled {tot/1e6:.2f} s")
for u, us in by_url.most_common(15):
    print(f"{us/1e3:8.0f} ms  {u}")
print("--")
for (u, f), us in by_fn.most_common(25):
    print(f"{us/1e3:8.0f} ms  {u} :: {f}")
