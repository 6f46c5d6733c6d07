"""The Attacks page in headless Chromium: the default run at 1280 px (dense grid, accuracy axes in [0, 1], both
scenarios visible), and a run started, stopped, resumed, and re-run with new settings mid-run."""
from __future__ import annotations

import math
import time

import pytest

import harness

pytestmark = pytest.mark.browser


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /attacks"


def _legend(page) -> set[str]:
    """Legend entries of every Plotly chart on the page."""
    return {t.strip() for t in page.locator(".js-plotly-plot .legendtext").all_text_contents()}


_CHARTS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(el => ({
    data: el._fullData.map(t => ({name: t.name || '', x: Array.from(t.x || []), y: Array.from(t.y || [])})),
    layout: {xaxes: Object.keys(el._fullLayout).filter(k => /^xaxis\\d*$/.test(k)).map(k => ({
                 title: (el._fullLayout[k].title || {}).text || '',
                 ticks: Array.from(el.querySelectorAll('.' + k.replace('axis', '') + 'tick text')).map(t => t.textContent)})),
             yranges: Object.keys(el._fullLayout).filter(k => /^yaxis\\d*$/.test(k)).map(k => el._fullLayout[k].range)}
}))"""


def test_default_run_at_1280_is_dense_bounded_and_shows_both_scenarios(page, app_url, shots):
    page.set_viewport_size({"width": 1280, "height": 900})
    harness.goto(page, f"{app_url}/attacks", 180_000)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("protects a whole person", exact=False).first.wait_for(timeout=120_000)
    scenario = main.locator('[data-testid="stMultiSelect"]').filter(has_text="Scenario")
    scenario.first.wait_for(timeout=180_000)  # the form comes after the clean baseline
    scenario.scroll_into_view_if_needed()
    harness.screenshot(page, str(shots / "attacks_form_1280.png"), 1280)
    box = scenario.bounding_box()
    for want in ("own private release (strongest)", "clean data"):
        chip = scenario.get_by_text(want, exact=True)
        chip.wait_for(timeout=30_000)
        b = chip.bounding_box()
        assert b["x"] >= box["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 1, (want, b, box)
        assert chip.evaluate("el => el.scrollWidth <= el.clientWidth + 1"), f"{want!r} is truncated"
        assert scenario.get_by_role("button", name=f"Remove {want}", exact=True).is_visible()
    t0 = time.perf_counter()
    main.get_by_role("button", name="Run attacks").click()
    main.get_by_text("measured accuracies lie under their analytic ceilings", exact=False).first.wait_for(timeout=120_000)
    took = time.perf_counter() - t0
    _no_exception(page)
    harness.screenshot(page, str(shots / "attacks_default_run_1280.png"), 1280)
    charts = page.evaluate(_CHARTS_JS)
    acc = next(c for c in charts if any(t["name"].endswith(": ceiling") for t in c["data"]))
    measured = [t for t in acc["data"] if "trained on" in t["name"]]
    xs = sorted({float(x) for t in measured for x in t["x"]})
    per_decade: dict[int, int] = {}
    for x in xs:
        if x < 1e5:
            per_decade[math.floor(math.log10(x) + 1e-9)] = per_decade.get(math.floor(math.log10(x) + 1e-9), 0) + 1
    assert all(per_decade.get(d, 0) >= 2 for d in range(-1, 5)), per_decade
    assert all(r[0] >= 0 and r[1] <= 1 for r in acc["layout"]["yranges"]), acc["layout"]["yranges"]
    assert all(0 <= float(y) <= 1 for t in acc["data"] for y in t["y"] if y is not None)
    for ax in acc["layout"]["xaxes"]:
        assert ax["title"] == "ε per person" and "10⁵" in ax["ticks"] and "0.1" in ax["ticks"], ax
    print(f"default run in the browser: {took:.1f} s")


def test_run_stop_resume_and_change_settings_mid_run(page, app_url, shots):
    harness.goto(page, f"{app_url}/attacks", 180_000)
    main = page.locator('[data-testid="stMain"]')
    page.get_by_role("heading", name="Attacks").first.wait_for(timeout=60_000)
    main.get_by_text("protects a whole person", exact=False).first.wait_for(timeout=60_000)
    main.get_by_text("Same noise draw", exact=False).first.wait_for(timeout=60_000)
    _no_exception(page)
    harness.screenshot(page, str(shots / "attacks_default.png"))

    # 1. Run the default grid with two repetitions (the second is not shipped, so it computes) and stop it.
    reps = main.get_by_label("Repetitions (new noise each)")
    reps.fill("2")
    reps.press("Enter")
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
