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


def _scanpath_titles(page) -> list[str]:
    """Titles of the scanpath comparison: the bold line over its picture (or the Plotly title, when interactive)."""
    bold = page.locator('[data-testid="stMain"] [data-testid="stMarkdown"] strong').filter(has_text="(PREVIEW)")
    return [t.text_content() or "" for t in bold.all()] + [t for t in _chart_titles(page) if "(PREVIEW)" in t]


def _scanpath_picture(page):
    """The scanpath comparison's picture: loaded, with a real size."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stImage"] img')]
                   .some(i => i.complete && i.naturalWidth >= 800)""", timeout=60_000)


def test_protect_view_and_animation_slider(page, app_url, shots):
    harness.goto(page, f"{app_url}/gaze_samples", 120_000)
    assert page.get_by_role("heading", name="Gaze samples").first.is_visible()
    _no_exception(page)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Protect the stream", exact=True).click()
    harness.wait_idle(page, 180_000)
    _no_exception(page)
    _scanpath_picture(page)  # a picture by default (cheap to swap on every slider move)
    harness.until(page, lambda: all(w in main.inner_text() for w in ("per 60-sample window", "NOT differential privacy",
                                                                     "PREVIEW")), "the protect view's guarantees")
    # The side-by-side table comes last (every method is computed for it): wait for it, on a loaded machine too.
    page.wait_for_selector('[data-testid="stMarkdown"] table:has-text("heatmap CC")', timeout=120_000)
    harness.until(page, lambda: _scanpath_titles(page), "the scanpath comparison's title")
    # One figure at a time: the Kaleido budget chart is the other choice of the same place.
    main.get_by_text("Budget per window", exact=True).click()
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    # The first Plotly chart of the session: its browser code loads first (the scanpaths above are a picture).
    page.locator(".js-plotly-plot .gtitle", has_text="budget spent in every sliding window").first.wait_for(
        timeout=60_000)
    assert any("budget spent in every sliding window" in t for t in _chart_titles(page)), _chart_titles(page)
    harness.screenshot(page, str(shots / "gaze_samples_protect.png"))
    main.get_by_text("Scanpaths over the stimulus", exact=True).click()
    harness.wait_idle(page, 120_000)

    before = _scanpath_titles(page)
    slider = main.locator('[data-testid="stSlider"]').filter(has_text="Time (s)").locator('input[type="range"]')
    slider.first.focus()
    for _ in range(6):
        page.keyboard.press("ArrowRight")
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    assert before, "no scanpath title before the move"
    harness.until(page, lambda: _scanpath_titles(page) and _scanpath_titles(page) != before,
                  f"the scanpath title did not follow the time slider: {before}")
    after = _scanpath_titles(page)
    _scanpath_picture(page)
    # The interactive Plotly figure is one switch away, with the same title.
    main.locator('[data-testid="stCheckbox"]', has_text="Interactive chart").first.click()
    harness.wait_idle(page, 120_000)
    page.locator(".js-plotly-plot .gtitle", has_text="(PREVIEW)").first.wait_for(timeout=60_000)
    assert [t for t in _chart_titles(page) if "(PREVIEW)" in t] == after, (_chart_titles(page), after)
    main.locator('[data-testid="stCheckbox"]', has_text="Interactive chart").first.click()
    harness.wait_idle(page, 120_000)
    # Move every other slider of the view once, then look at both widths.
    for i in range(page.locator(harness.SLIDER).count()):
        harness.move_slider(page, i, "ArrowRight", 1)
        _no_exception(page)
    for width in (1280, 1920):
        harness.screenshot(page, str(shots / f"gaze_samples_protect_moved_{width}.png"), width)

    main.get_by_text("Demographics (k-anonymity)", exact=True).click()
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    main.get_by_text("The seed's Table 2", exact=False).first.wait_for(timeout=60_000)
    harness.move_slider(page, 0, "ArrowRight", 2)  # k
    _no_exception(page)
    for width in (1280, 1920):
        harness.screenshot(page, str(shots / f"gaze_samples_demographics_{width}.png"), width)


def _move(page, label: str, key: str = "ArrowRight", presses: int = 1) -> None:
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text=label)
    slider.locator('input[type="range"]').first.focus()
    for _ in range(presses):
        page.keyboard.press(key)
    harness.wait_idle(page, 120_000)


def _time_value(page) -> str:
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text="Time (s)")
    return slider.locator('input[type="range"]').first.get_attribute("aria-valuetext") or ""


def test_a_control_inside_a_fragment_reruns_only_that_fragment(browser, app_url, run_log):
    """The app's run log (ui/runlog.py): sliders of the raw and protect sections re-run their fragment, not the
    page body; a control outside them (the view switch) re-runs the page."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = ctx.new_page()
    harness.goto(page, f"{app_url}/gaze_samples", 120_000)
    page.wait_for_timeout(300)
    # The threshold re-runs its part (events) and the time window's part nested in it; the window only its own
    # (its numbers and figure: the events are not detected again).
    for label, want in (("Velocity threshold", ["gs_raw_window", "gs_raw"]), ("Time window", ["gs_raw_window"])):
        run_log.write_text("")
        _move(page, label)
        _no_exception(page)
        moved = harness.settled_runs(page, run_log, 120_000)
        assert moved == want, (label, moved)

    run_log.write_text("")
    page.locator('[data-testid="stMain"]').get_by_text("Protect the stream", exact=True).click()
    runs = harness.settled_runs(page, run_log, 180_000)
    assert "page" in runs and "gs_protect" in runs, runs  # the view switch sits outside the fragments
    # Each method's part is a fragment nested in the protect view, and the time slider one nested in that:
    # a slider re-runs only the innermost fragment that holds it.
    for method, label, want in (("Kaleido", "ε per window", "gs_kaleido"), ("Kaleido", "Time (s)", "compare_view"),
                                ("k-same-synth", "k (identities per group)", "gs_synth"),
                                ("PD (as published)", "γ (bucket width)", "gs_pd")):
        if method != "Kaleido":
            time_shown = _time_value(page)
            run_log.write_text("")
            page.locator('[data-testid="stMain"] [data-testid="stRadio"] label').filter(
                has_text=method).first.click()
            runs = harness.settled_runs(page, run_log, 180_000)
            assert "page" not in runs and "gs_protect" in runs, (method, runs)
            if method != "PD (as published)":  # (PD as published shows nothing for this stream to animate)
                assert _time_value(page) == time_shown  # the time point stays where the user left it
        run_log.write_text("")
        _move(page, label)
        _no_exception(page)
        runs = harness.settled_runs(page, run_log, 120_000)
        assert [r for r in runs if r != "compare_view" or want == "compare_view"] == [want], (label, runs)
    ctx.close()


def _slider_value(page, label: str) -> str:
    slider = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').filter(has_text=label)
    return slider.locator('input[type="range"]').first.get_attribute("aria-valuetext") or ""


def test_a_method_shown_again_shows_the_values_in_force(page, app_url):
    """Kaleido's ε and PD's γ moved, the other method shown, then the first again: each slider shows the value
    the promise above it states (not its first option), and the link carries both."""
    harness.open_view(page, app_url, "gaze_samples#Protect the stream")
    _move(page, "ε per window", presses=2)  # 5 -> 10 on the log options
    assert _slider_value(page, "ε per window") == "10"
    main = page.locator('[data-testid="stMain"]')
    main.locator('[data-testid="stRadio"] label').filter(has_text="PD (as published)").first.click()
    harness.wait_idle(page, 120_000)
    _move(page, "γ (bucket width)")
    assert _slider_value(page, "γ (bucket width)") == "5"
    main.locator('[data-testid="stRadio"] label').filter(has_text="Kaleido").first.click()
    harness.wait_idle(page, 120_000)
    harness.until(page, lambda: main.get_by_text("ε = 10 per 60-sample window").count() > 0, "Kaleido's promise at ε = 10")
    assert _slider_value(page, "ε per window") == "10"
    main.locator('[data-testid="stRadio"] label').filter(has_text="PD (as published)").first.click()
    harness.wait_idle(page, 120_000)
    harness.until(page, lambda: _slider_value(page, "γ (bucket width)") != "", "PD's sliders")
    assert _slider_value(page, "γ (bucket width)") == "5"
    assert "gs_kal_eps=10.0" in page.url and "gs_pd_gamma=5.0" in page.url
    _no_exception(page)
