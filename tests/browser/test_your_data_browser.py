"""A real recording through the real upload widget: OSIE's gzip fixation table and one of its images reach a
rendered heatmap. Read from ../shared/realdata by path (skipped with a reason when absent), sent from memory.

(The other real files go through the same page in tests/test_io_page.py and tests/test_read_recording_real.py;
one browser run is kept here to hold the whole suite's time budget.)"""
from __future__ import annotations

from pathlib import Path

import pytest

import harness

pytestmark = pytest.mark.browser
REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
needs_realdata = pytest.mark.skipif(not REALDATA.is_dir(), reason=f"real recordings not found at {REALDATA}")


def _kind(page, label: str) -> None:
    """Choose what is being uploaded."""
    page.get_by_text(label, exact=True).click()
    harness.wait_idle(page)


def _send(page, name: str, data: bytes, mime: str) -> None:
    """Send a file through the real file input and wait for the page to settle."""
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": mime, "buffer": data}])
    harness.wait_idle(page)


def _use(page, button: str, name: str) -> None:
    """Press the button and wait for the success message naming the file; no exception box."""
    page.get_by_role("button", name=button).wait_for(timeout=60_000)
    page.get_by_role("button", name=button).click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=name).wait_for(timeout=90_000)
    harness.wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0


def _nav(page, title: str) -> None:
    """Move within the same session."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    harness.wait_idle(page)


def _chart(page) -> None:
    """No exception box, and a Plotly chart drawn."""
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)


@needs_realdata
def test_osie_gzip_fixations_and_image_reach_a_heatmap(page, app_url, shots):
    """OSIE: the .csv.gz fixation table (98k fixations, 15 observers) and one stimulus -> a heatmap."""
    page.goto(f"{app_url}/your_data")
    harness.wait_idle(page)
    assert page.get_by_text("200 MB per upload").count() >= 1
    _kind(page, "Stimulus image (PNG/JPEG)")
    _send(page, "1001.jpg", (REALDATA / "osie" / "stimuli_subset" / "1001.jpg").read_bytes(), "image/jpeg")
    _use(page, "Use this image", "1001.jpg")
    _kind(page, "Fixations (CSV/TSV)")
    _send(page, "osie_fixations.csv.gz", (REALDATA / "osie" / "osie_fixations.csv.gz").read_bytes(),
          "application/gzip")
    _use(page, "Use this data", "osie_fixations.csv.gz")
    _nav(page, "Heatmaps")
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Stimulus").first.click()
    page.get_by_role("option", name="1001.jpg", exact=True).click()
    harness.wait_idle(page)
    _chart(page)
    assert page.get_by_text("15 observers").count() >= 1
    harness.screenshot(page, str(shots / "your_data_osie_heatmap.png"))
