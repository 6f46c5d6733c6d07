"""Lab helper: one slider's moves alternated with the tuned trivial page's, so a loaded machine hits both alike.

The caller puts the checkout's tests/browser and bench folders on sys.path first (its `harness` and `run`)."""
import os
import statistics
from collections.abc import Callable

from run import slider_rerender

import harness


def open_trivial(browser):
    """Start the trivial page (EyeDP's config) and open it -> (process, page), one move made."""
    proc, url = harness.start_app("bench/trivial_app.py")
    page = browser.new_page()
    page.goto(url)
    harness.wait_idle(page)
    slider_rerender(page, 1)
    return proc, page


def alternate(page, trivial, repeats: int, locator=None) -> tuple[float, float]:
    """`repeats` moves of the page's slider (`locator`, else its first), each followed by one on the trivial page
    -> (median seconds on the page, on the trivial page)."""
    mine, base = [], []
    for i in range(repeats):
        key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
        mine += slider_rerender(page, 1, key=key, locator=locator)
        base += slider_rerender(trivial, 1, key=key)
    return statistics.median(mine), statistics.median(base)


def measure(browser, trivial, script: str, env: dict[str, str], open_slider: Callable, repeats: int) -> str:
    """Start `script` with `env` added to the environment, open it (`open_slider(page, url)` -> the slider's
    locator, or None for the first) and alternate its moves with the trivial page's -> 'page s, trivial s, ratio'."""
    os.environ.update(env)  # the app process inherits it
    proc, url = harness.start_app(script)
    try:
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        slider = open_slider(page, url)
        slider_rerender(page, 2, locator=slider)
        m, b = alternate(page, trivial, repeats, locator=slider)
        page.close()
        return f"{m:.3f} {b:.3f} {m / b:.2f}"
    finally:
        harness.stop_app(proc)


def profiled_moves(page, moves: int, locator=None) -> tuple[dict, list[float]]:
    """A CPU profile of the browser's main thread over `moves` moves of the slider (`locator`, else the first)
    -> (Chrome's profile, seconds per move)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 100})
    cdp.send("Profiler.start")
    t = slider_rerender(page, moves, locator=locator, quiet_ms=300)
    return cdp.send("Profiler.stop")["profile"], t


def busy_ms(profile: dict) -> float:
    """Main-thread time in a CPU profile, ms: JavaScript and GC ("(idle)" and "(program)" samples left out)."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    idle = ("(idle)", "(program)")
    return sum(d for sid, d in zip(profile["samples"], profile["timeDeltas"])
               if nodes[sid]["callFrame"]["functionName"] not in idle) / 1000


def labelled_slider(page, label: str | None = None):
    """The first slider whose label holds `label` (the main area's first slider without one) -> its locator."""
    if not label:
        return page.locator(harness.SLIDER).first
    return page.locator(f'[data-testid="stSlider"]:has([data-testid="stWidgetLabel"]:has-text("{label}")) '
                        'input[type="range"]').first


def open_at_slider(browser, url: str, path: str, init_script: str | None = None, settle_ms: int = 500):
    """A page in a new 1440 × 1000 context (running `init_script`, if given, before the app's own code) at `path`
    ("page#View" clicks that view), drawn up to its first slider and then left `settle_ms` to settle -> the page."""
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    if init_script:
        ctx.add_init_script(init_script)
    page = ctx.new_page()
    harness.open_view(page, url, path)
    page.wait_for_selector(harness.SLIDER, timeout=30000)
    page.wait_for_timeout(settle_ms)
    return page
