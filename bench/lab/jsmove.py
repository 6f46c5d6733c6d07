"""Lab: CPU profile of the browser main thread over N slider moves: self time by script/function, inclusive time,
and time per React component (what React called: component functions and effects), per move.

python bench/lab/jsmove.py <url path> [slider label] [moves]"""

import collections
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))
from alternate import labelled_slider, open_at_slider, profiled_moves  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402
from run import slider_rerender  # noqa: E402

import harness  # noqa: E402

path = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
moves = int(sys.argv[3]) if len(sys.argv) > 3 else 10
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app(os.environ.get("EYEDP_JS_SCRIPT", "app.py"))  # a lab variant page: its path
    try:
        page = open_at_slider(b, url, path)
        sl = labelled_slider(page, label)
        slider_rerender(page, 2, locator=sl)
        prof, t = profiled_moves(page, moves, locator=sl)
    finally:
        harness.stop_app(proc)
nodes = {n["id"]: n for n in prof["nodes"]}
parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
self_t = collections.Counter()
for sid, d in zip(prof["samples"], prof["timeDeltas"]):
    self_t[sid] += d
by_fn = collections.Counter()
incl = collections.Counter()
busy = 0
for nid, us in self_t.items():
    cf = nodes[nid]["callFrame"]
    if cf["functionName"] in ("(idle)", "(program)"):
        continue
    busy += us
    by_fn[(cf["url"].split("/")[-1][:30], cf["functionName"])] += us
    seen = set()
    x = nid
    while x in nodes:
        f = nodes[x]["callFrame"]
        k = (f["url"].split("/")[-1][:30], f["functionName"])
        if k not in seen:
            incl[k] += us
            seen.add(k)
        x = parent.get(x)
print(
    f"moves {moves}; median move {sorted(t)[len(t) // 2] * 1000:.0f} ms; busy JS+GC per move {busy / 1000 / moves:.1f} ms "
    f"(program/idle excluded)"
)
by_file = collections.Counter()
for (f, _), v in by_fn.items():
    by_file[f] += v
print("self ms/move by script:")
for k, v in by_file.most_common(15):
    print(f"  {v / 1000 / moves:6.2f} {k}")
print("self ms/move:")
for k, v in by_fn.most_common(25):
    print(f"  {v / 1000 / moves:6.2f} {k}")
print("inclusive ms/move:")
for k, v in incl.most_common(40):
    print(f"  {v / 1000 / moves:6.2f} {k}")
# Per React component: each sample goes to the nearest frame outside react-dom whose caller is in react-dom (the
# component function, or the effect, React called), named by script, function and column (the bundle is minified).
by_component = collections.Counter()
for nid, us in self_t.items():
    x = nid
    while x in nodes and parent.get(x) in nodes:
        here, up = nodes[x]["callFrame"], nodes[parent[x]]["callFrame"]
        if "react-dom" in up["url"] and "react-dom" not in here["url"] and here["url"]:
            by_component[(here["url"].split("/")[-1][:30], here["functionName"], here["columnNumber"])] += us
            break
        x = parent[x]
print("by React component (inclusive) ms/move:")
for k, v in by_component.most_common(15):
    print(f"  {v / 1000 / moves:6.2f} {k}")
