"""The real app in headless Chromium: every page opens, draws its charts, survives a slider move."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser

# Pages that must draw at least one Plotly chart with the bundled sample data (Home draws its chart on request:
# test_home_draws_the_curve_on_request).
CHART_PAGES: set[str] = set()
# Pages whose main figures are images, with how many at least (Heatmaps: the clean and noisy overlays side by side
# in one JPEG at display size;
# Time series and Gaze samples: the preview and the raw trace are pictures, their Plotly charts one toggle away:
# a picture redraws far faster).
IMAGE_PAGES = {"heatmaps": 1, "time_series": 1, "gaze_samples": 1}
# Pages whose main area has a slider to move.
SLIDER_PAGES = {"", "heatmaps", "time_series", "gaze_samples"}


def _assert_healthy(page, path: str) -> None:
    """No exception box; charts present where expected."""
    assert page.locator('[data-testid="stException"]').count() == 0, f"exception box on /{path}"
    if path in CHART_PAGES:
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
        assert page.locator(".js-plotly-plot").count() >= 1
    if path in IMAGE_PAGES:
        harness.at_least(page.locator('[data-testid="stMain"] [data-testid="stImage"] img'), IMAGE_PAGES[path],
                         f"/{path}: its pictures")


@pytest.mark.parametrize("path", list(harness.PAGES))
def test_page_opens_and_slider_moves(page, app_url, shots, path):
    """Open the page, check it, move its first slider with the keyboard, check again, screenshot both."""
    harness.goto(page, f"{app_url}/{path}")
    heading = harness.PAGES[path]
    page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)
    _assert_healthy(page, path)
    name = path or "home"
    harness.screenshot(page, str(shots / f"{name}.png"))

    if path in SLIDER_PAGES:
        assert page.locator(harness.SLIDER).count() >= 1, f"/{path} shows no slider"
        before = harness.slider_text(page)
        harness.move_slider(page, presses=3)
        harness.until(page, lambda: harness.slider_text(page) != before, "slider did not move")
        _assert_healthy(page, path)
        for width in (1280, 1920):
            harness.screenshot(page, str(shots / f"{name}_moved_{width}.png"), width)


def test_home_draws_the_curve_on_request(page, app_url, shots):
    """Home opens without a chart (no Plotly code on a first visit); its toggle draws the posterior curve, which
    follows the ε slider."""
    harness.goto(page, app_url)
    assert page.locator(".js-plotly-plot").count() == 0
    page.locator('[data-testid="stMain"] [data-testid="stCheckbox"]', has_text="Show the curve").first.click()
    harness.wait_idle(page)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    legend = page.locator(".js-plotly-plot .legendtext", has_text="worst case after")
    before = legend.first.text_content()
    harness.move_slider(page, presses=3)
    page.wait_for_function(f"() => [...document.querySelectorAll('.js-plotly-plot .legendtext')]"
                           f".every(e => e.textContent !== {before!r})", timeout=30_000)
    _assert_healthy(page, "")
    harness.screenshot(page, str(shots / "home_curve.png"))


def test_sidebar_navigation_reaches_every_view(page, app_url):
    """The sidebar links lead to each view."""
    harness.goto(page, app_url)
    nav = page.locator('[data-testid="stSidebarNav"]')
    for title in ["Heatmaps", "Time series", "Attacks", "Gaze samples", "Report"]:
        nav.get_by_text(title, exact=True).click()
        harness.wait_idle(page)
        page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)


# Records every distinct (navigation links | main area start) state the page goes through while loading.
_RECORD_NAV = """
window.__navs = [];
const rec = () => {
  const n = document.querySelector('[data-testid="stSidebarNav"]');
  const links = n ? Array.from(n.querySelectorAll('a')).map(a => a.innerText.trim().split('\\n').pop()) : [];
  const s = links.join('|');
  if (window.__navs[window.__navs.length - 1] !== s) window.__navs.push(s);
};
new MutationObserver(rec).observe(document, {subtree: true, childList: true, characterData: true});
"""


def test_first_deep_link_never_shows_the_file_name_navigation(browser):
    """On a fresh server, a deep link shows only EyeDP's navigation (Home first), never the pages/ file names."""
    proc, url = harness.start_app()  # fresh process: the legacy pages/ mode is only on before the first run
    try:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        pg = ctx.new_page()
        pg.add_init_script(_RECORD_NAV)
        harness.goto(pg, f"{url}/gaze_samples")
        pg.get_by_role("heading", name="Gaze samples").first.wait_for()
        navs = [n for n in pg.evaluate("window.__navs") if n]
        ctx.close()
    finally:
        harness.stop_app(proc)
    assert navs, "no navigation was ever drawn"
    assert all(n.split("|")[0] == "Home" for n in navs), f"a navigation other than EyeDP's appeared: {navs}"
    assert "Gaze samples" in navs[-1].split("|")
