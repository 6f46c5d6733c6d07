"""Uploads made usable by every view: fixations detected in raw gaze (eyedp_core.data.derived), blank canvases for
stimuli without an uploaded image, and both reaching the Heatmaps page (AppTest) without a change there."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.data import bundled, derived
from eyedp_core.gaze.events import detect_events
from eyedp_core.io import derive
from tests.apptest import page_text, upload_file, use_data


def test_fixations_from_gaze_match_the_event_detector_and_describe_the_derivation():
    """Every finite fixation event of detect_events becomes one row (observer, x, y, duration, start, end); the
    description names method, thresholds, screen and counts."""
    g = bundled.load_sample("gaze_streams")
    fix, how = derive.fixations_from_gaze(g, bundled.SAMPLE_SCREEN, "ivt", velocity_threshold_deg_s=40.0)
    ev = detect_events(g, bundled.SAMPLE_SCREEN, "ivt", velocity_threshold_deg_s=40.0, min_fixation_ms=60.0)
    want = ev[(ev["type"] == "fixation") & ev["x"].notna()]
    assert len(fix) == len(want) == how.fixations and how.samples == len(g) and how.people == 10
    assert list(fix.columns) == ["observer", "x", "y", "duration_ms", "t_start_s", "t_end_s"]
    np.testing.assert_allclose(fix["x"], want["x"]) and np.testing.assert_allclose(fix["duration_ms"],
                                                                                   want["duration_ms"])
    text = how.describe()
    assert "I-VT" in text and "velocity threshold (°/s) 40" in text and f"{len(fix):,} fixations" in text
    assert "1280 × 800 px" in text
    idt, how_idt = derive.fixations_from_gaze(g, bundled.SAMPLE_SCREEN, "idt", dispersion_threshold_deg=1.5)
    assert how_idt.method == "idt" and len(idt) > 100 and len(idt) != len(fix)
    # The result is a valid fixation table for the upload checks.
    io.apply_mapping(fix, {c: c for c in ("observer", "x", "y", "duration_ms")}, "fixations", "derived")


def test_fixations_from_gaze_refuses_bad_input_with_data_errors():
    """Unknown method or threshold, non-positive thresholds, missing columns, time going backwards: DataError."""
    g = bundled.load_sample("gaze_streams").iloc[:2000]
    geo = io.PRESETS["desktop_24"]
    with pytest.raises(io.DataError, match="unknown event detection"):
        derive.fixations_from_gaze(g, geo, "hmm")
    with pytest.raises(io.DataError, match="unknown threshold"):
        derive.fixations_from_gaze(g, geo, "ivt", dispersion_threshold_deg=1.0)
    with pytest.raises(io.DataError, match="positive"):
        derive.fixations_from_gaze(g, geo, "ivt", velocity_threshold_deg_s=-3)
    with pytest.raises(io.DataError, match="lacks the column") as err:
        derive.fixations_from_gaze(g.drop(columns=["t_s"]), geo)
    assert err.value.column == "t_s"
    back = g.copy()
    back.loc[back.index[5], "t_s"] = 0.0
    with pytest.raises(io.DataError, match="strictly increase: t_s goes backwards at row 5"):
        derive.fixations_from_gaze(back, geo)


def test_fixations_from_a_recording_use_its_geometry():
    """read_recording result -> detected fixations on the recording's geometry (GazeBase-style degrees)."""
    t = np.arange(3000) / 500
    x = np.repeat(np.linspace(-10, 10, 15), 200)
    df = pd.DataFrame({"n": t * 1000, "x": x, "y": 0.0 * x})
    rec = io.read_recording(df.to_csv(index=False).encode(), filename="deg.csv", geometry="desktop_24", options=io.ReadOptions(units="deg"))
    fix, how = rec.detect_fixations()
    assert 13 <= len(fix) <= 15 and how.geometry.width_px == 1920
    assert np.all(np.diff(fix["x"].to_numpy()) > 0)  # left to right, as the gaze stepped


def test_blank_canvas_is_a_read_only_view_and_the_extent_holds_every_fixation():
    """The canvas costs one pixel of memory; the extent is the smallest canvas from (0, 0) with every fixation."""
    c = derived.blank_canvas(800, 600)
    assert c.shape == (600, 800, 3) and c.dtype == np.uint8 and not c.flags.writeable
    assert c.strides == (0, 0, 1) and tuple(c[5, 7]) == derived.BLANK_RGB
    with pytest.raises(io.DataError, match="px per side"):
        derived.blank_canvas(0, 10)
    f = pd.DataFrame({"x": [0.0, 799.4, np.nan], "y": [10.0, 599.9, 3.0]})
    assert derived.data_extent(f) == (800, 600)
    assert derived.stimuli_without_images(pd.DataFrame({"stimulus": ["a.jpg", "b", "c", "b"]}),
                                          ["a", "c.png"]) == ["b"]
    assert derived.stimuli_without_images(pd.DataFrame({"x": [1]}), ["a"]) == []


def _fixations_csv(n_obs: int = 4, stimuli=("1001.jpg", "1002.jpg")) -> bytes:
    rng = np.random.default_rng(3)
    rows = [(f"s{o}", s, rng.uniform(0, 790), rng.uniform(0, 590), rng.uniform(100, 400))
            for o in range(n_obs) for s in stimuli for _ in range(12)]
    return pd.DataFrame(rows, columns=["subject", "image", "x", "y", "duration"]).to_csv(index=False).encode()


def test_uploaded_fixations_without_images_reach_the_heatmaps_page_on_a_blank_canvas():
    """Every stimulus of an uploaded fixation table is offered on Heatmaps; one without an image is drawn on a
    blank canvas of the size given on Your data (by default the screen declared with the upload, a public size,
    never the data's extent)."""
    at = upload_file("fixations", "osie_like.csv", _fixations_csv())
    use_data(at)
    w = [n for n in at.number_input if n.key and n.key.startswith("yd_canvas_w_")][0]
    h = [n for n in at.number_input if n.key and n.key.startswith("yd_canvas_h_")][0]
    assert (w.value, h.value) == (1920, 1080)  # the declared screen (the default preset), not the data's extent
    w.set_value(800).run()
    h.set_value(600).run()
    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    stim = at.selectbox(key="hm_stimulus")
    assert stim.options[:2] == ["1001.jpg", "1002.jpg"]  # the file's own stimuli first, so the page opens on one
    assert stim.value == "1001.jpg" and "'1001.jpg' (800 × 600 px)" in page_text(at)
    stim.set_value("1002.jpg").run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "4 observers" in text and "'1002.jpg' (800 × 600 px)" in text and "stimulus = '1002.jpg'" in text


def test_uploaded_gaze_becomes_fixations_for_the_heatmaps_page():
    """A generic gaze upload gets I-VT fixations as a fixation table in the sidebar (with the derivation shown
    there and on Your data), and the Heatmaps page renders them on a blank canvas."""
    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02", "P03"])][["participant", "t_s", "x", "y"]]
    at = upload_file("gaze", "gaze.csv", g.to_csv(index=False).encode())
    assert at.checkbox(key="yd_detect").value
    at.number_input(key="yd_detect_velocity_threshold_deg_s").set_value(35.0).run()
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    # The message names the source file and the step that made the table.
    assert "Fixations derived from 'gaze.csv' (I-VT step): " in ok, ok
    assert "\\`" not in ok and "`" not in ok, ok  # no escaped backtick printed as a literal one
    assert "Added as 'Upload: gaze.csv (fixations, IVT)'" in ok, page_text(at)
    assert at.sidebar.selectbox(key="sel_fixations").value == "Upload: gaze.csv (fixations, IVT)"
    side = " ".join(c.value for c in at.sidebar.caption)
    assert "derived from" in side and "(I-VT step)" in side
    assert "velocity threshold (°/s) 35" in page_text(at)
    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    stim = at.selectbox(key="hm_stimulus")
    blank = "gaze.csv (fixations, IVT) (blank canvas)"
    assert blank in stim.options
    stim.set_value(blank).run()
    assert not at.exception, at.exception
    assert "3 observers" in page_text(at)


def test_uploaded_text_label_reaches_the_attacks_task_list():
    """A feature table's text column (here 'passage') is kept as a label on Your data and offered as a task on
    the Attacks page, next to re-identification."""
    rng = np.random.default_rng(5)
    parts = [pd.DataFrame({"participant": p, "window": np.arange(40), "fix_dur": rng.normal(200 + 10 * i, 5, 40),
                           "sacc_amp": rng.normal(3 + i % 2, 0.2, 40), "passage": ["dickens", "flytrap"][i % 2]})
             for i, p in enumerate(["a", "b", "c", "d"])]
    at = upload_file("features", "feat.csv", pd.concat(parts).to_csv(index=False).encode())
    labels = [m for m in at.multiselect if m.key and m.key.startswith("map_features_labels_")][0]
    assert labels.value == ["passage"]
    use_data(at)
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    assert "passage" in at.multiselect(key="at_tasks").options
