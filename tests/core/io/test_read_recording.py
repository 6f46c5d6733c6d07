"""io.read_recording and io.Geometry on small fixtures written to the vendors' documented formats.

Fixtures (tests/fixtures): a Tobii Pro Lab sample export (TSV, UTF-8 BOM, CRLF, decimal commas, binocular,
validity codes, event rows), a Tobii Studio fixation export with a trailer row, an EyeLink ASC file
(binocular, '.' for missing samples, CRLF, events for both eyes), EyeLink Data Viewer sample and fixation
reports ('.' missing, trailing zero timestamps), Pupil Player gaze / fixations / surface exports (low
confidence, off-surface) and a Pupil Cloud gaze.csv (ns clock, worn, blinks), and a chart-task fixation table.
"""
from __future__ import annotations

import gzip
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest

from eyedp_core import io

FIX = Path(__file__).resolve().parents[2] / "fixtures"
SCENE = io.Geometry(1280, 720, 500.0, 281.25, 600.0, "scene camera")


def test_tobii_pro_lab_export_binocular_comma_decimals_bom_crlf():
    """Pro Lab TSV: μs clock, event rows dropped, both-eyes-invalid blanked, pupils of valid eyes averaged."""
    rec = io.read_recording(FIX / "tobii_prolab_binocular.tsv")
    samples, fmt = rec
    assert fmt == "tobii" and len(samples) == 40 and list(samples.columns)[:4] == ["participant", "t_s", "x", "y"]
    assert rec.counts["event_rows"] == 2 and rec.counts["invalid_validity"] == 1
    np.testing.assert_allclose(np.diff(samples["t_s"]), 0.008333, atol=1e-6)  # 120 Hz from a μs clock
    assert samples["x"].isna().sum() == 3 and samples["stimulus"].iloc[0] == "kitchen.jpg"
    assert 600 < samples["x"].iloc[0] < 700  # '640,0' read with a decimal comma
    # Sample 20: the left eye is marked Invalid (its 2,00 mm is not used): the pupil is the right eye's ~3.3 mm.
    assert samples["pupil"].iloc[20] > 3.1
    assert rec.fixations() is not None and len(rec.fixations()) == 4


def test_tobii_studio_fixation_export_with_trailer_row():
    """A Studio fixation export (per sample) collapses to one row per fixation; the trailer row is dropped."""
    rec = io.read_recording(FIX / "tobii_studio_fixations.tsv")
    fix, fmt = rec
    assert fmt == "tobii_fixations" and rec.kind == "fixations" and rec.counts["trailer_rows"] == 1
    assert len(fix) == 10 and set(fix["observer"]) == {"P01", "P02"}
    assert fix["duration_ms"].eq(200).all() and fix["t_start_s"].is_monotonic_increasing is not None
    assert fix.loc[fix["observer"] == "P01", "x"].tolist() == [150, 200, 250, 300, 350]


def test_eyelink_asc_binocular_with_missing_samples_and_events():
    """ASC: mean of the eyes that have data, '.' -> NaN, events of one eye, image name from IMGLOAD."""
    rec = io.read_recording(FIX / "eyelink_binocular.asc")
    s = rec.samples
    assert rec.format == "eyelink_asc" and rec.screen_px == (1920, 1080) and len(s) == 60
    assert s["x"].isna().sum() == 4 and s["stimulus"].eq("beach.png").all()
    assert s["x"].iloc[0] == pytest.approx(902.0) and s["x"].iloc[30] == pytest.approx(907.0)  # right eye only
    assert list(s["event"].iloc[20:24]) == ["blink"] * 4 and s["event"].iloc[0] == "fixation"
    fix = rec.fixations()
    assert len(fix) == 2 and fix["duration_ms"].tolist() == [40, 72] and fix["x"].iloc[0] == 905.0
    left = io.read_recording(FIX / "eyelink_binocular.asc", options=io.ReadOptions(eye="left"))
    assert left.samples["x"].iloc[0] == pytest.approx(900.0) and np.isnan(left.samples["x"].iloc[30])


def test_eyelink_data_viewer_sample_report_drops_zero_timestamps_and_xy_zero():
    """Sample report: '.' missing, x = y = 0 -> NaN, trailing timestamp-0 rows dropped and counted."""
    rec = io.read_recording(FIX / "eyelink_sample_report.txt")
    assert rec.format == "eyelink" and len(rec.samples) == 31
    assert rec.counts["zero_time_dropped"] == 2 and rec.counts["lost_xy_zero"] == 1
    assert rec.samples["x"].iloc[5] == pytest.approx(509.0)  # left eye missing: right eye alone


def test_eyelink_fixation_report():
    """Fixation report: CURRENT_FIX_* columns, start/end in ms; a '.' position is dropped and counted."""
    rec = io.read_recording(FIX / "eyelink_fixation_report.txt")
    assert rec.format == "eyelink_fixations" and len(rec.samples) == 9 and rec.counts["dropped_missing"] == 1
    assert rec.samples["t_end_s"].iloc[0] == pytest.approx(0.2)


def test_pupil_player_gaze_needs_geometry_and_sets_aside_low_confidence():
    """Normalised Pupil gaze: refused without a geometry; with one, y flipped and low confidence blanked."""
    with pytest.raises(io.DataError, match="need the screen geometry"):
        io.read_recording(FIX / "pupil_gaze_positions.csv")
    rec = io.read_recording(FIX / "pupil_gaze_positions.csv", geometry=SCENE)
    s = rec.samples
    assert rec.counts["low_confidence"] == 5 and s["x"].isna().sum() == 5
    assert s["x"].iloc[0] == pytest.approx(640) and s["y"].iloc[0] == pytest.approx(540)  # (0.5, 0.25) bottom-left
    lax = io.read_recording(FIX / "pupil_gaze_positions.csv", geometry=SCENE, options=io.ReadOptions(min_confidence=0.3))
    assert "low_confidence" not in lax.counts and lax.samples["x"].notna().all()
    with pytest.raises(io.DataError, match="every cell of this column is empty"):
        io.read_recording(FIX / "pupil_gaze_positions.csv", geometry=SCENE, options=io.ReadOptions(min_confidence=0.99))


def test_pupil_fixations_surface_and_cloud():
    """Pupil fixations (confidence), surface gaze (on_surf) and Cloud gaze (ns clock, worn, blinks)."""
    fix = io.read_recording(FIX / "pupil_fixations.csv", geometry=SCENE)
    assert fix.kind == "fixations" and len(fix.samples) == 7 and fix.counts["low_confidence"] == 1
    surf = io.read_recording(FIX / "pupil_surface_gaze.csv", geometry=io.Geometry(1000, 800, 400, 320, 600))
    assert surf.counts["off_surface"] == 2 and surf.samples["x"].isna().sum() == 2
    cloud = io.read_recording(FIX / "pupil_cloud_gaze.csv")
    assert cloud.counts["blink"] == 3 and cloud.counts["not_worn"] == 3
    assert cloud.samples["participant"].iloc[0] == "rec-7f3e"
    np.testing.assert_allclose(np.diff(cloud.samples["t_s"]), 0.005, rtol=1e-3)  # 200 Hz from a ns clock


def test_chart_fixations_start_end_and_missing_positions():
    """Start/end roles keep the order; duration comes from them, never from display_duration_ms."""
    rec = io.read_recording(FIX / "chart_fixations.csv")
    f = rec.samples
    assert rec.kind == "fixations" and len(f) == 34 and rec.counts["dropped_missing"] == 2
    assert "display_duration_ms" not in f.columns and f["duration_ms"].iloc[0] == pytest.approx(180)
    assert set(f["stimulus"]) == {"chart1.png", "chart2.png"}


def test_read_recording_from_bytes_gzip_file_object_and_tuple_unpacking():
    """Bytes, gzip bytes and a binary file object give the same table; iterating gives (table, format)."""
    data = (FIX / "eyelink_sample_report.txt").read_bytes()
    a, fmt_a = io.read_recording(data, filename="r.txt")
    b, _ = io.read_recording(gzip.compress(data), filename="r.txt.gz")
    c, _ = io.read_recording(BytesIO(data), filename="r.txt")
    assert fmt_a == "eyelink" and a.equals(b) and a.equals(c)
    with pytest.raises(io.DataError, match="does not exist"):
        io.read_recording(FIX / "nope.csv")
    with pytest.raises(io.DataError, match="unknown format"):
        io.read_recording(data, format="smi")
    with pytest.raises(io.DataError, match="limit is"):
        io.read_recording(data, limits=io.Limits(max_bytes=100))


def test_geometry_conversions_and_presets():
    """px <-> deg round trip, centre at 0°, norm and mm, presets, FOV-built HMD, bad values refused."""
    g = io.PRESETS["desktop_24"]
    assert g.width_px == 1920 and g.distance_mm == 600 and 35 < g.px_per_deg < 40
    x = np.array([0.0, 960.0, 1919.0])
    y = np.array([0.0, 540.0, 1079.0])
    ax, ay = g.px_to_deg(x, y)
    assert ax[1] == pytest.approx(0) and ay[1] == pytest.approx(0) and ax[0] < 0 < ax[2]
    bx, by = g.deg_to_px(ax, ay)
    np.testing.assert_allclose(bx, x, atol=1e-9)
    np.testing.assert_allclose(by, y, atol=1e-9)
    assert g.to_px(np.array([0.5]), np.array([0.25]), "norm", y_up=True)[1][0] == pytest.approx(810)
    assert g.to_px(np.array([531.3 / 2]), np.array([0.0]), "mm")[0][0] == pytest.approx(960, rel=1e-3)
    vr = io.PRESETS["vr_headset"]
    assert vr.field_of_view_deg == pytest.approx((100, 110))
    assert set(io.PRESETS) >= {"desktop_24", "laptop_14", "vr_headset", "gazebase"}
    with pytest.raises(ValueError):
        io.Geometry(0, 1080, 500, 300, 600)
    assert np.isnan(g.deg_to_px(np.array([95.0]), np.array([0.0]))[0][0])
