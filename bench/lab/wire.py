"""Lab: the timeline of one slider move as the browser sees it: key press, the rerun request sent, each server
message received (ms, bytes), the last DOM change; for the app page and the trivial page (both configs).

python bench/lab/wire.py <url path> [slider label] [moves]"""

import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))
from alternate import labelled_slider, open_at_slider  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402
from run import slider_rerender  # noqa: E402

import harness  # noqa: E402

WRAP = """(() => {
  const Orig = window.WebSocket; window.__wire = [];
  window.WebSocket = function(...a) { const ws = new Orig(...a);
    const send = ws.send.bind(ws);
    ws.send = (d) => { window.__wire.push([performance.now(), 'send', d.byteLength || d.length || 0]); send(d); };
    ws.addEventListener('message', (e) => window.__wire.push([performance.now(), 'recv', e.data.byteLength || e.data.size || 0]));
    return ws; };
  window.WebSocket.prototype = Orig.prototype;
})()"""


def timeline(page, sl, moves):
    """Per move: (total ms, send ms, first recv ms, last recv ms, n recv) relative to the key press."""
    out = []
    for i in range(moves):
        page.evaluate("window.__wire = []")
        total = slider_rerender(page, 1, key="ArrowLeft" if i % 2 == 0 else "ArrowRight", locator=sl)[0] * 1000
        t0 = page.evaluate("window.__eyedp_t0")
        w = page.evaluate("window.__wire")
        sends = [t - t0 for t, k, _ in w if k == "send"]
        recv = [(t - t0, n) for t, k, n in w if k == "recv"]
        out.append(
            (
                total,
                sends[0] if sends else -1,
                recv[0][0] if recv else -1,
                recv[-1][0] if recv else -1,
                len(recv),
                sum(n for _, n in recv),
            )
        )
    return out


path = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
moves = int(sys.argv[3]) if len(sys.argv) > 3 else 7
with sync_playwright() as p:
    b = harness.launch_browser(p)
    procs = []
    try:
        for name, script, extra, pth in (
            ("trivial tuned", "bench/trivial_app.py", (), ""),
            ("app", os.environ.get("EYEDP_WIRE_SCRIPT", "app.py"), (), path),
        ):
            proc, url = harness.start_app(script, extra_args=extra)
            procs.append(proc)
            page = open_at_slider(b, url, pth, WRAP)
            sl = labelled_slider(page, label if name == "app" else None)
            slider_rerender(page, 1, locator=sl)
            rows = timeline(page, sl, moves)
            med = [statistics.median(c) for c in zip(*rows)]
            print(
                f"{name:14s} total {med[0]:6.1f}  send {med[1]:6.1f}  first msg {med[2]:6.1f}  last msg {med[3]:6.1f}"
                f"  msgs {med[4]:4.0f}  bytes {med[5]:7.0f}"
            )
    finally:
        for pr in procs:
            harness.stop_app(pr)
