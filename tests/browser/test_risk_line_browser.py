"""The risk line at 1280 px in headless Chromium (Heatmaps): it wraps inside the main column (no horizontal
overflow), and the calibrate-to-risk switch shows its controls and the calibrated ε, also inside the column."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser

LINE = "an attacker who knows everything else"

_INSIDE = """(el) => {
    const main = document.querySelector('[data-testid="stMain"] .block-container')
               || document.querySelector('[data-testid="stMain"]');
    const r = el.getBoundingClientRect(), m = main.getBoundingClientRect();
    return {overflow: el.scrollWidth - el.clientWidth, right: r.right - m.right, width: r.width};
}"""


def _inside(locator) -> None:
    """The element neither scrolls sideways nor reaches past the main column's right edge."""
    box = locator.evaluate(_INSIDE)
    assert box["width"] > 200, box
    assert box["overflow"] <= 1, box
    assert box["right"] <= 1, box


def test_heatmaps_risk_line_fits_at_1280(page, app_url, shots):
    """The line under the guarantee fits at 1280 px; turning on the risk target greys the ε slider out and
    states the calibrated ε, inside the column too; choosing the other risk recalibrates."""
    page.set_viewport_size({"width": 1280, "height": 900})
    harness.goto(page, f"{app_url}/heatmaps", 120_000)
    line = page.locator('[data-testid="stMarkdownContainer"] p', has_text=LINE).first
    line.wait_for(timeout=60_000)
    assert "singling one out of 40" in line.inner_text()
    _inside(line)
    page.locator('[data-testid="stMain"] [data-testid="stCheckbox"]',
                 has_text="Calibrate ε to a risk target").first.locator("label").click()
    harness.wait_idle(page)
    said = page.locator('[data-testid="stMarkdownContainer"] p', has_text="Calibrated to risk").first
    said.wait_for(timeout=60_000)
    _inside(said)
    _inside(page.locator('[data-testid="stMain"] [data-testid="stSlider"]', has_text="at most").first)
    eps = page.locator('[data-testid="stMain"] [data-testid="stSlider"]', has_text="privacy loss").first
    assert eps.locator('input[type="range"]').first.is_disabled() or \
        eps.locator('[role="slider"]').first.get_attribute("aria-disabled") == "true"
    page.locator('[data-testid="stMain"] button', has_text="Singling out").first.click()
    harness.wait_idle(page)
    page.locator('[data-testid="stMarkdownContainer"] p', has_text="keeps singling one person out").first.wait_for(
        timeout=60_000)
    harness.no_crash(page, "/heatmaps with a risk target")
    harness.screenshot(page, str(shots / "heatmaps_risk_1280.png"), width=1280)
