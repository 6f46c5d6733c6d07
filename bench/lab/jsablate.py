"""Lab: ablations priced in browser main-thread time, which is steadier than the wall clock: for each set of parts
left out, the busy JavaScript (and GC) per slider move and the median key-press-to-last-DOM-change, in rounds that
alternate the sets so a loaded machine hits all of them alike.

python bench/lab/jsablate.py <checkout> <url path> <slider label> <moves> <rounds> <set> [<set> ...]

<checkout> is a git worktree whose code reads LAB_SKIP (bench/lab/ablation.patch adds the hooks used for
Heatmaps ε and Attacks' finder). A set is LAB_SKIP's value (comma-separated part names; '-' for none), TRIVIAL for the trivial page with
EyeDP's config, or V:<name> for a page of bench/lab/variants.py. To price each part on its own, start from the floor
(every part left out) and leave out all parts but one: the pieces of a page interact (the URL write re-renders the
whole page, so its price grows with the page), and leaving one out of the whole page hides it in the noise."""
import collections
import os
import statistics
import sys
from pathlib import Path

OTHER = sys.argv[1]  # its harness and run come first: the app starts from that checkout
LAB = Path(__file__).resolve().parent
sys.path[:0] = [OTHER, OTHER + "/tests/browser", OTHER + "/bench", str(LAB)]
from alternate import busy_ms, labelled_slider, profiled_moves  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from run import _open, slider_rerender  # noqa: E402

import harness  # noqa: E402

path, label, moves, rounds, sets = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:]


def measure(browser, kind: str) -> tuple[float, float]:
    """One set: start its page, make two moves, profile `moves` more -> (busy ms per move, median move ms)."""
    lab = kind.startswith("V:")
    os.environ.update(LAB_SKIP=kind, EYEDP_LAB_VARIANT=kind[2:] if lab else "")  # the app process inherits them
    script = "bench/trivial_app.py" if kind == "TRIVIAL" else str(LAB / "variants.py") if lab else "app.py"
    proc, url = harness.start_app(script)
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        own = kind != "TRIVIAL" and not lab
        _open(page, url, path if own else "")  # waits for the sliders; Attacks: its default run first (cached)
        page.wait_for_timeout(500)
        slider = labelled_slider(page, label if own else None)
        slider_rerender(page, 2, locator=slider)
        prof, t = profiled_moves(page, moves, locator=slider)
        page.close()
        return busy_ms(prof) / moves, statistics.median(t) * 1000
    finally:
        harness.stop_app(proc)


results: dict[str, list[tuple[float, float]]] = collections.defaultdict(list)
with sync_playwright() as p:
    b = harness.launch_browser(p)
    for r in range(rounds):
        for kind in sets:
            results[kind].append(measure(b, kind))
            js, wall = results[kind][-1]
            print(f"round {r} {kind:40s} busy JS {js:6.1f} ms  move {wall:6.1f} ms", flush=True)
print("medians over the rounds:")
for kind in sets:
    js = statistics.median(x for x, _ in results[kind])
    wall = statistics.median(y for _, y in results[kind])
    print(f"  {kind:40s} busy JS {js:6.1f} ms  move {wall:6.1f} ms")
