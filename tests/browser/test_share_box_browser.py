"""The share box ("Share and reproduce") opens on every page in a real browser, and stays whole when the page's
main slider moves with it open. AppTest runs a fragment's re-run as a whole run, so only a browser sees a
fragment that writes into a container of the page for the first time in its own re-run (Streamlit refuses that,
and the page showed an error id where the box should be)."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser

PAGES = ["", "heatmaps", "areas_of_interest", "time_series", "attacks", "gaze_samples",
         "gaze_samples#Protect the stream", "report", "your_data"]


def _box_shown(page) -> bool:
    return page.get_by_role("button", name="Download settings (JSON)").count() == 1


@pytest.mark.parametrize("path", PAGES)
def test_the_share_box_opens_and_follows_a_move(path, page, app_url):
    harness.open_view(page, app_url, path)
    page.locator(".st-key-share_open label").first.click()
    harness.until(page, lambda: _box_shown(page) or harness.crashed(page), "the share box to open")
    harness.wait_idle(page)
    harness.no_crash(page, "after opening the share box")
    assert _box_shown(page)
    if page.locator(harness.SLIDER).count():
        before = harness.slider_text(page, 0)
        harness.move_slider(page, 0, "ArrowRight")
        harness.until(page, lambda: harness.slider_text(page, 0) != before, "the slider to move")
        harness.wait_idle(page)
        harness.no_crash(page, "after a move with the share box open")
        assert _box_shown(page)
