"""The Heatmaps page in headless Chromium: ε from 10 down to 0.1 lowers the shown CC; every panel opens."""
from __future__ import annotations

import re

import pytest

import harness

pytestmark = pytest.mark.browser

PANELS = ["Optimal cap m", "Noise calculator", "Difference attack", "Planning", "ε-curves (Figure 3)"]


def _no_exception(page) -> None:
    """No Streamlit exception box on the page."""
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /heatmaps"


def _wait_drawn(page) -> None:
    """Wait for the script to finish and the metrics and charts to be on the page."""
    harness.wait_idle(page)
    page.wait_for_selector('[data-testid="stMetric"]', timeout=60_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    harness.wait_idle(page)


def _cc(page) -> float:
    """The value of the metric labelled exactly 'CC'."""
    label = page.locator('[data-testid="stMetricLabel"]', has_text=re.compile(r"^\s*CC\s*$"))
    metric = page.locator('[data-testid="stMetric"]').filter(has=label).first
    return float(metric.locator('[data-testid="stMetricValue"]').inner_text().strip())


def _set_eps(page, target: str) -> None:
    """Move the ε select-slider with the keyboard until it shows `target`, then wait for the rerun."""
    thumb = page.locator('[data-testid="stSlider"]', has_text="privacy loss").locator('input[type="range"]')
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

    for name in PANELS:
        page.locator('[data-testid="stMain"] button', has_text=name).first.click()
        harness.wait_idle(page)
        page.wait_for_timeout(300)
        harness.wait_idle(page)
        _no_exception(page)
        assert page.locator(".js-plotly-plot").count() >= 3, f"panel {name!r} drew no chart"
