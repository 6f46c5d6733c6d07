"""Settings in the URL and the review-board report in headless Chromium: a URL reopens the same view, the
URL follows a slider, and the downloaded report opens offline without errors, draws its figure and prints."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

import harness

pytestmark = pytest.mark.browser


def _params(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_a_url_reopens_the_view_and_follows_a_slider(page, app_url, shots):
    harness.goto(page, f"{app_url}/report?rp_cap=2.5")
    page.wait_for_selector('[data-testid="stSlider"]', timeout=60_000)
    assert harness.slider_text(page, 0) == "2.50"
    page.get_by_text("Cap: ε ≤ 2.5 per person").wait_for(timeout=30_000)
    assert _params(page).get("rp_cap") == "2.5"
    harness.move_slider(page, 0, "ArrowRight", presses=3)
    page.wait_for_function("() => location.search.includes('rp_cap=2.8')", timeout=30_000)
    assert _params(page)["rp_cap"] == "2.8"
    # The move re-runs only the cap's fragment: the sidebar, drawn before it, must not state a cap of its own.
    page.get_by_text("Cap: ε ≤ 2.8 per person").wait_for(timeout=30_000)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("the cap on ε per person is on this page").wait_for(timeout=30_000)
    assert "2.5" not in sidebar.inner_text() and "≤" not in sidebar.inner_text()


def _download(page, button: str, server):
    """Click the download button named `button` and return the download (`server`: the app_server fixture, whose
    log the failure quotes). The report is built when the button is
    pressed (a deferred download): a click that lands while a run of another session is pruning the server's
    media files can hold an id the server no longer has (Streamlit then starts no download, and a user clicks
    again), so a click that starts nothing within 30 s is repeated once, after the page is idle."""
    for timeout in (30_000, 90_000):
        try:
            with page.expect_download(timeout=timeout) as dl:
                page.get_by_role("button", name=re.compile(button)).click()
            return dl.value
        except Exception:  # noqa: BLE001 - no download started: click again once the page is idle
            harness.wait_idle(page)
    raise AssertionError(f"{button!r} started no download after two clicks; the server's log ends with:\n"
                         f"{harness.server_log(server[0])}")


def test_report_opens_offline_without_errors_and_prints(page, app_server, run_log, shots, tmp_path):
    app_url = app_server[1]
    # One export on Heatmaps, so the report has an artefact with its calibration.
    harness.goto(page, f"{app_url}/heatmaps")
    page.get_by_role("button", name=re.compile("Export \\(private release\\)")).click()
    harness.wait_idle(page)
    page.get_by_text("PRIVATE RELEASE (OpenDP)").first.wait_for(timeout=60_000)
    # Through the navigation (a new URL would start a new session, without the export).
    page.locator('[data-testid="stSidebarNav"] a', has_text="Report").click()
    page.wait_for_url(re.compile(".*/report.*"))
    harness.wait_idle(page)
    page.get_by_text("Review-board report").wait_for(timeout=30_000)
    harness.screenshot(page, str(shots / "report_page_1280.png"), width=1280)
    path = tmp_path / "eyedp_report.html"
    harness.wait_idle(page)
    run_log.write_text("")
    _download(page, "Download the report", app_server).save_as(str(path))
    assert path.stat().st_size > 100_000  # plotly's JavaScript is inside the file
    # The report is built by the click itself: no re-run, which would also give the button a new file id while
    # the click still resolves the old one.
    page.wait_for_timeout(500)
    assert harness.runs(run_log) == []

    # Open the file with the network cut: everything it needs must be in it.
    ctx = page.context.browser.new_context(viewport={"width": 1280, "height": 1000}, offline=True)
    report = ctx.new_page()
    errors: list[str] = []
    report.on("pageerror", lambda e: errors.append(str(e)))
    report.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    report.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    report.goto(Path(path).as_uri())
    report.wait_for_selector(".js-plotly-plot .main-svg", timeout=30_000)
    for section in ("verdict", "summary", "data", "unit", "artefacts", "composition", "reading", "caveats",
                    "unprotected", "reproduce"):
        assert report.locator(f"section#{section} h2").count() == 1, section
    assert "Worst-case total privacy loss" in report.inner_text("section#summary")
    assert "Who is protected" in report.inner_text("section#verdict")
    assert "Left out of this release-safe report" in report.inner_text("section#unprotected")  # the default
    assert errors == [], errors
    height = report.evaluate("() => document.body.scrollHeight")
    report.set_viewport_size({"width": 1280, "height": min(int(height) + 40, 8000)})
    report.wait_for_timeout(300)
    report.screenshot(path=str(shots / "report_html_1280.png"))
    pdf = report.pdf(format="A4", print_background=True)
    assert pdf[:4] == b"%PDF" and len(pdf) > 20_000
    (shots / "report.pdf").write_bytes(pdf)
    ctx.close()
