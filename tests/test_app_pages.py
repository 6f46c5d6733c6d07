"""Every page run headless with Streamlit's AppTest, on the bundled samples and on uploads."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from conftest import ROOT

PAGES = ["pages/home.py", "pages/heatmaps.py", "pages/time_series.py", "pages/attacks.py",
         "pages/gaze_samples.py", "pages/report.py", "pages/your_data.py"]


def _app() -> AppTest:
    """A fresh app session, run once on the home page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    """Everything the page wrote as markdown, captions, titles and alerts, joined."""
    parts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption", "info", "error",
                                  "success", "warning") for e in getattr(at, kind)]
    return "\n".join(map(str, parts))


@pytest.mark.parametrize("path", PAGES)
def test_page_runs_on_sample_data(path):
    """Each page renders without an exception and shows its title."""
    at = _app()
    at.switch_page(path).run()
    assert not at.exception, at.exception
    assert at.title, f"{path} shows no title"


def test_home_explains_epsilon_and_lists_data():
    """The home page explains ε with the odds reading and lists the loaded samples."""
    at = _app()
    text = _text(at)
    assert "e^ε" in text and "odds" in text
    assert "Sample: reading features" in at.dataframe[0].value["dataset"].tolist()
    # Moving ε changes the odds metric to e^ε of the new value.
    at.select_slider(key="home_eps").set_value(3.0).run()
    odds = [m for m in at.metric if m.label == "Odds factor e^ε"][0]
    assert float(odds.value) == pytest.approx(np.exp(3.0), rel=1e-2)


def _upload_features(at: AppTest, csv: bytes, name: str = "mine.csv") -> AppTest:
    """Go to Your data, choose feature windows, upload csv bytes."""
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("features").run()
    at.file_uploader(key="uploader_features").set_value((name, csv, "text/csv")).run()
    return at


def test_feature_upload_is_selected_and_used_by_pages():
    """An uploaded feature CSV becomes the sidebar selection and the Time series page uses it."""
    rng = np.random.default_rng(1)
    n = 60
    df = pd.DataFrame({"pid": np.repeat(["a", "b"], n), "blink_rate": rng.uniform(0, 1, 2 * n),
                       "fix_mean": rng.uniform(100, 300, 2 * n)})
    at = _upload_features(_app(), df.to_csv(index=False).encode())
    assert not at.exception, at.exception
    at.selectbox(key="map_features_participant").set_value("pid").run()
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "loaded (120 rows)" in _text(at)
    assert at.sidebar.selectbox(key="sel_features").value == "Upload: mine.csv"
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert set(at.selectbox(key="ts_participant").options) == {"a", "b"}


def test_bad_feature_upload_names_file_row_and_column():
    """A non-numeric feature value gives a message with the file, the row and the column."""
    csv = b"participant,blink_rate\np1,0.2\np1,abc\np2,0.3\n"
    at = _upload_features(_app(), csv, "bad.csv")
    at.selectbox(key="map_features_participant").set_value("participant").run()
    at.button[0].click().run()
    assert not at.exception
    err = " ".join(e.value for e in at.error)
    assert "bad.csv" in err and "blink_rate" in err and "3" in err


def test_non_image_upload_is_refused_clearly():
    """A text file posing as a PNG is refused with a message naming it."""
    at = _app()
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("image").run()
    at.file_uploader(key="uploader_image").set_value(("stim.png", b"not an image at all", "image/png")).run()
    assert not at.exception
    assert "stim.png" in " ".join(e.value for e in at.error)
