"""Lab: the DOM mutations after one slider key press on a page, with times (where a re-render spends its time).

python bench/lab/trace.py <url path> [slider label] [app script]"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))  # run.py, which alternate.py uses
from alternate import labelled_slider, open_at_slider  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402

import harness  # noqa: E402 - found through the sys.path entry above

ARM = """() => {
  window.__t0 = null; window.__log = [];
  document.addEventListener('keydown', () => { if (window.__t0 === null) window.__t0 = performance.now(); }, {capture: true, once: true});
  const desc = (n) => { const e = n.nodeType === 1 ? n : n.parentElement; if (!e) return '?';
     const c = e.closest('[data-testid]'); const el = e.closest('[data-testid="stElementContainer"]');
     return (c ? c.getAttribute('data-testid') : '-') + ' | ' + (el ? (el.className||'').toString().slice(0,40) : '') + ' | ' + (e.tagName||'') ; };
  new MutationObserver((recs) => { if (window.__t0 === null) return; const t = performance.now() - window.__t0;
     for (const r of recs) { if (r.target.closest && r.target.closest('[data-testid="stSlider"]')) continue;
        window.__log.push([Math.round(t), r.type, desc(r.target), r.attributeName || '']); } })
   .observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
}"""
path = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 else None
script = sys.argv[3] if len(sys.argv) > 3 else "app.py"
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app(script)
    try:
        page = open_at_slider(b, url, path, settle_ms=1000)  # "page#View label" clicks that view first
        sl = labelled_slider(page, label)
        for i, key in enumerate(["ArrowRight", "ArrowLeft", "ArrowRight"]):
            page.evaluate(ARM)
            sl.focus()
            page.keyboard.press(key)
            harness.wait_idle(page)
            page.wait_for_timeout(1000)
            log = page.evaluate("window.__log")
            print(f"--- move {i}: {len(log)} mutations, last at {log[-1][0] if log else None} ms; elements in main:",
                  page.locator('[data-testid="stMain"] [data-testid="stElementContainer"]').count())
            if i == 2 or "-v" in sys.argv:
                agg = {}
                for t, typ, d, a in log:
                    k = (typ, d, a)
                    agg.setdefault(k, [t, t, 0])
                    agg[k][1] = t
                    agg[k][2] += 1
                for k, (a0, a1, n) in sorted(agg.items(), key=lambda kv: kv[1][0]):
                    print(f"{a0:5d}-{a1:5d} ms x{n:4d} {k}")
    finally:
        harness.stop_app(proc)
