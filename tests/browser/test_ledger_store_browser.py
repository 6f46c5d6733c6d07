"""The stored ledger in a real browser at 1280 × 900 (a server of its own on a ledger file the test prepares): an
export is seen by a second session of the study and kept across a reload and a server restart, and a refusal is shown in the main area next to the button that was pressed on
Heatmaps, Time series, Areas of interest and Gaze samples."""
from __future__ import annotations

import re

import pytest

import harness
from eyedp_core.dp.store import DEFAULT_STUDY, open_ledger

pytestmark = pytest.mark.browser
MAIN = '[data-testid="stMain"]'
SIDEBAR = '[data-testid="stSidebar"]'
HEIGHT = 900
REFUSED = re.compile("Refused: this release would raise")  # case-sensitive: not a "would be refused" note


def _press_and_see_refusal(page, label: str) -> None:
    """Press the main-area button `label`; the refusal must appear in the main area near it, on screen."""
    button = page.locator(f"{MAIN} button", has_text=label).first
    button.scroll_into_view_if_needed()
    button.click()
    harness.wait_idle(page)
    alert = page.locator(f'{MAIN} [data-testid="stAlert"]', has_text=REFUSED).first
    alert.wait_for(timeout=60_000)
    alert.scroll_into_view_if_needed()
    a, b = alert.bounding_box(), button.bounding_box()
    assert a is not None and b is not None
    assert abs(a["y"] - b["y"]) < 400, (label, a, b)  # next to the button, not elsewhere on the page
    assert 0 <= a["y"] and a["y"] + min(a["height"], 60) <= HEIGHT  # on screen


def test_a_reload_keeps_the_total_and_refusals_show_next_to_their_button(browser, tmp_path) -> None:
    path = tmp_path / "ledger.sqlite"
    store = open_ledger(path, DEFAULT_STUDY)
    store.set_cap(4.0, "browser test")
    proc, url = harness.start_app(ledger=path)
    ctx = browser.new_context(viewport={"width": 1280, "height": HEIGHT})
    try:
        page = ctx.new_page()
        harness.goto(page, f"{url}/heatmaps", 180_000)
        export = page.locator(f"{MAIN} button", has_text="Export (private release)").first
        export.scroll_into_view_if_needed()
        export.click()
        harness.wait_idle(page)
        page.locator(f'{MAIN} [data-testid="stAlert"]', has_text="Released heatmap").first.wait_for(timeout=120_000)
        spent = store.total()[0]
        assert spent == pytest.approx(3.0)
        # A second browser session of the study sees the first's spending at once, and its own export (3 + 3 > 4)
        # is refused where it was asked for.
        other = browser.new_context(viewport={"width": 1280, "height": HEIGHT})
        try:
            second = other.new_page()
            harness.goto(second, f"{url}/heatmaps", 180_000)
            second.locator(SIDEBAR, has_text=f"{spent:.3g} of 4").first.wait_for(timeout=60_000)
            _press_and_see_refusal(second, "Export (private release)")
        finally:
            other.close()
        assert store.total()[0] == pytest.approx(spent) and len(store.releases) == 1
        # A reload is a new session of the same study: the sidebar still states the total.
        page.reload()
        harness.wait_idle(page)
        page.locator(SIDEBAR, has_text=f"{spent:.3g} of 4").first.wait_for(timeout=60_000)
        # So does a new server on the same file (a restart).
        harness.stop_app(proc)
        proc, url = harness.start_app(ledger=path)
        harness.goto(page, f"{url}/heatmaps", 180_000)
        page.locator(SIDEBAR, has_text=f"{spent:.3g} of 4").first.wait_for(timeout=60_000)
        # With the cap at the total, every other releasing page refuses next to its button.
        store.set_cap(spent, "browser test: no room left")
        harness.goto(page, f"{url}/time_series", 180_000)
        _press_and_see_refusal(page, "Record in the privacy ledger")
        harness.goto(page, f"{url}/areas_of_interest", 180_000)
        _press_and_see_refusal(page, "Charge ledger and export")
        harness.goto(page, f"{url}/gaze_samples?gs_view=protect", 180_000)
        page.locator(".st-key-share_open label").first.click()  # the release-mode export is in the share box
        harness.wait_idle(page)
        _press_and_see_refusal(page, "Export protected samples")
        assert len(store.releases) == 1
        assert page.locator('[data-testid="stException"]').count() == 0
    finally:
        ctx.close()
        harness.stop_app(proc)
