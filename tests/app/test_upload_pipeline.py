"""The upload pipeline is one: the Your data page and io.read_recording give the same tables from the same file,
a vendor export is converted once, each step reports what it did, and the format peek reads the head only."""
from __future__ import annotations

import gzip
import math
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.gaze import events
from eyedp_core.gaze.geometry import PRESETS, Geometry
from eyedp_core.io import gzipped, pipeline
from eyedp_core.io.steps import Step, StepReport
from tests.apptest import upload_file, use_data

REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
GAZEBASE = REALDATA / "gazebase_sample" / "S_1001_S1_TEX.csv"
ASC = REALDATA / "saccades_testdata" / "example_eyelink_events.txt"
real = pytest.mark.skipif(not GAZEBASE.exists(), reason=f"real recordings not found at {REALDATA}")




def _counting_converts(monkeypatch) -> list[str]:
    """-> a list that gets the reader's name each time a vendor reader converts a table."""
    calls: list[str] = []
    original = io.Reader.convert

    def spy(self, df, **options):
        calls.append(self.name)
        return original(self, df, **options)

    monkeypatch.setattr(io.Reader, "convert", spy)
    return calls


@real
def test_page_and_library_read_a_real_vendor_file_alike_converting_it_once(monkeypatch):
    """GazeBase through the page (reader recognised, preset screen, off-screen check on) and through
    read_recording: equal canonical tables and counts; the page converts the file once, the library once."""
    converts = _counting_converts(monkeypatch)
    at = upload_file("gaze", GAZEBASE.name, GAZEBASE.read_bytes())
    at.checkbox(key="yd_detect").set_value(False).run()
    use_data(at)
    page = at.session_state["eyedp_uploads"]["gaze"][f"Upload: {GAZEBASE.name}"].frame
    assert converts == ["gazebase"]  # preview and mapping come from the one conversion of the whole file
    lib = io.read_recording(GAZEBASE)
    assert converts == ["gazebase", "gazebase"]
    pd.testing.assert_frame_equal(page.reset_index(drop=True), lib.samples.reset_index(drop=True))
    assert page.attrs["counts"] == lib.counts and lib.counts["off_screen"] == 338
    # The page lists what each step did, the library's reports in the same words.
    shown = " ".join(e.label for e in at.expander)
    assert "What each step did" in shown
    listed = " ".join(m.value for m in at.markdown)
    validate = next(r for r in lib.reports if r.step is Step.VALIDATE)
    assert validate.sentence().endswith("60,233 rows in, 60,233 out; off screen: 338.")
    assert "(validation): 60,233 rows in, 60,233 out; off screen: 338." in listed
    assert [r.step for r in lib.reports] == [Step.DETECT, Step.PREVIEW, Step.CONVERT, Step.MAP, Step.VALIDATE]


@real
def test_page_and_library_read_a_real_asc_file_alike():
    """The EyeLink ASC example through the page and through read_recording: the same samples and fixations."""
    at = upload_file("gaze", ASC.name, ASC.read_bytes())
    at.checkbox(key="asc_add_fixations").set_value(True).run()
    use_data(at)
    held = at.session_state["eyedp_uploads"]
    lib = io.read_recording(ASC)
    pd.testing.assert_frame_equal(held["gaze"][f"Upload: {ASC.name}"].frame.reset_index(drop=True),
                                  lib.samples.reset_index(drop=True))
    pd.testing.assert_frame_equal(held["fixations"][f"Upload: {ASC.name} (fixations)"].frame.reset_index(drop=True),
                                  lib.fixations().reset_index(drop=True))


def test_generic_table_page_and_library_alike_and_never_converted(monkeypatch):
    """A generic gaze table (no vendor reader): page and library give the same canonical table; no conversion."""
    converts = _counting_converts(monkeypatch)
    t = np.arange(0, 4.0, 0.004)
    df = pd.DataFrame({"participant": "P1", "t_s": t, "x": 900 + 50 * np.sin(t), "y": 500 + 20 * np.cos(t)})
    data = df.to_csv(index=False).encode()
    at = upload_file("gaze", "g.csv", data)
    at.checkbox(key="yd_detect").set_value(False).run()
    use_data(at)
    page = at.session_state["eyedp_uploads"]["gaze"]["Upload: g.csv"].frame
    lib = io.read_recording(data, filename="g.csv", geometry="desktop_24")
    pd.testing.assert_frame_equal(page.reset_index(drop=True), lib.samples.reset_index(drop=True))
    assert converts == [] and lib.format == "generic" and len(lib.samples) == len(df)


def test_each_step_reports_rows_and_what_it_dropped():
    """Reports in pipeline order; the validate step counts the rows with an empty time cell it dropped (an empty
    position is signal loss, kept as missing)."""
    csv = b"participant,t_s,x,y\n" + b"".join(
        f"P1,{'' if i in (3, 7) else f'{i * 0.01:.2f}'},{100 + i},{200 + i}\n".encode() for i in range(50))
    up = io.Upload(csv, "rec.csv")
    assert up.format() == pipeline.TABLE and len(up.preview()) == 50
    rec = up.recording(io.ReadOptions(kind="gaze"))
    steps = [r.step for r in rec.reports]
    assert steps == [Step.DETECT, Step.PREVIEW, Step.MAP, Step.VALIDATE]
    validate = rec.reports[-1]
    assert (validate.rows_in, validate.rows_out) == (50, 48) and len(rec.samples) == 48
    assert sum(validate.dropped.values()) == 2
    assert validate.sentence().startswith("'rec.csv' (validation): 50 rows in, 48 out")


def test_the_convert_step_is_reported_and_runs_once_per_choice(monkeypatch):
    """A Pupil Labs export: `converted` twice with the same choice converts once; another minimum confidence is
    another conversion (it changes what is set aside)."""
    converts = _counting_converts(monkeypatch)
    n = 400
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"gaze_timestamp": np.arange(n) / 120.0, "world_index": np.arange(n) // 4,
                       "confidence": rng.uniform(0.3, 1.0, n), "norm_pos_x": rng.uniform(0.2, 0.8, n),
                       "norm_pos_y": rng.uniform(0.2, 0.8, n)})
    up = io.Upload(df.to_csv(index=False).encode(), "gaze_positions.csv")
    assert up.reader("gaze") == "pupil_labs"
    first = up.converted("pupil_labs")
    again = up.converted("pupil_labs")
    assert first[0] is again[0] and converts == ["pupil_labs"] and up.convert_calls == 1
    up.converted("pupil_labs", min_confidence=0.9)
    assert up.convert_calls == 2
    report = next(r for r in up.reports if r.step is Step.CONVERT)
    low = int((df["confidence"] < 0.9).sum())
    assert report.rows_in == n and sum(report.dropped.values()) == low


def test_peek_reads_only_the_head_of_a_gzip_file(monkeypatch):
    """peek_format and Upload.format unpack at most the first piece of a large .csv.gz, never its end."""
    body = b"participant,t_s,x,y\n" + b"".join(f"P{i % 7},{i / 1000:.3f},{i % 1920},{i % 1080}\n".encode()
                                               for i in range(400_000))
    data = gzip.compress(body, 1)
    pieces: list[int] = []
    original = gzipped.inflate

    def counting(*args, **kw):
        for piece in original(*args, **kw):
            pieces.append(len(piece))
            yield piece

    monkeypatch.setattr(gzipped, "inflate", counting)
    assert io.peek_format(data, "big.csv.gz", max_bytes=io.MAX_UPLOAD_BYTES,
                          max_unpacked=io.MAX_UNPACKED_BYTES) == "table"
    assert sum(pieces) <= gzipped.PIECE_BYTES < len(body)
    pieces.clear()
    up = io.Upload(data, "big.csv.gz", io.WEB_LIMITS)
    assert up.format() == pipeline.TABLE and sum(pieces) <= gzipped.PIECE_BYTES
    tracemalloc.start()
    io.peek_format(data, "big.csv.gz", max_bytes=io.MAX_UPLOAD_BYTES, max_unpacked=io.MAX_UNPACKED_BYTES)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 4 * gzipped.PIECE_BYTES < len(body)  # a few pieces at most, not the unpacked file


def test_a_forged_gzip_trailer_is_refused_by_the_full_read():
    """A gzip whose trailer understates its size passes the head-only peek; the full read refuses it, counting."""
    from tests.app.test_io_hostile import csv_bomb

    data = csv_bomb(unpacked=8 * 2**20, isize=10)
    up = io.Upload(data, "forged.csv.gz", io.Limits(max_unpacked=2 * 2**20))
    assert up.format() == pipeline.TABLE
    with pytest.raises(io.DataError, match="expands to more than"):
        up.full_table()


def test_a_forged_gzip_trailer_is_refused_when_read_from_a_path(tmp_path):
    """A file given by path (read_recording with a cap) is refused too, counted piece by piece."""
    from tests.app.test_io_hostile import csv_bomb

    path = tmp_path / "forged.csv.gz"
    path.write_bytes(csv_bomb(unpacked=8 * 2**20, isize=10))
    with pytest.raises(io.DataError, match="forged.csv.gz: the file expands to more than"):
        io.read_recording(path, limits=io.Limits(max_bytes=2 * 2**20))


# --- the one geometry ------------------------------------------------------------------------------------

def test_one_geometry_type_with_mm_fields_and_cm_properties():
    """gaze.events has no geometry type of its own; cm and mm are the same lengths; from_cm keeps the numbers."""
    assert not hasattr(events, "ScreenGeometry") and io.Geometry is Geometry
    g = Geometry.from_cm(1280, 800, 47.5, 29.7, 60.0)
    assert (g.width_mm, g.height_mm, g.distance_mm) == (475.0, 297.0, 600.0)
    assert (g.width_cm, g.height_cm, g.distance_cm) == (47.5, 29.7, 60.0)
    assert g == events.SAMPLE_SCREEN
    cx, cy = g.cm_per_px()
    assert math.isclose(cx, 47.5 / 1280) and math.isclose(cy, 29.7 / 800)
    dx, _ = g.deg_per_px()
    # one pixel at the centre: 2 atan(pitch / 2d), against the mm form's px_per_deg (mean of both axes)
    assert math.isclose(dx, math.degrees(2 * math.atan(47.5 / 1280 / 120.0)), rel_tol=1e-12)
    d = PRESETS["desktop_24"]
    assert math.isclose(d.width_cm * 10, d.width_mm) and math.isclose(d.distance_cm, 60.0)
    # the event detectors and the upload conversion agree on degrees
    x = np.array([0.0, 640.0, 1279.0])
    y = np.array([400.0, 0.0, 799.0])
    a = events.pix_to_deg(x, y, g)
    b = g.px_to_deg(x, y)
    np.testing.assert_allclose(a[0], b[0], atol=1e-12)
    np.testing.assert_allclose(a[1], b[1], atol=1e-12)


def test_derived_tables_carry_the_recordings_geometry_and_name_file_and_step():
    """read_recording's geometry reaches detect_fixations and features; messages name the file and the step."""
    t = np.arange(0, 12.0, 1 / 250)
    x = np.where((t * 4).astype(int) % 2 == 0, 400.0, 900.0)
    df = pd.DataFrame({"participant": "P1", "t_s": t, "x": x, "y": 500.0})
    rec = io.read_recording(df.to_csv(index=False).encode(), filename="rec.csv", geometry="laptop_14")
    fix, how = rec.detect_fixations("ivt")
    assert how.geometry is rec.geometry is PRESETS["laptop_14"]
    assert how.describe().startswith("Fixations derived from 'rec.csv' (I-VT step): ")
    assert how.report() == StepReport(Step.IVT, "rec.csv", len(df), len(fix), how.report().dropped,
                                      how.report().notes, "fixations")
    with pytest.raises(io.DataError, match=r"Feature windows derived from 'rec.csv' \(feature-window step\): no "):
        rec.features(window_s=60)
    feats = rec.features(window_s=4, step_s=2)
    assert feats.attrs["made_by"].startswith("feature windows derived from 'rec.csv' (feature-window step)")


def test_the_screen_given_on_your_data_reaches_heatmaps_and_gaze_samples():
    """A gaze upload on a 14" laptop screen: its derived fixations carry that screen to the Heatmaps page (the
    kernel's pixels per degree) and the gaze stream carries it to Gaze samples (detectors and degrees)."""
    from eyedp_core.data import bundled as samples

    g = samples.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02", "P03"])][["participant", "t_s", "x", "y"]]
    at = upload_file("gaze", "gaze.csv", g.to_csv(index=False).encode())
    preset = [s for s in at.selectbox if s.key and s.key.startswith("geo_preset_gaze_")][0]
    preset.set_value("laptop_14").run()
    use_data(at)
    laptop = PRESETS["laptop_14"]
    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    assert at.session_state["hm_wpx"] == laptop.width_px
    assert math.isclose(at.session_state["hm_wcm"], laptop.width_cm) and at.session_state["hm_dist"] == 50.0
    at.switch_page("pages/gaze_samples.py").run()
    assert not at.exception, at.exception
    assert (at.session_state["gs_wpx"], at.session_state["gs_hpx"]) == (1920, 1080)
    assert math.isclose(at.session_state["gs_hcm"], laptop.height_cm) and at.session_state["gs_dist"] == 50.0


@real
def test_finishing_a_converted_table_twice_gives_the_same_warnings():
    """'Use this data' pressed twice maps the one converted table twice: the converted table is not changed, so
    the second recording carries the same warnings (the preset screen's note once), not more."""
    up = io.Upload(GAZEBASE.read_bytes(), GAZEBASE.name, io.WEB_LIMITS)
    frame, mapping = up.converted("gazebase")
    first = up.finish(frame, mapping, io.ReadOptions(kind="gaze"), reader="gazebase")
    again = up.finish(frame, mapping, io.ReadOptions(kind="gaze"), reader="gazebase")
    assert [str(w) for w in first.warnings] == [str(w) for w in again.warnings]
    assert sum("the GazeBase" in str(w) and "set-up was used" in str(w) for w in again.warnings) == 1
    assert up.convert_calls == 1
