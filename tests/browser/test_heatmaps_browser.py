"""The Heatmaps page in headless Chromium: ε from 10 down to 0.1 lowers the shown CC; a slider move re-runs only
the page's fragment; the main sliders redraw the overlays without an exception; every panel opens; screenshots
at 1280 and 1920 px (kept in EYEDP_SCREENSHOTS when set)."""
from __future__ import annotations

import re

import pytest

import harness

pytestmark = pytest.mark.browser

PANELS = ["Optimal cap m", "Noise calculator", "Difference attack", "Planning", "ε-curves (Figure 3)"]
# (slider label text, key, presses): the main sliders of the settings box, moved one after the other.
MOVES = [("privacy loss", "ArrowLeft", 2), ("Cell size", "ArrowLeft", 2), ("Kernel width", "ArrowRight", 5),
         ("Cap m", "ArrowRight", 2)]


def _no_exception(page) -> None:
    """No Streamlit exception box on the page, and no guarded error either (the app's "went wrong" message)."""
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /heatmaps"
    errors = page.locator('[data-testid="stAlert"]', has_text="Something went wrong")
    assert errors.count() == 0, errors.all_inner_texts()


def _overlays_drawn(page) -> None:
    """The overlays' picture (clean left, noisy right: one image) is loaded in the browser with a real size."""
    page.wait_for_function(
        """() => { const imgs = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stImage"] img')];
                   return imgs.length >= 1 && imgs.every(i => i.complete && i.naturalWidth > 100); }""",
        timeout=60_000)


def _wait_drawn(page) -> None:
    """Wait for the script to finish and the metrics and overlay images to be on the page."""
    harness.wait_idle(page)
    page.wait_for_selector(".eyedp-number", timeout=60_000)
    _overlays_drawn(page)
    harness.wait_idle(page)


def _cc(page) -> float:
    """The value of the number labelled exactly 'CC'."""
    label = page.locator(".eyedp-number-label", has_text=re.compile(r"^\s*CC\s*$"))
    number = page.locator(".eyedp-number").filter(has=label).first
    return float(number.locator(".eyedp-number-value").inner_text().strip())


def _thumb(page, label: str):
    """The range input of the main-area slider whose label contains `label`."""
    return page.locator('[data-testid="stMain"] [data-testid="stSlider"]', has_text=label).locator(
        'input[type="range"]').first


def _set_eps(page, target: str) -> None:
    """Move the ε select-slider with the keyboard until it shows `target`, then wait for the rerun."""
    thumb = _thumb(page, "privacy loss")
    for _ in range(80):
        current = thumb.get_attribute("aria-valuetext")
        if current == target:
            break
        thumb.press("ArrowRight" if float(target) > float(current) else "ArrowLeft")
    assert thumb.get_attribute("aria-valuetext") == target
    harness.wait_idle(page)
    level = page.locator('[data-testid="stMarkdownContainer"]', has_text="Level:").first
    level.filter(has_text=f"ε = {target},").wait_for(timeout=60_000)
    _wait_drawn(page)




def test_eps_down_lowers_cc_and_panels_open(page, app_url, shots):
    """ε = 10 then 0.1: screenshots of both, no exception, CC drops; then each panel once."""
    page.goto(f"{app_url}/heatmaps")
    _wait_drawn(page)
    _no_exception(page)

    _set_eps(page, "10")
    _no_exception(page)
    cc_high = _cc(page)
    harness.screenshot(page, str(shots / "heatmaps_eps10.png"))

    _set_eps(page, "0.1")
    _no_exception(page)
    cc_low = _cc(page)
    harness.screenshot(page, str(shots / "heatmaps_eps0.1.png"))
    assert cc_low < cc_high, f"CC did not drop: ε=10 gives {cc_high}, ε=0.1 gives {cc_low}"

    # The derivation open while the panels are switched (its content is written by the privacy part).
    page.locator('[data-testid="stMain"] summary', has_text="How the noise scale is derived").first.click()
    harness.wait_idle(page)
    for name in PANELS:
        page.locator('[data-testid="stMain"] button', has_text=name).first.click()
        harness.wait_idle(page)
        page.wait_for_timeout(300)
        harness.wait_idle(page)
        _no_exception(page)
        harness.at_least(page.locator(".js-plotly-plot"), 1, f"panel {name!r}: its chart")
    harness.screenshot(page, str(shots / "heatmaps_panel_curves.png"))
    # With the ε-curves open, an ε move keeps the curves and moves the dotted marker; nothing breaks.
    _set_eps(page, "1")
    _no_exception(page)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    harness.screenshot(page, str(shots / "heatmaps_panel_curves_eps1.png"))


def test_slider_move_reruns_only_the_fragment(page, app_url, run_log):
    """Moving ε re-runs only the privacy part (not the page body, the study or the map controls); moving the cell
    size re-runs the map part and the privacy part inside it, not the study; the run log proves it."""
    run_log.write_text("")
    page.goto(f"{app_url}/heatmaps")
    _wait_drawn(page)
    first = harness.settled_runs(page, run_log)
    assert {"page", "study", "grid", "privacy"} <= set(first), first
    run_log.write_text("")
    _set_eps(page, "0.5")
    moved = harness.settled_runs(page, run_log)
    assert "page" not in moved, f"the page body re-ran: {moved}"
    assert "privacy" in moved, f"the privacy part did not re-run: {moved}"
    assert "study" not in moved and "grid" not in moved, f"an ε move re-ran the map controls: {moved}"
    run_log.write_text("")
    thumb = _thumb(page, "Cell size")
    thumb.focus()
    page.keyboard.press("ArrowLeft")
    _wait_drawn(page)
    moved = harness.settled_runs(page, run_log)
    assert "grid" in moved and "privacy" in moved, f"a cell-size move did not redraw the maps: {moved}"
    assert "page" not in moved and "study" not in moved, f"a cell-size move re-ran the study: {moved}"
    # A full run (here: leaving the page and coming back in the same session) does run the page body.
    page.locator('[data-testid="stSidebarNav"] a', has_text="Home").first.click()
    harness.wait_idle(page)
    run_log.write_text("")
    page.locator('[data-testid="stSidebarNav"] a', has_text="Heatmaps").first.click()
    _wait_drawn(page)
    back = harness.settled_runs(page, run_log)
    assert "page" in back and "study" in back, back


@pytest.mark.parametrize("width", [1280, 1920])
def test_main_sliders_redraw_and_screenshots(browser, app_url, shots, width):
    """ε, cell size, kernel width and cap m moved in turn: overlays redrawn, no exception; screenshots kept."""
    ctx = browser.new_context(viewport={"width": width, "height": 1000})
    page = ctx.new_page()
    try:
        page.goto(f"{app_url}/heatmaps")
        _wait_drawn(page)
        harness.screenshot(page, str(shots / f"heatmaps_{width}_start.png"), width)
        for label, key, presses in MOVES:
            thumb = _thumb(page, label)
            old = thumb.get_attribute("aria-valuetext") or thumb.get_attribute("aria-valuenow")
            thumb.focus()
            for _ in range(presses):
                page.keyboard.press(key)
            harness.wait_idle(page)
            harness.until(page, lambda: (thumb.get_attribute("aria-valuetext")
                                         or thumb.get_attribute("aria-valuenow")) != old, f"slider {label!r} did not move")
            _wait_drawn(page)
            _no_exception(page)
        page.locator('[data-testid="stMain"]').get_by_text("Noisy heatmap").first.wait_for(timeout=60_000)
        harness.screenshot(page, str(shots / f"heatmaps_{width}_moved.png"), width)
        # The difference attack's table shows every column without a horizontal scroll bar.
        page.locator('[data-testid="stMain"] button', has_text="Difference attack").first.click()
        harness.wait_idle(page)
        grid = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]', has_text="mechanism").last
        grid.wait_for(timeout=60_000)
        grid.locator(".dvn-scroller").first.wait_for(timeout=60_000)
        sizes = grid.evaluate("d => { const s = d.querySelector('.dvn-scroller'); "
                              "return [s.scrollWidth, s.clientWidth]; }")
        assert sizes[0] <= sizes[1] + 1, f"attack table cut at {width} px: content {sizes[0]} px in {sizes[1]} px"
        harness.screenshot(page, str(shots / f"heatmaps_{width}_attack.png"), width)
    finally:
        ctx.close()
