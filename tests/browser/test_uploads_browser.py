"""Uploads in the real browser: an image and a fixation CSV drive Heatmaps, a feature CSV drives Time series."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from PIL import Image

import harness

pytestmark = pytest.mark.browser


def _upload(page, kind_label: str, name: str, data: bytes, mime: str, button: str,
            mapping: dict[str, str] | None = None) -> None:
    """On Your data: choose the kind, send the file through the real file input, map columns, press the button."""
    page.get_by_text(kind_label, exact=True).click()
    harness.wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(  # the data uploader, not the settings one
        files=[{"name": name, "mimeType": mime, "buffer": data}])
    page.get_by_role("button", name=button).wait_for(timeout=30_000)
    harness.wait_idle(page)
    for role, col in (mapping or {}).items():
        harness.choose_option(page, role, col)
    page.get_by_role("button", name=button).click()
    _accepted(page, name)


def _accepted(page, name: str) -> None:
    """Wait for the success message (the button's run ends in st.rerun, so idle alone can come too early)."""
    ok = page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=name)
    ok.wait_for(timeout=30_000)
    harness.wait_idle(page)
    assert page.locator('[data-testid="stException"]').count() == 0


def _nav(page, title: str) -> None:
    """Move within the same session (a page.goto would start a new one and lose the uploads)."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    harness.wait_idle(page)


def _healthy(page) -> None:
    harness.figure_drawn(page, 30_000)


def _healthy_preview(page) -> None:
    harness.figure_drawn(page, 30_000, picture_only=True)


def test_uploaded_image_and_fixations_drive_the_heatmaps(page, app_url, shots):
    """A drawn PNG and a fixation CSV on it become the stimulus and data of the Heatmaps page."""
    w, h = 640, 400
    img = np.full((h, w, 3), 235, np.uint8)
    img[100:300, 80:260] = (40, 90, 160)  # a block the fixations cluster on
    png = io.BytesIO()
    Image.fromarray(img).save(png, format="PNG")
    rng = np.random.default_rng(3)
    fix = pd.DataFrame({"viewer": np.repeat([f"v{i}" for i in range(12)], 15),
                        "px": np.clip(rng.normal(170, 40, 180), 0, w - 1),
                        "py": np.clip(rng.normal(200, 40, 180), 0, h - 1),
                        "dur": rng.uniform(100, 400, 180)})
    harness.goto(page, f"{app_url}/your_data")
    _upload(page, "Stimulus image (PNG/JPEG)", "blocks.png", png.getvalue(), "image/png", "Use this image")
    _upload(page, "Fixations (CSV/TSV)", "viewers.csv", fix.to_csv(index=False).encode(), "text/csv",
            "Use this data", {"x *": "px", "y *": "py"})
    _nav(page, "Heatmaps")
    harness.choose_option(page, "Stimulus", "blocks.png")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stImage"] img', timeout=30_000)  # the overlays
    harness.at_least(page.get_by_text("12 observers"), 1, "the observer count")
    harness.screenshot(page, str(shots / "heatmaps_uploaded.png"))


def test_uploaded_feature_csv_drives_the_time_series(page, app_url, shots):
    """A feature table with its own participant column name is mapped and plotted."""
    rng = np.random.default_rng(4)
    t = 200
    walk = np.cumsum(rng.normal(0, 0.02, (3, t)), axis=1) + 0.3
    feats = pd.DataFrame({"person": np.repeat(["a", "b", "c"], t), "fix_rate_hz": (3 + walk).ravel(),
                          "blink_rate_per_min": (15 + 10 * walk).ravel()})
    harness.goto(page, f"{app_url}/your_data")
    page.get_by_text("Feature windows (CSV/TSV)", exact=True).click()
    harness.wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(  # the data uploader, not the settings one
        files=[{"name": "feats.csv", "mimeType": "text/csv", "buffer": feats.to_csv(index=False).encode()}])
    harness.wait_idle(page)
    harness.choose_option(page, "participant", "person")
    page.get_by_role("button", name="Use this data").click()
    _accepted(page, "feats.csv")
    _nav(page, "Time series")
    _healthy_preview(page)
    harness.move_slider(page)
    _healthy_preview(page)
    harness.screenshot(page, str(shots / "time_series_uploaded.png"))
