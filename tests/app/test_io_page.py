"""The Your data page (AppTest): gzip uploads, dropping rows with empty cells, leaving columns out, the geometry
form, EyeLink ASC uploads, the stated upload cap, and the error guard (short message + error id, nothing logged
from the upload)."""
from __future__ import annotations

import gzip
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.apptest import open_app, page_text, upload_file, use_data

FIX = Path(__file__).resolve().parents[1] / "fixtures"




def test_page_states_the_upload_cap():
    """The page says how large an upload may be (the config.toml cap) and that library reads have no limit."""
    at = open_app("pages/your_data.py")
    text = page_text(at)
    assert "200 MB per upload" in text and "maxUploadSize" in text and "no limit" in text
    assert "{io." not in text and "rows and 5,000 columns per table" in text  # every number filled in


def test_gzip_fixations_with_empty_cells_are_dropped_and_counted():
    """A .csv.gz fixation table with empty positions loads; the dropped rows are counted in the message."""
    csv = b"observer,x,y,duration_ms,display_duration_ms\n" + b"".join(
        f"o{i % 3},{100 + i},{200 + i},{150 + i},32000\n".encode() for i in range(30)) + b"o1,,,120,32000\n"
    at = upload_file("fixations", "fix.csv.gz", gzip.compress(csv))
    assert at.selectbox(key="map_fixations_duration_ms").value == "duration_ms"
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    assert "fix.csv.gz loaded (30 rows" in ok and "dropped missing: 1" in ok
    assert at.sidebar.selectbox(key="sel_fixations").value == "Upload: fix.csv.gz"


def test_leaving_a_mostly_empty_feature_column_out():
    """A feature column that is mostly empty can be left out; the rest loads without dropping rows."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"participant": np.repeat(["a", "b", "c"], 20), "fix_dur": rng.uniform(150, 250, 60),
                       "blink_dur": np.where(np.arange(60) % 10 == 0, 80.0, np.nan)})
    at = upload_file("features", "feat.csv", df.to_csv(index=False).encode())
    at.multiselect(key=[m.key for m in at.multiselect if m.key.startswith("leave_out_")][0]).set_value(
        ["blink_dur"]).run()
    at.checkbox(key="drop_missing_features").uncheck().run()
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    assert "feat.csv loaded (60 rows" in ok, page_text(at)


def test_degree_recording_through_the_geometry_form():
    """Degrees with the geometry form: units 'deg' and a preset screen turn them into pixels."""
    t = np.arange(600) * 1000 / 60
    df = pd.DataFrame({"t_ms": t, "x": 5 * np.sin(t / 500), "y": 3 * np.cos(t / 700)})
    at = upload_file("gaze", "deg.csv", df.to_csv(index=False).encode())
    geo_units = [r for r in at.radio if r.key and r.key.startswith("geo_units_gaze_")][0]
    geo_units.set_value("deg").run()
    use_data(at)
    assert "deg.csv loaded (600 rows" in " ".join(s.value for s in at.success), page_text(at)


def test_eyelink_asc_upload_adds_samples_and_fixations():
    """An ASC file uploaded as gaze is read by the EyeLink reader; its fixations are added too."""
    at = upload_file("gaze", "s01.asc", (FIX / "eyelink_binocular.asc").read_bytes())
    assert "EyeLink ASC file" in page_text(at)
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    assert "s01.asc loaded (60 rows" in ok and "2 fixations were added" in ok
    assert at.sidebar.selectbox(key="sel_fixations").value == "Upload: s01.asc (fixations)"


def test_an_unexpected_error_is_a_short_message_with_an_id_and_logs_no_content(monkeypatch, caplog):
    """A bug (not a DataError) shows 'Something went wrong (error id …)'; the log has the id and type only."""

    monkeypatch.delenv("EYEDP_RAISE_ERRORS", raising=False)  # the user's view: the friendly message

    def boom(*args, **kwargs):
        """Stand-in for a bug whose message quotes uploaded content."""
        raise RuntimeError("secret-cell-content P01")

    from eyedp_core.io import pipeline

    monkeypatch.setattr(pipeline, "canonical_table", boom)  # the map and validate steps
    csv = b"participant,t_ms,x,y\nP01,0,100,100\nP01,4,101,101\n"
    at = upload_file("gaze", "g.csv", csv)
    with caplog.at_level(logging.ERROR, logger="eyedp.errors"):
        use_data(at)
    err = " ".join(e.value for e in at.error)
    assert "Something went wrong (error id" in err and "secret" not in err
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "RuntimeError" in logged and "error id" in logged and "secret" not in logged and "P01" not in logged


@pytest.mark.parametrize("name, data, match", [
    ("wide.csv", b",".join(b"c%d" % i for i in range(6000)) + b"\n" + b",".join([b"1"] * 6000) + b"\n",
     "6,000 columns"),
    ("s1.edf", b"SR_RESEARCH_1000FILE\n" + bytes(range(256)), "edf2asc"),
], ids=["too-many-columns", "edf-binary"])
def test_bad_uploads_end_in_a_message_not_an_exception_box(name, data, match):
    """Too many columns or an EDF binary: a DataError message on the page."""
    at = upload_file("gaze", name, data)
    assert match in " ".join(e.value for e in at.error)


def test_tobii_pro_lab_export_is_recognised_and_its_fixations_added():
    """A Pro Lab TSV (BOM, CRLF, decimal commas) goes through the Tobii reader; its fixations are added too."""
    at = upload_file("gaze", "prolab.tsv", (FIX / "tobii_prolab_binocular.tsv").read_bytes())
    assert at.toggle(key="use_reader").value and at.selectbox(key="map_gaze_t_s").value.startswith("Recording")
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    assert "prolab.tsv loaded (40 rows" in ok and "4 fixations were added" in ok


def test_pupil_labs_gaze_uses_the_confidence_slider_and_the_geometry():
    """Normalised Pupil gaze: units preset to 'norm', converted with the chosen screen; low confidence counted."""
    at = upload_file("gaze", "gaze_positions.csv", (FIX / "pupil_gaze_positions.csv").read_bytes())
    assert at.slider(key="min_confidence").value == pytest.approx(0.6)
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    assert "gaze_positions.csv loaded (50 rows" in ok and "low confidence: 5" in ok


def test_a_fragment_carries_the_error_guard_on_its_own(monkeypatch, caplog):
    """A bug inside a ui.fragment (whose own re-runs happen outside app.py's guard) is the short message too."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv("EYEDP_RAISE_ERRORS", raising=False)

    def script() -> None:
        from ui.fragment import fragment

        @fragment
        def panel() -> None:
            raise RuntimeError("secret-cell-content P01")

        panel()

    at = AppTest.from_function(script, default_timeout=60)
    with caplog.at_level(logging.ERROR, logger="eyedp.errors"):
        at.run()
    assert not at.exception, at.exception
    err = " ".join(e.value for e in at.error)
    assert "Something went wrong (error id" in err and "secret" not in err
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "RuntimeError" in logged and "secret" not in logged
