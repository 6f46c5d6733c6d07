"""AppTest: when the sidebar's fixation table changes, the Areas of interest page moves off a stimulus the new table
has no fixations for (to the first one it has), as Heatmaps does, instead of showing 'no fixations for the
stimulus'."""
from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd
from PIL import Image

from tests.apptest import open_app, page_text

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/areas_of_interest.py"


def _png(width: int, height: int) -> bytes:
    """A plain grey PNG of this size."""
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (240, 240, 240)).save(buf, format="PNG")
    return buf.getvalue()


def _fixations() -> bytes:
    """Five observers' fixations on the uploaded image '1001.png' (800 × 600)."""
    rng = np.random.default_rng(8)
    rows = [(f"s{o}", "1001.png", rng.uniform(0, 800), rng.uniform(0, 600), 200.0) for o in range(5) for _ in range(8)]
    return pd.DataFrame(rows, columns=["subject", "image", "x", "y", "duration"]).to_csv(index=False).encode()


def test_the_stimulus_follows_a_new_fixation_table() -> None:
    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("image").run()
    at.file_uploader(key="uploader_image").set_value(("1001.png", _png(800, 600), "image/png")).run()
    at.button[0].click().run()
    at.radio(key="upload_kind").set_value("fixations").run()
    at.file_uploader(key="uploader_fixations").set_value(("fix.csv", _fixations(), "text/csv")).run()
    [b for b in at.button if b.label == "Use this data"][0].click().run()
    assert not at.exception, at.exception
    at.switch_page(PAGE).run()
    assert at.selectbox(key="aoi_stimulus").value == "1001.png" and "5 observers" in page_text(at)
    # The sidebar goes back to the bundled fixations: none of them is on '1001.png'.
    at.sidebar.selectbox(key="sel_fixations").set_value(at.sidebar.selectbox(key="sel_fixations").options[0]).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    box = at.selectbox(key="aoi_stimulus")
    assert box.value == box.options[0] != "1001.png" and "40 observers" in page_text(at)
    # Back to the upload from a bundled stimulus: its own stimulus is chosen.
    at.selectbox(key="aoi_stimulus").set_value("portrait").run()
    at.sidebar.selectbox(key="sel_fixations").set_value("Upload: fix.csv").run()
    assert at.selectbox(key="aoi_stimulus").value == "1001.png" and not at.error
