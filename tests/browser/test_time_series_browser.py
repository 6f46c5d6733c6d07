"""The Time series page in headless Chromium: the ε slider redraws the preview, every secondary view opens."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser

PANELS = ["Utility vs ε", "Choice of k", "Correlation", "Accounting", "Steil et al.", "Per-feature table"]


def _no_exception(page) -> None:
    """No Streamlit exception box on the page."""
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /time_series"


def _preview_state(page) -> tuple[str, str]:
    """The preview chart's title and the path of its noisy trace (both change when it is redrawn)."""
    chart = page.locator(".js-plotly-plot").first
    title = chart.locator(".gtitle").first.text_content() or ""
    paths = chart.locator(".scatterlayer path.js-line")
    return title, paths.first.get_attribute("d") or ""


def _metric(page, prefix: str) -> str:
    """Shown value of the metric whose label starts with prefix."""
    box = page.locator('[data-testid="stMetric"]').filter(has_text=prefix).first
    return box.locator('[data-testid="stMetricValue"]').inner_text()


def test_eps_slider_redraws_the_preview(page, app_url, shots):
    """Move ε with the keyboard: the slider, the noise scale and the preview chart all change, no exception."""
    page.goto(f"{app_url}/time_series")
    harness.wait_idle(page, 120_000)
    assert page.get_by_role("heading", name="Time series").first.is_visible()
    _no_exception(page)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    harness.screenshot(page, str(shots / "time_series_default.png"))
    before_eps = harness.slider_text(page, 0)
    before_scale = _metric(page, "Noise scale")
    before_chart = _preview_state(page)
    harness.move_slider(page, 0, presses=3)
    _no_exception(page)
    assert harness.slider_text(page, 0) != before_eps, "the ε slider did not move"
    assert _metric(page, "Noise scale") != before_scale, "the noise scale did not follow ε"
    after_chart = _preview_state(page)
    assert after_chart[0] != before_chart[0] and after_chart[1] != before_chart[1], "the preview was not redrawn"
    harness.screenshot(page, str(shots / "time_series_eps_moved.png"))


def test_every_view_opens(page, app_url, shots):
    """Open each view of the switcher once: it draws without an exception; screenshot each."""
    page.goto(f"{app_url}/time_series")
    harness.wait_idle(page, 120_000)
    main = page.locator('[data-testid="stMain"]')
    for i, name in enumerate(PANELS):
        main.get_by_role("radio", name=name, exact=True).click()
        harness.wait_idle(page, 120_000)
        _no_exception(page)
        if name != "Per-feature table":
            assert page.locator(".js-plotly-plot").count() >= 2, f"{name}: no chart besides the preview"
        else:
            assert page.locator('[data-testid="stDataFrame"]').count() >= 1
        harness.screenshot(page, str(shots / f"time_series_{i}_{name.split()[0].lower()}.png"))
