"""Lab: each slider move as the browser lives it: the rerun request sent (S), every server message received (m, with
its bytes) and every React commit (C), in ms after the key press; then the median number of commits per move.

python bench/lab/commits.py <url path> [slider label] [moves]   (SCRIPT=bench/trivial_app.py for the trivial page)

A commit is counted through the hook React calls for its developer tools, so even the production build reports
it. The gaps before each commit are the renders: on a fragment run the run's start (new session), its running
state, the elements and its end each re-render every element of the page, because Streamlit hands the run's id
and state to every element through one React context."""
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser"), str(ROOT / "bench")]
from alternate import labelled_slider, open_at_slider  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402
from run import slider_rerender  # noqa: E402

import harness  # noqa: E402

HOOKS = """(() => {
  window.__ev = [];
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {supportsFiber: true, renderers: new Map(), inject() { return 1; },
    onCommitFiberRoot() { window.__ev.push([performance.now(), 'C', 0]); }, onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {}, checkDCE() {}, isDisabled: false};
  const Orig = window.WebSocket;
  window.WebSocket = function(...a) { const ws = new Orig(...a);
    ws.addEventListener('message', (e) => window.__ev.push([performance.now(), 'm', e.data.byteLength || 0]));
    const send = ws.send.bind(ws);
    ws.send = (d) => { window.__ev.push([performance.now(), 'S', d.byteLength || 0]); send(d); };
    return ws; };
  window.WebSocket.prototype = Orig.prototype;
})()"""

path = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
moves = int(sys.argv[3]) if len(sys.argv) > 3 else 8
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app(os.environ.get("SCRIPT", "app.py"))
    try:
        page = open_at_slider(b, url, path, HOOKS, settle_ms=800)
        slider = labelled_slider(page, label)
        slider_rerender(page, 2, locator=slider)
        counts = []
        for i in range(moves):
            page.evaluate("window.__ev = []")
            total = slider_rerender(page, 1, key="ArrowLeft" if i % 2 == 0 else "ArrowRight", locator=slider)[0]
            t0, events = page.evaluate("window.__eyedp_t0"), page.evaluate("window.__ev")
            counts.append(sum(1 for _, kind, _ in events if kind == "C"))
            line = " ".join(f"{kind}{n if kind == 'm' else ''}@{t - t0:.0f}" for t, kind, n in events)
            print(f"move {total * 1000:5.0f} ms, {counts[-1]:2d} commits: {line}")
        print("median commits per move", statistics.median(counts))
    finally:
        harness.stop_app(proc)
