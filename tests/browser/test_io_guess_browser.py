"""Your data in a real browser on two fixation shapes the bundled sample does not have: a table whose first
5,000 rows make an index look like the stimulus (the page pre-selects the file-name column the library picks),
and a table without durations (it loads with no error box, and feature windows are not offered)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import harness
from tests.core.io.test_guess_whole_file import misleading_fixations

pytestmark = pytest.mark.browser
MAIN = '[data-testid="stMain"]'


def _send(page, name: str, data: bytes) -> None:
    """Send a file through the data uploader (not the settings one) and wait for the page to settle."""
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}])
    harness.wait_idle(page)


def _use(page, name: str) -> None:
    """Press 'Use this data' and wait for the success message naming the file; no exception box."""
    page.get_by_role("button", name="Use this data").click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=name).wait_for(timeout=90_000)
    harness.wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0


def _fixations(page, app_url: str) -> None:
    """A fresh session on Your data with 'Fixations' chosen."""
    harness.goto(page, f"{app_url}/your_data")
    page.get_by_text("Fixations (CSV/TSV)", exact=True).click()
    harness.wait_idle(page)


def test_whole_file_stimulus_guess_and_fixations_without_durations(page, app_url, shots):
    _fixations(page, app_url)
    _send(page, "fix.csv", misleading_fixations())
    stimulus = page.locator(f'{MAIN} [data-testid="stSelectbox"] input[role="combobox"][aria-label="stimulus"]')
    harness.until(page, lambda: stimulus.first.input_value() == "filename", "the file-name column pre-selected")
    harness.at_least(page.get_by_text("'filename' was chosen for the stimulus, not 'image_index'"), 1, "the reason")
    _use(page, "fix.csv")
    rng = np.random.default_rng(0)
    bare = pd.DataFrame({"observer": np.repeat(["a", "b", "c"], 20), "image": np.tile(["i1.jpg", "i2.jpg"], 30),
                         "x": rng.uniform(10, 800, 60).round(1), "y": rng.uniform(10, 600, 60).round(1)})
    _fixations(page, app_url)
    _send(page, "nodur.csv", bare.to_csv(index=False).encode())
    _use(page, "nodur.csv")
    harness.at_least(page.get_by_text("No feature windows from this table"), 1, "the sentence on durations")
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    harness.screenshot(page, str(shots / "your_data_guess_and_no_durations.png"))
