"""The Gaze samples page in headless Chromium: the protection view draws its guarantees, charts and table, and
the animation slider redraws the original-vs-protected scanpath without an exception."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /gaze_samples"


def _chart_titles(page) -> list[str]:
    return [t.text_content() or "" for t in page.locator(".js-plotly-plot .gtitle").all()]


def test_protect_view_and_animation_slider(page, app_url, shots):
    page.goto(f"{app_url}/gaze_samples")
    harness.wait_idle(page, 120_000)
    assert page.get_by_role("heading", name="Gaze samples").first.is_visible()
    _no_exception(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Protect the stream", exact=True).click()
    harness.wait_idle(page, 180_000)
    _no_exception(page)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    text = main.inner_text()
    assert "per 60-sample window" in text and "NOT differential privacy" in text and "PREVIEW" in text
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    assert page.locator(".js-plotly-plot").count() >= 2  # scanpath comparison and Kaleido budget chart
    harness.screenshot(page, str(shots / "gaze_samples_protect.png"))

    before = [t for t in _chart_titles(page) if "(PREVIEW)" in t]
    slider = main.locator('[data-testid="stSlider"]').filter(has_text="Time (s)").locator('input[type="range"]')
    slider.first.focus()
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    after = [t for t in _chart_titles(page) if "(PREVIEW)" in t]
    assert before and after and before != after, (before, after)
    harness.screenshot(page, str(shots / "gaze_samples_protect_moved.png"))

    main.get_by_text("Demographics (k-anonymity)", exact=True).click()
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    assert "The seed's Table 2" in main.inner_text()
    harness.screenshot(page, str(shots / "gaze_samples_demographics.png"))
