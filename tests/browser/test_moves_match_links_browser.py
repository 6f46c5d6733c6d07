"""What a slider move leaves on the screen is what its shared link shows: a move re-runs only its fragment, so any
text outside the fragment that states a moved value (an ε in an export's text, a cap in the sidebar) would stand
there with the old value. Each page's main slider is moved, then the URL is opened in a new browser context (a new
session) and both screens' text (main area and sidebar) must be the same, timings aside."""
from __future__ import annotations

import difflib
import re

import pytest

import harness

pytestmark = pytest.mark.browser

# Page (and view) with the slider moved: the first slider of each main area that states a privacy parameter.
MOVES = ["heatmaps", "areas_of_interest", "time_series", "gaze_samples#Protect the stream", "report", ""]
_TIMINGS = re.compile(r"\d+(\.\d+)? ?m?s\b")  # "Computed in 2 ms", "took 32 ms": they differ between two runs


def _screen(page) -> list[str]:
    """The main area's and the sidebar's text, line by line, with run timings blanked."""
    text = (page.locator('[data-testid="stMain"]').inner_text() + "\n"
            + page.locator('[data-testid="stSidebar"]').inner_text())
    return [_TIMINGS.sub("#", line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("path", MOVES)
def test_after_a_move_the_screen_is_what_its_link_shows(path, page, browser, app_url):
    harness.open_view(page, app_url, path)
    harness.at_least(page.locator(harness.SLIDER), 1, "a slider")
    before = _screen(page)
    harness.move_slider(page, 0, "ArrowRight", presses=2)
    harness.until(page, lambda: _screen(page) != before, "the move to change the page")
    harness.wait_idle(page)
    moved = _screen(page)
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        fresh = context.new_page()
        harness.goto(fresh, page.url, 120_000)
        harness.at_least(fresh.locator(harness.SLIDER), 1, "a slider")
        harness.wait_idle(fresh, 120_000)
        linked = _screen(fresh)
    finally:
        context.close()
    diff = [d for d in difflib.unified_diff(moved, linked, "after the move", "its link", lineterm="", n=0)]
    assert moved == linked, "\n".join(diff[:40])
