"""Time series on the feature table the app makes from fixations (AppTest): 40 participants × 3 recordings, no
task column, recordings 7 windows long. The release forms count all 3 recordings per person (Δ₁ = 3·F for the
per-recording summaries, F/40 for the group means, as the main accounting's 3 recordings), every suggested ε
carries the private-data caveat, and T = the longest recording (7) runs every view without an error."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.timeseries.signals import feature_columns
from tests.apptest import page_text
from tests.core.timeseries.app_made import feature_windows
from ui.state import Dataset

ROOT = Path(__file__).resolve().parents[2]
NAME = "Upload: fixations.csv (feature windows, 10 s)"
CAVEAT = "read from the private data"


@pytest.fixture(scope="module")
def table():
    return feature_windows(40, 3)


def _page(table) -> AppTest:
    """A fresh session on Time series with the app-made table selected and T = the longest recording ticked."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    ds = Dataset("features", NAME, "upload", f"test:app-made:{len(table)}", table)
    at.session_state["eyedp_uploads"] = {"features": {NAME: ds}, "fixations": {}, "gaze": {}, "image": {}}
    at.session_state["sel_features"] = NAME
    at.run()
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    box = at.checkbox(key="ts_length_from_data")
    assert box.label == "Use the longest (7)"
    box.check().run()
    assert not at.exception, at.exception
    return at


def test_release_forms_count_all_three_recordings_and_state_the_caveat_beside_every_suggested_epsilon(table):
    at = _page(table)
    hint = re.search(r"Or release [^\n]*", page_text(at))  # the headline repeats the smallest suggested ε
    assert hint and CAVEAT in hint.group(0), hint
    at.segmented_control(key="ts_panel").set_value("forms").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = page_text(at)
    assert "all 3 recordings" in text and "all 1 recording" not in text
    # The coarse-windows slider follows the data: at most T = 7 parts (it offered 10 of 2 … 60 and crashed).
    blocks = at.slider(key="ts_form_blocks")
    assert blocks.max == 7 and blocks.value == 7
    frame = next(t.value for t in at.table if "release form" in getattr(t.value, "columns", []))
    frame = getattr(frame, "data", frame)  # a Styler: its frame
    released = [c for c in feature_columns(table) if np.isfinite(table[c].to_numpy(float)).all()]
    f = len(released)
    sens = dict(zip(frame["release form"], frame["Δ₁ (ranges)"]))
    assert sens["per-recording summaries — all released features"] == pytest.approx(3 * f)
    assert sens["per-recording summaries, 7 coarse windows per recording — all released features"] == pytest.approx(21 * f)
    assert sens["group mean over all participants — all released features"] == pytest.approx(f / 40)
    assert sens["group mean over all participants — shown feature only"] == pytest.approx(1 / 40)
    assert "participants per task" not in text
    # The caveat sits beside the overall suggestion and the per-form list, not only inside the expander.
    outside = [m.value for m in at.markdown if "Smallest ε per person" in m.value or "No release form" in m.value]
    assert outside and CAVEAT in outside[0]
    listed = [m.value for m in at.markdown if "dB from ε =" in m.value or "usable now" in m.value]
    assert listed and all(CAVEAT in m for m in listed)
    # The main accounting counts the same 3 recordings per participant.
    assert "× 3 recordings" in text


def test_every_view_runs_at_the_longest_recording_of_seven_windows(table):
    """'Use the longest (7)': each of the More views opens without an error box or exception."""
    at = _page(table)
    for panel in ("utility", "k", "corr", "acct", "steil", "table", "forms", "ab"):
        at.segmented_control(key="ts_panel").set_value(panel).run()
        assert not at.exception, (panel, at.exception)
        assert not at.error, (panel, [e.value for e in at.error])
    text = page_text(at)
    assert "T = 7 windows" in text


def test_the_useless_headline_points_at_the_release_form_usable_at_a_large_epsilon(table):
    """At ε = 10⁴ per person the full series stays useless here; the headline names the release form that is
    usable at that ε, says what 0 dB means and carries the private-data caveat."""
    at = _page(table)
    at.select_slider(key="ts_eps").set_value(10000.0).run()
    assert not at.exception, at.exception
    hint = re.search(r"Or release (.+?): it reaches 0 dB from ε ≈ ([0-9.e+]+) per person([^\n]*)", page_text(at))
    assert hint, page_text(at)[:3000]
    assert float(hint.group(2)) <= 10000 and "— usable at your ε = 10,000" in hint.group(3)
    assert "0 dB: noise as large as the spread between people" in hint.group(3) and CAVEAT in hint.group(3)
