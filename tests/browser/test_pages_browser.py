"""The real app in headless Chromium: every page opens, draws its charts, survives a slider move."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser

# Pages that must draw at least one Plotly chart with the bundled sample data.
CHART_PAGES = {"", "time_series", "gaze_samples"}
# Pages whose main figures are images (Heatmaps: the overlays are JPEGs at display size, issue 12).
IMAGE_PAGES = {"heatmaps"}
# Pages whose main area has a slider to move.
SLIDER_PAGES = {"", "heatmaps", "time_series", "gaze_samples"}


def _assert_healthy(page, path: str) -> None:
    """No exception box; charts present where expected."""
    assert page.locator('[data-testid="stException"]').count() == 0, f"exception box on /{path}"
    if path in CHART_PAGES:
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        assert page.locator(".js-plotly-plot").count() >= 1
    if path in IMAGE_PAGES:
        page.wait_for_selector('[data-testid="stMain"] [data-testid="stImage"] img', timeout=30_000)
        assert page.locator('[data-testid="stMain"] [data-testid="stImage"] img').count() >= 2


@pytest.mark.parametrize("path", list(harness.PAGES))
def test_page_opens_and_slider_moves(page, app_url, shots, path):
    """Open the page, check it, move its first slider with the keyboard, check again, screenshot both."""
    page.goto(f"{app_url}/{path}")
    harness.wait_idle(page)
    heading = harness.PAGES[path]
    assert page.get_by_role("heading", name=heading).first.is_visible()
    _assert_healthy(page, path)
    name = path or "home"
    harness.screenshot(page, str(shots / f"{name}.png"))

    if path in SLIDER_PAGES:
        assert page.locator(harness.SLIDER).count() >= 1, f"/{path} shows no slider"
        before = harness.slider_text(page)
        harness.move_slider(page, presses=3)
        assert harness.slider_text(page) != before, "slider did not move"
        _assert_healthy(page, path)
        harness.screenshot(page, str(shots / f"{name}_moved.png"))


def test_sidebar_navigation_reaches_every_view(page, app_url):
    """The sidebar links lead to each view."""
    page.goto(app_url)
    harness.wait_idle(page)
    nav = page.locator('[data-testid="stSidebarNav"]')
    for title in ["Heatmaps", "Time series", "Attacks", "Gaze samples", "Report"]:
        nav.get_by_text(title, exact=True).click()
        harness.wait_idle(page)
        assert page.get_by_role("heading", name=title).first.is_visible()
