"""Lab: per slider move, the server's messages (count, bytes; forward-msg kinds), the fragments' Python ms from the run
log, and the key-press-to-last-DOM-change time.

python bench/lab/deltas.py <url path> <moves> [slider label]"""

import collections
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT / "bench"))
from alternate import labelled_slider  # noqa: E402 - this script's own folder
from playwright.sync_api import sync_playwright  # noqa: E402
from run import _open, slider_rerender  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

import harness  # noqa: E402

path, moves = sys.argv[1], int(sys.argv[2])
label = sys.argv[3] if len(sys.argv) > 3 else None
log = Path(tempfile.mkdtemp()) / "runlog.txt"
frames: list[bytes] = []
with sync_playwright() as p:
    b = harness.launch_browser(p)
    proc, url = harness.start_app(run_log=log)
    try:
        page = b.new_page(viewport={"width": 1440, "height": 1000})
        page.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())),
        )
        _open(page, url, path)  # with its view (gaze_samples#protect)
        page.wait_for_selector(harness.SLIDER, timeout=30000)
        page.wait_for_timeout(500)
        sl = labelled_slider(page, label)
        slider_rerender(page, 1, locator=sl)
        times, counts, sizes, kinds, logs = [], [], [], collections.Counter(), []
        for i in range(moves):
            frames.clear()
            log.write_text("")
            times += slider_rerender(page, 1, key="ArrowLeft" if i % 2 == 0 else "ArrowRight", locator=sl)
            counts.append(len(frames))
            sizes.append(sum(len(f) for f in frames))
            for f in frames:
                m = ForwardMsg()
                m.ParseFromString(f)
                k = m.WhichOneof("type")
                if k == "delta":
                    d = m.delta
                    dk = d.WhichOneof("type")
                    sub = getattr(d, dk).WhichOneof("type") if dk == "new_element" else ""
                    kinds[f"delta.{dk}.{sub}"] += 1 / moves
                    if i == moves - 1 and "-v" in sys.argv:
                        el = getattr(getattr(d, dk), sub) if sub else getattr(d, dk)
                        print(f"{dk}.{sub} {list(m.metadata.delta_path)} {str(el)[:90]!r}")
                    if sub in ("imgs", "image_list"):
                        kinds["image bytes"] += len(f) / moves
                else:
                    kinds[k] += 1 / moves
            logs.append(log.read_text().split())
    finally:
        harness.stop_app(proc)
print(
    f"median {statistics.median(times) * 1000:.0f} ms; messages {statistics.median(counts)}; bytes {statistics.median(sizes)}"
)
for k, v in kinds.most_common():
    print(f"  {k:40s} {v:.1f}")
print("run log of the last moves:", logs[-3:])
