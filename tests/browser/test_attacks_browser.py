"""The Attacks page in headless Chromium: a run started, stopped, resumed, and re-run with new settings mid-run."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /attacks"


def _legend(page) -> set[str]:
    """Legend entries of every Plotly chart on the page."""
    return {t.strip() for t in page.locator(".js-plotly-plot .legendtext").all_text_contents()}


def test_run_stop_resume_and_change_settings_mid_run(page, app_url, shots):
    harness.goto(page, f"{app_url}/attacks", 180_000)
    main = page.locator('[data-testid="stMain"]')
    page.get_by_role("heading", name="Attacks").first.wait_for(timeout=60_000)
    main.get_by_text("protects a whole person", exact=False).first.wait_for(timeout=60_000)
    main.get_by_text("Same noise draw", exact=False).first.wait_for(timeout=60_000)
    _no_exception(page)
    harness.screenshot(page, str(shots / "attacks_default.png"))

    # 1. Run the default grid and stop it while it runs.
    main.get_by_role("button", name="Run attacks").click()
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    main.get_by_role("button", name="Stop the run").click()
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    main.get_by_text("Run stopped after", exact=False).first.wait_for(timeout=60_000)

    # 2. Resume, and while it runs change the settings (CFPA-32 only, ε 1 and 10000, the grid extends itself
    # beyond) and run again.
    main.get_by_role("button", name="Run attacks").click()
    page.wait_for_selector('[data-testid="stProgress"]', timeout=60_000)
    for chip in ("FPA", "DCFPA-32", "1000", "1e+05"):
        main.get_by_role("button", name=f"Remove {chip}", exact=True).click()
    main.get_by_role("button", name="Run attacks").click()
    harness.wait_idle(page, 240_000)
    _no_exception(page)
    page.wait_for_selector(".js-plotly-plot .legendtext", timeout=30_000)
    legend = _legend(page)
    # Two scenarios: one legend entry per mechanism and scenario ("CFPA-32, trained on its own release", ...).
    mechs = {name.split(",")[0] for name in legend}
    assert "CFPA-32" in mechs and "DCFPA-32" not in mechs and "FPA" not in mechs, legend
    assert "re-identification (strongest attacker)" in legend  # the utility-and-risk chart
    main.get_by_text("The papers' layout", exact=False).first.wait_for(timeout=60_000)
    main.get_by_text("With CFPA-32", exact=False).first.wait_for(timeout=60_000)
    harness.screenshot(page, str(shots / "attacks_results.png"))

    # 3. Move every slider of the results (cached: only the fragment re-runs), open the feature-table preview,
    # and look at both widths.
    main.get_by_text("The feature table:", exact=False).first.click()
    main.get_by_text("35,893 windows in all", exact=False).first.wait_for(timeout=60_000)  # the expander opened
    for i in range(page.locator(harness.SLIDER).count()):
        before = harness.slider_text(page, i)
        harness.move_slider(page, i, "ArrowLeft", 2)
        harness.until(page, lambda: harness.slider_text(page, i) != before, f"slider {i} did not move")
        _no_exception(page)
    for width in (1280, 1920):
        harness.screenshot(page, str(shots / f"attacks_results_moved_{width}.png"), width)
