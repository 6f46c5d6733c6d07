"""Areas of interest in a real browser: choose a grid of AOIs, edit AOIs as a table, move ε (only the privacy part
re-runs), export."""
from __future__ import annotations

import pytest

import harness

pytestmark = pytest.mark.browser
MAIN = '[data-testid="stMain"]'


def _no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0


def _eps_thumb(page):
    return page.locator(f'{MAIN} [data-testid="stSlider"]', has_text="ε per observer").locator(
        'input[type="range"]').first


def test_grid_aois_epsilon_move_and_export(page, app_url, run_log, shots):
    harness.goto(page, f"{app_url}/areas_of_interest", 180_000)
    _no_exception(page)
    harness.figure_drawn(page)
    page.locator(f"{MAIN} table", has_text="hit ratio").first.wait_for(timeout=60_000)

    # Choose AOIs: a regular grid of 2 columns x 3 rows.
    page.locator(f'{MAIN} [data-testid="stRadio"] label', has_text="Regular grid").first.click()
    harness.wait_idle(page)
    cols = page.locator(f'{MAIN} [data-testid="stNumberInput"]', has_text="columns").locator("input").first
    cols.fill("2")
    cols.press("Enter")
    harness.wait_idle(page)
    page.locator(f"{MAIN} [data-testid='stMarkdownContainer']", has_text="6 AOIs").first.wait_for(timeout=60_000)
    harness.at_least(page.locator(f"{MAIN} td", has_text="r3c2"), 2, "r3c2 in the clean and private tables")
    _no_exception(page)

    # Upload two AOIs (one a polygon), move them into the table, then edit one there (its text form).
    page.locator(f'{MAIN} [data-testid="stRadio"] label', has_text="Upload CSV / JSON").first.click()
    harness.wait_idle(page)
    csv = b"name,kind,x0,y0,x1,y1,points\nbutton,rect,990,580,1138,620,\nleft half,polygon,,,,,0 0; 640 0; 640 800; 0 800\n"
    page.locator(f'{MAIN} [data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": "aois.csv", "mimeType": "text/csv", "buffer": csv})
    harness.wait_idle(page)
    page.locator(f"{MAIN} [data-testid='stMarkdownContainer']", has_text="2 AOIs").first.wait_for(timeout=60_000)
    page.locator(f"{MAIN} button", has_text="Edit these in the table").first.click()
    harness.wait_idle(page)
    page.locator(f"{MAIN} summary", has_text="The table as text").first.click()
    area = page.locator(f"{MAIN} textarea").first
    # The expander's text area is filled by the run its button started: wait for the text, not for a time.
    harness.until(page, lambda: "left half" in area.input_value(), "the uploaded AOIs in the table's text form")
    area.fill(area.input_value().replace("button,", "call to action,"))
    area.press("Control+Enter")
    harness.wait_idle(page)
    page.locator(f"{MAIN} td", has_text="call to action").first.wait_for(timeout=60_000)
    harness.at_least(page.locator(f"{MAIN} td", has_text="left half"), 2, "left half in both tables")
    _no_exception(page)

    # Move ε to 10: only the privacy fragment re-runs, and the page says the new ε.
    run_log.write_text("")
    thumb = _eps_thumb(page)
    for _ in range(40):
        if thumb.get_attribute("aria-valuetext") == "10":
            break
        thumb.press("ArrowRight")
    assert thumb.get_attribute("aria-valuetext") == "10"
    harness.wait_idle(page)
    page.locator(f"{MAIN} [data-testid='stMarkdownContainer']", has_text="ε = 10 per observer").first.wait_for(
        timeout=60_000)
    moved = harness.settled_runs(page, run_log)
    assert "aoi_privacy" in moved and "page" not in moved, moved
    harness.screenshot(page, str(shots / "aoi_grid_eps10.png"))

    # Export: charged, then the private table downloads as CSV.
    page.locator(f"{MAIN} button", has_text="Charge ledger and export").first.click()
    harness.wait_idle(page)
    page.locator(f"{MAIN} [data-testid='stAlert']", has_text="Released.").first.wait_for(timeout=120_000)
    with page.expect_download() as dl:
        page.locator(f"{MAIN} button", has_text="Private AOI table (CSV)").first.click()
    text = open(dl.value.path(), encoding="utf-8").read()
    assert text.splitlines()[0].startswith("AOI,hit ratio") and len(text.splitlines()) == 3
    _no_exception(page)
