"""Settings travel in a real browser: a page's controls and URL come back after a visit to another page, and a
copied Time-series URL opened in a new browser context (a new session) shows the same controls and numbers."""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from playwright.sync_api import TimeoutError as PlaywrightTimeout

import harness

MAIN = '[data-testid="stMain"]'


def _nav(page, title: str) -> None:
    """Go to another page through the sidebar's navigation (same session), and wait until it is drawn."""
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
    page.get_by_role("heading", name=title).first.wait_for()
    harness.wait_idle(page)


def _selected(page, label: str) -> str:
    """The option a main-area selectbox shows."""
    return page.locator(f'{MAIN} [data-testid="stSelectbox"] input[role="combobox"][aria-label="{label}"]'
                        ).first.input_value()


def _slider(page, label: str):
    return page.locator(f'{MAIN} [data-testid="stSlider"]').filter(has_text=label).first.locator(
        'input[type="range"], [role="slider"]').first


def _slider_text(page, label: str) -> str:
    return _slider(page, label).get_attribute("aria-valuetext") or ""


def _set_slider(page, label: str, text: str, key: str = "ArrowRight", limit: int = 60) -> None:
    """Press arrow keys on a (select-)slider until it shows `text` (waiting for each re-run)."""
    for _ in range(limit):
        if _slider_text(page, label) == text:
            return
        _slider(page, label).focus()
        page.keyboard.press(key)
        harness.wait_idle(page)
    raise AssertionError(f"slider {label!r} never showed {text!r} (now {_slider_text(page, label)!r})")


def _radio_checked(page, label: str) -> bool:
    option = page.locator(f'{MAIN} [data-testid="stRadio"] label').filter(has_text=label).first
    return option.locator("input").is_checked()


def _query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def _wait_query(page, key: str, value: str, timeout_ms: float = 30_000) -> None:
    page.wait_for_url(re.compile(rf"[?&]{key}={re.escape(value)}(&|$)"), timeout=timeout_ms)


def _metrics(page) -> list[str]:
    return [t.strip() for t in page.locator(f'{MAIN} [data-testid="stMetric"], {MAIN} .eyedp-number').all_inner_texts()]


def _comes_to(page, read, expected, timeout_ms: float = 30_000) -> None:
    """Assert that `read()` comes to `expected` within the timeout: a run can end before the browser has drawn
    all it sent (the numbers of a run that started just before the check)."""
    try:
        harness.until(page, lambda: read() == expected, "the page never showed what was expected", timeout_ms)
    finally:
        assert read() == expected


def _nmse_texts(page) -> list[str]:
    return [t for t in page.locator(f'{MAIN} [data-testid="stAlert"], {MAIN} [data-testid="stCaptionContainer"]')
            .all_inner_texts() if "NMSE" in t]


def test_heatmaps_controls_and_url_come_back_after_another_page(page, app_url) -> None:
    harness.open_view(page, app_url, "heatmaps")
    _set_slider(page, "ε — privacy loss", "10")
    page.locator(f'{MAIN} [data-testid="stRadio"] label').filter(has_text="Laplace").first.click()
    harness.wait_idle(page)
    harness.choose_option(page, "Stimulus", "webpage")
    _wait_query(page, "hm_stimulus", "webpage")
    url = _query(page)
    assert url["hm_eps"] == "10.0" and url["hm_mech"] == "laplace" and url["hm_stimulus"] == "webpage"
    _nav(page, "Time series")
    assert not any(k.startswith("hm_") for k in _query(page))
    _nav(page, "Heatmaps")
    _wait_query(page, "hm_stimulus", "webpage")
    assert _query(page) == url
    assert _slider_text(page, "ε — privacy loss") == "10"
    assert _radio_checked(page, "Laplace") and not _radio_checked(page, "Gaussian")
    assert _selected(page, "Stimulus") == "webpage"
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_copied_time_series_url_opens_the_same_view_in_a_new_session(page, browser, app_url) -> None:
    harness.open_view(page, app_url, "time_series")
    harness.choose_option(page, "Feature shown", "fix_rate_hz (1/s)")
    harness.choose_option(page, "Task (document)", "newspaper")
    harness.choose_option(page, "Participant", "P03")
    _set_slider(page, "ε total per person", "10")
    _wait_query(page, "ts_eps", "10.0")
    url = page.url
    assert {"ts_feature", "ts_task", "ts_participant", "ts_eps"} <= _query(page).keys()
    shown = (_selected(page, "Feature shown"), _selected(page, "Task (document)"), _selected(page, "Participant"),
             _slider_text(page, "ε total per person"))
    numbers, nmse = _metrics(page), _nmse_texts(page)
    assert numbers and nmse
    other_ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        other = other_ctx.new_page()
        other.goto(url)
        other.get_by_role("heading", name="Time series").first.wait_for(timeout=120_000)
        harness.wait_idle(other, 120_000)
        assert (_selected(other, "Feature shown"), _selected(other, "Task (document)"),
                _selected(other, "Participant"), _slider_text(other, "ε total per person")) == shown
        _comes_to(other, lambda: (_metrics(other), _nmse_texts(other)), (numbers, nmse))
        assert _query(other) == _query(page)
        assert other.locator('[data-testid="stException"]').count() == 0
    finally:
        other_ctx.close()


def test_reset_leaves_every_heatmaps_control_showing_its_default(page, app_url) -> None:
    harness.open_view(page, app_url, "heatmaps")
    harness.until(page, lambda: any(t.startswith("Total δ per observer") for t in _metrics(page)),
                  "the Heatmaps numbers were never drawn")
    fresh = (_slider_text(page, "ε — privacy loss"), _slider_text(page, "Cell size"), _metrics(page))
    _set_slider(page, "ε — privacy loss", "10")
    _set_slider(page, "Cell size", "16", key="ArrowLeft")
    page.locator(f'{MAIN} [data-testid="stRadio"] label').filter(has_text="Laplace").first.click()
    harness.wait_idle(page)
    _wait_query(page, "hm_mech", "laplace")
    page.locator('[data-testid="stSidebar"]').get_by_role("button", name="Reset this page to defaults").click()
    page.wait_for_url(re.compile(r"/heatmaps$"), timeout=30_000)
    harness.wait_idle(page)
    assert _radio_checked(page, "Gaussian") and not _radio_checked(page, "Laplace")
    # The URL is reset before the run that redraws the numbers ends: wait for that redraw, then compare.
    _comes_to(page, lambda: (_slider_text(page, "ε — privacy loss"), _slider_text(page, "Cell size"), _metrics(page)),
              fresh)
    # A move after the reset starts from the defaults the page shows (the browser sends back what it shows).
    _set_slider(page, "Cell size", "40")
    _wait_query(page, "hm_cell", "40")
    assert "hm_eps" not in _query(page) and "hm_mech" not in _query(page)


def test_time_series_epsilon_survives_an_emptied_feature_list(page, app_url) -> None:
    harness.open_view(page, app_url, "time_series")
    label = "ε total per person"
    _slider(page, label).focus()
    page.keyboard.press("End")  # the largest ε on the slider
    harness.wait_idle(page)
    top = _slider_text(page, label)
    assert top == "1e+04"
    _wait_query(page, "ts_eps", "10000.0")
    headline = _metrics(page)[0]
    page.locator(f'{MAIN} [data-testid="stExpander"] summary').filter(has_text="Features released").first.click()
    box = page.locator(f'{MAIN} [data-testid="stMultiSelect"]').first
    box.get_by_role("button", name="Clear all").click()
    harness.wait_idle(page)
    page.get_by_text("Choose at least one feature to release.").wait_for()
    # Add one feature back. The multiselect's list can close under a run that was still going when it opened,
    # so the pick is repeated until the page has a feature again (bounded).
    summary = page.locator(f'{MAIN} [data-testid="stExpander"] summary').filter(has_text="Features released").first
    combo = box.locator('input[role="combobox"]')
    for _ in range(6):
        harness.wait_idle(page)
        try:
            if not combo.is_visible():  # its expander's title changed: drawn closed
                summary.click(timeout=10_000)
            combo.click(timeout=10_000)
            page.keyboard.type("sacc_large")  # the list of 48 is drawn lazily: filter it
            page.get_by_role("option", name="sacc_large_ratio (fraction)", exact=True).first.click(timeout=10_000)
        except PlaywrightTimeout:  # the list or the box was redrawn by a run under way: start the pick again
            page.keyboard.press("Escape")
            continue
        harness.wait_idle(page)
        page.keyboard.press("Escape")
        harness.wait_idle(page)
        try:
            page.locator(f'{MAIN} [data-testid="stExpander"] summary').filter(
                has_text="Features released: 1 of 48").first.wait_for(timeout=10_000)
            break
        except PlaywrightTimeout:  # the pick was lost: pick again
            continue
    _slider(page, label).wait_for(timeout=120_000)  # the page runs every mechanism again for the new feature
    # What the slider shows is what the headline computes with, and both are what was chosen.
    assert _slider_text(page, label) == top
    assert _metrics(page)[0] == headline and "1e+04" in headline.replace("10,000", "1e+04")
    assert _query(page)["ts_eps"] == "10000.0"
