"""Real files in ../shared/realdata through the real upload widget, to the pages they apply to.

Files are read by path (skipped with a reason when shared/ is absent) and sent from memory. Per file, with at most
the "Use this data" click:
- osie: fixations (.csv.gz) + one image -> a heatmap on the image; a stimulus without an image -> a blank canvas;
- sbsat: the trial feature table -> Time series and Attacks (its text labels offered as tasks);
- two raw gaze files sent together -> one upload of two recordings.
Every gaze-sample file (and the fixation exports) walks through all views, feature windows included, in
test_realdata_views_browser.py.
"""
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
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(  # the data uploader, not the settings one
        files=[{"name": name, "mimeType": mime, "buffer": data}])
    harness.wait_idle(page)


def _use(page, button: str, name: str) -> None:
    """Press the button and wait for the success message naming the file; no exception box."""
    page.get_by_role("button", name=button).wait_for(timeout=60_000)
    page.get_by_role("button", name=button).click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=name).wait_for(timeout=90_000)
    harness.wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0


def _nav(page, title: str, timeout_ms: float = 60_000) -> None:
    """Move within the same session."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    harness.wait_idle(page, timeout_ms)


def _preview(page) -> None:
    harness.figure_drawn(page, 60_000, picture_only=True)


def _heatmap(page) -> None:
    """No exception box, and the Heatmaps overlays drawn (the clean and noisy halves of one picture at display
    size, not Plotly charts)."""
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stImage"] img', timeout=60_000)
    harness.until(page, lambda: page.locator('[data-testid="stMain"] [data-testid="stImage"] img').first
                  .evaluate("i => i.complete && i.naturalWidth > 2 * i.naturalHeight"), "the paired overlays")


@needs_realdata
def test_osie_gzip_fixations_and_image_reach_a_heatmap(page, app_url, shots):
    """OSIE: the .csv.gz fixation table (98k fixations, 15 observers) and one stimulus -> a heatmap."""
    harness.goto(page, f"{app_url}/your_data")
    harness.at_least(page.get_by_text("200 MB per upload"), 1, "the upload cap")
    _kind(page, "Stimulus image (PNG/JPEG)")
    _send(page, "1001.jpg", (REALDATA / "osie" / "stimuli_subset" / "1001.jpg").read_bytes(), "image/jpeg")
    _use(page, "Use this image", "1001.jpg")
    _kind(page, "Fixations (CSV/TSV)")
    _send(page, "osie_fixations.csv.gz", (REALDATA / "osie" / "osie_fixations.csv.gz").read_bytes(),
          "application/gzip")
    _use(page, "Use this data", "osie_fixations.csv.gz")
    _nav(page, "Heatmaps")
    harness.choose_option(page, "Stimulus", "1001.jpg")
    _heatmap(page)
    _observers(page, 15)
    harness.screenshot(page, str(shots / "your_data_osie_heatmap.png"))


def _observers(page, n: int) -> None:
    """The Heatmaps page says how many observers it drew."""
    page.get_by_text(f"{n} observers").first.wait_for(timeout=60_000)


def _load(page, app_url: str, kind: str, name: str, data: bytes, mime: str) -> None:
    """A fresh session on Your data: choose the kind, send the file, press 'Use this data' (the one click)."""
    harness.goto(page, f"{app_url}/your_data")
    _kind(page, kind)
    _send(page, name, data, mime)
    _use(page, "Use this data", name)


@needs_realdata
def test_osie_stimulus_without_an_image_gets_a_blank_canvas(page, app_url, shots):
    """OSIE fixations alone: the file's first stimulus opens on Heatmaps, drawn on a canvas of the data's extent."""
    _load(page, app_url, "Fixations (CSV/TSV)", "osie_fixations.csv.gz",
          (REALDATA / "osie" / "osie_fixations.csv.gz").read_bytes(), "application/gzip")
    harness.at_least(page.get_by_text("have no uploaded image"), 1, "the canvas size form")  # on Your data
    harness.screenshot(page, str(shots / "your_data_osie_panel_1280.png"), width=1280)
    _nav(page, "Heatmaps")
    _heatmap(page)
    _observers(page, 15)
    harness.at_least(page.get_by_text("1001.jpg"), 1, "the stimulus name")
    harness.screenshot(page, str(shots / "heatmaps_osie_blank_1920.png"), width=1920)


@needs_realdata
def test_sbsat_features_reach_time_series_and_attacks(page, app_url, shots):
    """SB-SAT's trial report: rows with empty cells dropped and counted; Time series plots it, Attacks offers its
    text labels as tasks."""
    _load(page, app_url, "Feature windows (CSV/TSV)", "18sat_trialfinal.csv",
          (REALDATA / "sbsat" / "18sat_trialfinal.csv").read_bytes(), "text/csv")
    # Time series computes its utility sweep over 95 readers x 17 features (~45 s on a quiet 2-core machine).
    _nav(page, "Time series", timeout_ms=300_000)
    _preview(page)
    _nav(page, "Attacks", timeout_ms=180_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text("book_name").first.wait_for(timeout=120_000)  # a text label offered as a task
    harness.screenshot(page, str(shots / "attacks_sbsat.png"))


@needs_realdata
def test_lund_recordings_without_timestamps_kept_with_their_sampling_rate(page, app_url, shots):
    """Lund 2013: its 24 moving-dot trials have no timestamps; the page asks for their rate (only because they
    exist), and with 500 Hz every recording is kept, its time rebuilt, and the page says so."""
    harness.goto(page, f"{app_url}/your_data")
    _kind(page, "Raw gaze samples (CSV/TSV)")
    _send(page, "lund2013_samples.csv.gz", (REALDATA / "lund2013" / "lund2013_samples.csv.gz").read_bytes(),
          "application/gzip")
    rate = page.locator('[data-testid="stNumberInput"]',
                        has_text="Sampling rate for recordings without timestamps").locator("input").first
    rate.wait_for(timeout=60_000)
    rate.fill("500")
    rate.press("Enter")
    harness.wait_idle(page)
    _use(page, "Use this data", "lund2013_samples.csv.gz")
    ok = page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="lund2013_samples.csv.gz")
    assert "383,212 rows" in ok.inner_text() and "time rebuilt: 21,326" in ok.inner_text()
    page.get_by_text("Time rebuilt from 500 Hz for 24 recordings without timestamps (21,326 rows)").first.wait_for(
        timeout=30_000)
    harness.screenshot(page, str(shots / "your_data_lund_rate.png"))


def _gaze_csv(n: int, x0: float) -> bytes:
    rows = [f"{1000 + 4 * i},{x0 + (i % 40) * 3:.1f},{300 + (i % 25) * 2:.1f}" for i in range(n)]
    return ("time_ms,x,y\n" + "\n".join(rows) + "\n").encode()


def test_two_gaze_files_upload_at_once_as_two_recordings(page, app_url, shots):
    """Two raw gaze files sent together through the real uploader: listed as two recordings, read with the
    mapping made on the first, kept as one upload of two participants named by their files."""
    harness.goto(page, f"{app_url}/your_data")
    _kind(page, "Raw gaze samples (CSV/TSV)")
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[{"name": "P01.csv", "mimeType": "text/csv", "buffer": _gaze_csv(300, 200)},
               {"name": "P02.csv", "mimeType": "text/csv", "buffer": _gaze_csv(250, 600)}])
    harness.wait_idle(page)
    page.get_by_text("2 recordings").first.wait_for(timeout=60_000)
    _use(page, "Use this data", "2 files (P01.csv …)")
    ok = page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="2 files (P01.csv …)").inner_text()
    assert "loaded (550 rows" in ok, ok
    # The combine step's sentence, in the closed "What each step did" box.
    page.get_by_text("2 files read as one table of 2 recordings of 2 participants", exact=False).first.wait_for(
        state="attached", timeout=30_000)
    harness.screenshot(page, str(shots / "your_data_two_gaze_files.png"))
