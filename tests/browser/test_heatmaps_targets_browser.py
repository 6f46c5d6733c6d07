"""The Heatmaps page's Target finder and Compare A/B panels in headless Chromium: each renders its numbers, the
finder's curve and the A/B maps are pictures that load, and moving B's ε redraws B and changes the one-sentence
difference."""
from __future__ import annotations

import re

import pytest

import harness

pytestmark = pytest.mark.browser


def _open_panel(page, app_url: str, button: str) -> None:
    """Open /heatmaps and click the Explore panel named `button`."""
    harness.goto(page, f"{app_url}/heatmaps", 120_000)
    page.wait_for_selector(".eyedp-number", timeout=60_000)
    page.locator('[data-testid="stMain"] button', has_text=button).first.click()
    harness.wait_idle(page, 120_000)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_target_finder_renders_answers_and_chart(page, app_url, shots):
    _open_panel(page, app_url, "Target finder")
    # The two answers are a row of numbers (ui.numbers): label and value of each.
    label = page.locator(".eyedp-number-label", has_text="Smallest ε per observer for CC")
    label.first.wait_for(timeout=60_000)
    value = page.locator(".eyedp-number").filter(has=label).first.locator(".eyedp-number-value").inner_text().strip()
    assert float(value) > 0
    needed = page.locator(".eyedp-number").filter(
        has=page.locator(".eyedp-number-label", has_text="Observers needed")).first
    assert int(needed.locator(".eyedp-number-value").inner_text().replace(",", "")) > 1
    # The finder's curve is a picture (no Plotly on this panel): the overlays' picture + the curve, all loaded.
    page.wait_for_function(
        """() => { const imgs = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stImage"] img')];
                   return imgs.length >= 2 && imgs.every(i => i.complete && i.naturalWidth > 100); }""",
        timeout=60_000)
    assert page.locator("[data-testid='stMain'] .js-plotly-plot").count() == 0
    page.locator('[data-testid="stMain"]', has_text="tuning that is not itself private").first.wait_for(timeout=60_000)
    harness.screenshot(page, str(shots / "heatmaps_target_finder.png"))


def _sentence(page) -> str:
    return page.locator('[data-testid="stMarkdownContainer"]', has_text="percentage points").first.inner_text()


def test_compare_panel_pictures_and_sentence_follow_b(page, app_url, shots, run_log):
    _open_panel(page, app_url, "Compare A/B")
    page.wait_for_function(
        """() => { const imgs = [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stImage"] img')];
                   return imgs.length >= 3 && imgs.every(i => i.complete && i.naturalWidth > 100); }""",
        timeout=60_000)
    before = _sentence(page)
    assert re.search(r"B spends ε = 10 per observer instead of [\d.]+", before), before
    thumb = page.locator('[data-testid="stMain"] [data-testid="stSlider"]', has_text="ε of B").locator(
        'input[type="range"]').first
    run_log.write_text("")
    thumb.focus()
    for _ in range(6):  # one decade down: 10 -> 1
        page.keyboard.press("ArrowLeft")
    harness.wait_idle(page)
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')]
                 .some(e => e.innerText.includes('B spends ε = 1 per observer'))""", timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert _sentence(page) != before
    moved = harness.settled_runs(page, run_log)
    assert "compare" in moved, moved
    assert not {"page", "study", "grid", "privacy"} & set(moved), f"a move of B re-ran more than its panel: {moved}"
    harness.screenshot(page, str(shots / "heatmaps_compare_ab.png"))


def _slider_value(page, label: str) -> str:
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text=label)
    return slider.locator('input[type="range"]').first.get_attribute("aria-valuetext") or ""


def _show_panel(page, name: str) -> None:
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_text(name, exact=True).click()
    harness.wait_idle(page, 120_000)


def test_a_panel_shown_again_shows_the_values_its_answers_use(page, app_url):
    """The finder's target moved, another panel shown, the finder again: the slider shows the target its answer
    states (not its declared default 0.8)."""
    _open_panel(page, app_url, "Target finder")
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text="Target")
    slider.locator('input[type="range"]').first.focus()
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    harness.wait_idle(page, 120_000)
    answer = page.locator(".eyedp-number-label", has_text="Smallest ε per observer for CC ≥ 0.75")
    answer.first.wait_for(timeout=60_000)
    assert _slider_value(page, "Target") == "0.75"
    _show_panel(page, "Compare A/B")
    _show_panel(page, "Target finder")
    answer.first.wait_for(timeout=60_000)
    assert _slider_value(page, "Target") == "0.75"
    assert page.locator('[data-testid="stException"]').count() == 0
