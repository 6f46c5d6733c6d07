"""Hostile uploads through the real file input on Your data: each ends in its message in words, with no exception
box and no error id; the integers wider than 64 bits are previewed (Arrow) with a warning naming the column."""
from __future__ import annotations

import pytest

import harness
from tests.app.test_io_hostile import WIDE, csv_bomb

pytestmark = pytest.mark.browser


def _send(page, app_url: str, kind: str, name: str, data: bytes) -> None:
    """A fresh Your data page, `kind` chosen, `data` sent through the file input; the page settled."""
    harness.goto(page, f"{app_url}/your_data")
    page.get_by_text(kind, exact=True).click()
    harness.wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}])
    harness.wait_idle(page, 120_000)


@pytest.mark.parametrize("name, data, shown", [
    ("field.csv", b"a," + b"x" * 200_000 + b"\n1,2\n", "row 1: a field on this line is longer than 131,072 characters"),
    ("line.csv", b"t,x,y\n1,2," + b"3" * 2_000_000 + b"\n", "row 2: this line is longer than 1,000,000 bytes"),
    ("sep.csv", "t,x,y\u20281,2,3\u20282,3,4\u2028".encode(), "the first line holds the character U+2028"),
    ("bomb.csv.gz", csv_bomb(isize=1000), "expands to more than 1,000 MB once decompressed"),
], ids=["long_field", "long_line", "u2028", "gzip_bomb"])
def test_hostile_upload_shows_its_message(page, app_url, name, data, shown):
    """The DataError is shown in the page's error box, naming the file. A gzip bomb whose trailer understates its
    size is previewed from its head (the format peek reads no further); 'Use this data' refuses it."""
    _send(page, app_url, "Raw gaze samples (CSV/TSV)", name, data)
    if name == "bomb.csv.gz":
        page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
        page.get_by_role("button", name="Use this data").click()
        harness.wait_idle(page, 120_000)
    box = page.locator('[data-testid="stAlertContentError"]').filter(has_text=shown)
    box.wait_for(timeout=60_000)
    assert name in box.first.inner_text()
    harness.no_crash(page)


def test_wide_integers_are_previewed_with_a_warning(page, app_url):
    """The wide-integer table draws its preview grid and says which column was read as decimal numbers."""
    _send(page, app_url, "Raw gaze samples (CSV/TSV)", "wide.csv", WIDE)
    page.get_by_text("column 'x' holds whole numbers too wide for 64 bits", exact=False).first.wait_for(
        timeout=60_000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=60_000)
    harness.no_crash(page)


def test_page_states_the_cap_next_to_the_uploader(page, app_url):
    """The words under the uploader give the cap in bytes and what happens above it."""
    harness.goto(page, f"{app_url}/your_data")
    page.get_by_text("Files up to 200 MB (200,000,000 bytes). A larger file is refused by your browser",
                     exact=False).first.wait_for(timeout=30_000)
