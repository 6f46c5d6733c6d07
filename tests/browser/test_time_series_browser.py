"""The Time series page in headless Chromium: the ε slider redraws the preview, every secondary view opens."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser

PANELS = ["Utility vs ε", "Choice of k", "Correlation", "Accounting", "Steil et al.", "Per-feature table"]


def _no_exception(page) -> None:
    """No Streamlit exception box on the page."""
    assert page.locator('[data-testid="stException"]').count() == 0, "exception box on /time_series"


PREVIEW = '[data-testid="stMain"] [data-testid="stImage"] img'


def _preview_state(page) -> tuple[str, str]:
    """The preview's title (bold in the caption under it) and its image's address (both change when it is
    redrawn; the preview is a PNG)."""
    caption = page.locator('[data-testid="stCaptionContainer"]').filter(has_text="NMSE of this series").first
    title = caption.locator("strong").first.text_content() or ""
    return title, page.locator(PREVIEW).first.get_attribute("src") or ""


def _metric(page, prefix: str) -> str:
    """Shown value of the headline number whose label starts with prefix."""
    box = page.locator(".eyedp-number").filter(has_text=prefix).first
    return box.locator(".eyedp-number-value").inner_text()


def test_eps_slider_redraws_the_preview(page, app_url, shots):
    """Move ε with the keyboard: the slider, the noise scale and the preview chart all change, no exception."""
    harness.goto(page, f"{app_url}/time_series", 120_000)
    assert page.get_by_role("heading", name="Time series").first.is_visible()
    _no_exception(page)
    page.wait_for_selector(PREVIEW, timeout=30_000)
    harness.screenshot(page, str(shots / "time_series_default.png"))
    before_eps = harness.slider_text(page, 0)
    before_scale = _metric(page, "Noise scale")
    before_chart = _preview_state(page)
    harness.move_slider(page, 0, presses=3)
    _no_exception(page)
    harness.until(page, lambda: harness.slider_text(page, 0) != before_eps, "the ε slider did not move")
    harness.until(page, lambda: _metric(page, "Noise scale") != before_scale, "the noise scale did not follow ε")
    harness.until(page, lambda: all(a != b for a, b in zip(_preview_state(page), before_chart)),
                  "the preview was not redrawn (title and picture)")
    harness.screenshot(page, str(shots / "time_series_eps_moved.png"))


def test_every_view_opens(page, app_url, shots):
    """Open each view of the switcher once: it draws without an exception; screenshot each."""
    harness.goto(page, f"{app_url}/time_series", 120_000)
    main = page.locator('[data-testid="stMain"]')
    for i, name in enumerate(PANELS):
        main.get_by_role("radio", name=name, exact=True).click()
        harness.wait_idle(page, 120_000)
        _no_exception(page)
        # The browser draws a chart after the script run has ended: wait for what is asserted.
        harness.at_least(page.locator(PREVIEW), 1, f"{name}: the preview image")
        assert page.locator(PREVIEW).count() == 1, f"{name}: more than one preview image"
        if name != "Per-feature table":
            harness.at_least(page.locator(".js-plotly-plot"), 1, f"{name}: a chart besides the preview", 120_000)
        else:
            harness.at_least(page.locator('[data-testid="stDataFrame"]'), 1, f"{name}: the table", 120_000)
        harness.screenshot(page, str(shots / f"time_series_{i}_{name.split()[0].lower()}.png"))


def _open(page, url: str) -> None:
    harness.goto(page, f"{url}/time_series", 120_000)
    page.wait_for_selector(PREVIEW, timeout=30_000)
    _no_exception(page)


def test_slider_in_the_fragment_reruns_only_the_fragment(page, app_url, run_log):
    """The app logs 'page' per full run, 'view' per run of the mechanism fragment and 'budget' per run of the
    budget fragment nested in it (ui/runlog.py): moving ε or R runs the budget fragment alone; picking another
    participant runs the mechanism fragment (and the nested one); the lag slider of the Correlation view runs that
    view's fragment alone; a control above all of them runs the whole page."""
    run_log.write_text("")
    _open(page, app_url)
    assert "page" in harness.runs(run_log)  # the first run is a full one
    for index in (0, 2):  # ε, then R (k, slider 1, is set by the public rule and disabled)
        run_log.write_text("")
        before = harness.slider_text(page, index)
        harness.move_slider(page, index)
        harness.until(page, lambda: harness.slider_text(page, index) != before, f"slider {index} did not move")
        moved = harness.settled_runs(page, run_log)
        assert moved == ["budget"], f"slider {index}: {moved}"
    run_log.write_text("")  # the participant picker sits inside the fragment too
    harness.choose_option(page, "Participant", "P02")
    moved = harness.settled_runs(page, run_log)
    assert moved == ["budget", "view"], f"participant: {moved}"
    page.locator('[data-testid="stMain"]').get_by_role("radio", name="Correlation", exact=True).click()
    harness.wait_idle(page, 120_000)
    run_log.write_text("")  # a control of an opened view re-runs that view alone
    before = harness.slider_text(page, 3)  # the lag slider, after ε, k and R
    harness.move_slider(page, 3)
    harness.until(page, lambda: harness.slider_text(page, 3) != before, "the lag slider did not move")
    moved = harness.settled_runs(page, run_log)
    assert moved == ["panel"], f"lag slider: {moved}"
    run_log.write_text("")  # the preview's switches sit under it, in the mechanism fragment
    page.get_by_text("Show how the noise scale is computed").click()
    page.locator('[data-testid="stMain"] .katex').first.wait_for(timeout=60_000)
    moved = harness.settled_runs(page, run_log)
    assert "page" not in moved and {"budget", "view"} <= set(moved), f"formula switch: {moved}"  # and the open view
    page.locator('[data-testid="stMain"]').get_by_role("radio", name="free", exact=True).click()
    harness.wait_idle(page, 120_000)
    run_log.write_text("")  # the free chunk size is a slider of the budget part, drawn before ε
    before = harness.slider_text(page, 0)
    harness.move_slider(page, 0)
    harness.until(page, lambda: harness.slider_text(page, 0) != before, "the free chunk slider did not move")
    moved = harness.settled_runs(page, run_log)
    assert sorted(moved) == ["budget", "panel"], f"free chunk slider: {moved}"  # with the open view, nested in it
    run_log.write_text("")
    page.get_by_text("Use the longest (").click()
    runs = harness.settled_runs(page, run_log)
    assert runs.count("page") == 1 and "view" in runs and "budget" in runs, runs  # outside the fragment: the whole page
    _no_exception(page)


@pytest.mark.parametrize("width", [1280, 1920])
def test_opens_on_the_person_total_and_looks_right_after_moves(page, app_url, shots, width):
    """The first headline number is the total ε per person; after moving ε and R and opening the per-feature table,
    nothing raises; screenshots at both widths (looked at by the developer)."""
    page.set_viewport_size({"width": width, "height": 1000})
    _open(page, app_url)
    first = page.locator('[data-testid="stMain"] .eyedp-number').first
    assert first.locator(".eyedp-number-label").inner_text().startswith("Total ε per person")
    harness.screenshot(page, str(shots / f"time_series_{width}_open.png"), width=width)
    before = _metric(page, "Total ε per person")
    harness.move_slider(page, 0, presses=6)  # ε up one decade
    harness.move_slider(page, 2, presses=2)  # R (slider 1, k, is disabled under the public rule)
    _no_exception(page)
    harness.until(page, lambda: _metric(page, "Total ε per person") != before, "the total ε did not follow ε")
    harness.screenshot(page, str(shots / f"time_series_{width}_moved.png"), width=width)
    page.locator('[data-testid="stMain"]').get_by_role("radio", name="Per-feature table", exact=True).click()
    harness.wait_idle(page, 120_000)
    page.wait_for_selector('[data-testid="stDataFrame"]', timeout=60_000)  # the fragment re-run draws it
    _no_exception(page)
    harness.screenshot(page, str(shots / f"time_series_{width}_table.png"), width=width)


def test_release_forms_and_ab_views_in_the_browser(page, app_url, shots):
    """Release forms: the crossing sentence and its chart; Compare A/B: two more series and the one-sentence
    difference."""
    harness.goto(page, f"{app_url}/time_series", 120_000)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("radio", name="Release forms", exact=True).click()
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    main.get_by_text("Smallest ε per person reaching 0 dB").first.wait_for(timeout=60_000)
    main.locator(".js-plotly-plot").first.wait_for(timeout=60_000)  # the chart draws after its caption
    harness.screenshot(page, str(shots / "time_series_forms.png"))
    main.get_by_role("radio", name="Compare A/B", exact=True).click()
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    main.get_by_text("more utility than A").first.wait_for(timeout=60_000)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stMain\"] [data-testid=\"stImage\"] img')"
                           ".length >= 3", timeout=60_000)
    harness.screenshot(page, str(shots / "time_series_ab.png"))


def test_app_made_feature_windows_with_three_recordings_per_person_at_the_longest_length(page, app_url, shots):
    """A fixation CSV of 40 participants × 3 stimuli (no task column) uploaded on Your data and made into feature
    windows at the suggested length and step (10 s every 5 s: 7 windows per recording); on Time series 'Use the
    longest (7)' draws the preview with no error id, and Release forms count all 3 recordings per person."""
    from tests.core.timeseries.app_made import fixations

    csv = fixations(40, 3).to_csv(index=False).encode()
    harness.goto(page, f"{app_url}/your_data", 120_000)
    page.get_by_text("Fixations (CSV/TSV)", exact=True).click()
    harness.wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[{"name": "fix3.csv", "mimeType": "text/csv", "buffer": csv}])
    button = page.get_by_role("button", name="Use this data")
    button.wait_for(timeout=120_000)
    harness.wait_idle(page)
    button.click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="fix3.csv").first.wait_for(timeout=120_000)
    harness.wait_idle(page, 120_000)
    panel = page.locator('[data-testid="stExpander"]').filter(has_text="Fixations: fix3.csv").first
    make = panel.get_by_role("button", name="Make feature windows")
    if not make.is_visible():
        panel.locator("summary").first.click()
        harness.wait_idle(page)
    assert float(panel.get_by_label("Window length (s)", exact=True).input_value()) == 10.0
    make.click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="(feature-window step): ").first.wait_for(
        timeout=300_000)
    harness.wait_idle(page, 120_000)
    _no_exception(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Time series", exact=True).click()
    harness.wait_idle(page, 300_000)
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Use the longest (7)", exact=True).click()
    harness.wait_idle(page, 300_000)
    page.wait_for_selector(PREVIEW, timeout=120_000)
    harness.no_crash(page, "on Time series at T = 7 windows")
    main.get_by_role("radio", name="Release forms", exact=True).click()
    harness.wait_idle(page, 120_000)
    main.get_by_text("all 3 recordings", exact=False).first.wait_for(timeout=60_000)
    _no_exception(page)
    harness.screenshot(page, str(shots / "time_series_app_made_forms.png"))
