"""Your data takes raw gaze (and fixation tables) as many files or a zip (each file one recording, mapped once on
the first file), and bare x, y samples without a time column with a stated rate, which then reach the Gaze
samples, Heatmaps, Time series and Attacks pages.

The numbers checked are the library's: what the page keeps equals io.read_recordings / io.read_recording of the
same bytes with the same choices."""
from __future__ import annotations

import io as _io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from tests.apptest import open_app, page_text, use_data

EXAMPLE = (Path(__file__).resolve().parents[2].parent / "shared" / "realdata" / "saccades_testdata"
           / "example.csv")


def _gaze(n: int, x0: float) -> bytes:
    i = np.arange(n)
    frame = pd.DataFrame({"time_ms": 1000 + 4.0 * i, "x": x0 + 30 * np.sin(i / 9), "y": 300 + 20 * np.cos(i / 7)})
    return frame.to_csv(index=False).encode()


def _upload(files: list[tuple[str, bytes]]):
    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("gaze").run()
    at.file_uploader(key="uploader_gaze").set_value([(n, b, "text/csv") for n, b in files]).run()
    assert not at.exception, at.exception
    return at


def _kept(at, label: str) -> pd.DataFrame:
    return at.session_state["eyedp_uploads"]["gaze"][f"Upload: {label}"].frame


def test_three_gaze_files_become_one_upload_of_three_participants():
    files = [(f"P0{k}.csv", _gaze(60 + 10 * k, 150.0 * k)) for k in (1, 2, 3)]
    at = _upload(files)
    assert "**3 recordings** (each file one recording): P01.csv, P02.csv, P03.csv" in page_text(at)
    at.checkbox(key="yd_detect").uncheck().run()
    use_data(at)
    ok = " ".join(s.value for s in at.success)
    assert "3 files (P01.csv …) loaded (240 rows" in ok, page_text(at)
    kept = _kept(at, "3 files (P01.csv …)")
    want = io.read_recordings(files, geometry="desktop_24").samples
    pd.testing.assert_frame_equal(kept.reset_index(drop=True)[list(want.columns)], want)
    assert kept.groupby("participant").size().to_dict() == {"P01": 70, "P02": 80, "P03": 90}
    assert at.sidebar.selectbox(key="sel_gaze").value == "Upload: 3 files (P01.csv …)"
    assert "3 files read as one table of 3 recordings of 3 participants" in page_text(at)


def test_a_zip_of_participant_folders_names_participants_by_folder_and_recordings_by_file():
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, who in enumerate(("P01", "P02")):
            for j, trial in enumerate(("free", "search")):
                z.writestr(f"{who}/{trial}.csv", _gaze(50 + 5 * j, 200.0 + 100 * k))
        z.writestr("readme.pdf", b"%PDF")
    at = _upload([("study.zip", buf.getvalue())])
    text = page_text(at)
    assert "**4 recordings**" in text and "1 file(s) that are not gaze recordings" in text
    at.checkbox(key="yd_detect").uncheck().run()
    use_data(at)
    kept = _kept(at, "4 files (P01/free.csv …)")
    sizes = kept.groupby(["participant", "stimulus"]).size().to_dict()
    assert sizes == {("P01", "free"): 50, ("P01", "search"): 55, ("P02", "free"): 50, ("P02", "search"): 55}


def test_one_file_still_takes_the_single_file_path():
    at = _upload([("one.csv", _gaze(40, 300))])
    assert "recordings** (each file one recording)" not in page_text(at)
    assert "**one.csv** — 40 rows" in page_text(at)


def _bare_example() -> tuple[pd.DataFrame, bytes]:
    if not EXAMPLE.is_file():
        pytest.skip(f"saccades example.csv not found at {EXAMPLE}")
    raw = pd.read_csv(EXAMPLE, header=None, names=["t_ms", "x", "y"])
    return raw, raw[["x", "y"]].to_csv(index=False, header=False).encode()


def test_bare_headerless_samples_with_a_rate_reach_gaze_samples_and_heatmaps():
    raw, data = _bare_example()
    at = _upload([("example_xy.csv", data)])
    assert at.selectbox(key="map_gaze_t_s").value == "— none: rebuild from the sampling rate —"
    assert (at.selectbox(key="map_gaze_x").value, at.selectbox(key="map_gaze_y").value) == ("col1", "col2")
    text = page_text(at)
    assert "no header row (its first line holds only numbers): that line was read as data, row 1" in text
    assert "No time column is chosen" in " ".join(w.value for w in at.warning)
    [rate] = [n for n in at.number_input if n.key and n.key.startswith("yd_rate_")]
    rate.set_value(250.0).run()
    # The example is 640 × 480 px (DISPLAY_COORDS in its ASC source): the sample screen's size keeps every point.
    use_data(at)
    text = page_text(at)
    assert "example_xy.csv loaded (148 rows" in text, text
    assert "the file has no time column: every recording's time was rebuilt from the stated sampling rate of " \
           "250 Hz" in text
    assert "no header row: its first line was read as data" in text  # the preview step, under the steps
    kept = _kept(at, "example_xy.csv")
    np.testing.assert_allclose(kept["t_s"].to_numpy(), (raw["t_ms"] - raw["t_ms"].iloc[0]).to_numpy() / 1000.0,
                               atol=1e-12)
    np.testing.assert_array_equal(kept["x"].to_numpy(), raw["x"].to_numpy())
    fix_label = "Upload: example_xy.csv (fixations, IVT)"
    assert at.sidebar.selectbox(key="sel_fixations").value == fix_label
    fix = at.session_state["eyedp_uploads"]["fixations"][fix_label].frame
    assert len(fix) >= 1 and fix["duration_ms"].gt(0).all()

    at.switch_page("pages/gaze_samples.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="gs_participant").value == "example_xy"

    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    stim = at.selectbox(key="hm_stimulus")
    blank = "example_xy.csv (fixations, IVT) (blank canvas)"
    assert blank in stim.options
    stim.set_value(blank).run()
    assert not at.exception, at.exception
    assert "1 observer" in page_text(at)


def test_bare_samples_without_a_rate_are_refused_with_what_to_give():
    _, data = _bare_example()
    at = _upload([("example_xy.csv", data)])
    use_data(at)
    assert "no sampling rate is given" in page_text(at)
    assert "Upload: example_xy.csv" not in at.session_state["eyedp_uploads"].get("gaze", {})


def test_a_zip_over_the_cap_is_refused_before_parsing_with_a_message(monkeypatch):
    monkeypatch.setattr("eyedp_core.io.uploads.MAX_UNPACKED_BYTES", 1_000_000)
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.csv", _gaze(20, 100))
        z.writestr("big.csv", b"time_ms,x,y\n" + b"0,0,0\n" * 400_000)  # 2.4 MB unpacked, a few kB packed
    at = _upload([("bomb.zip", buf.getvalue())])
    errors = " ".join(e.value for e in at.error)
    assert "bomb.zip: the gaze recordings (CSV/TSV/TXT/ASC) unpack to more than 1 MB in all" in errors, page_text(at)
    assert not [b for b in at.button if b.label == "Use this data"]


def test_a_zip_of_bare_headerless_files_reaches_feature_windows_time_series_and_attacks():
    """Six participants of the bundled 120 Hz gaze as a zip of headerless x, y files (a lost sample an empty
    line): rebuilt at 120 Hz, they give the feature windows the original table with its clock gives, and the
    Time series and Attacks pages open on them."""
    from eyedp_core.data import bundled
    from eyedp_core.io import windows

    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin([f"P0{k}" for k in range(1, 7)]) & (g["t_s"] < 40)]
    assert np.allclose(np.diff(g.loc[g.participant == "P01", "t_s"]), 1 / 120)
    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for who, part in g.groupby("participant"):
            z.writestr(f"{who}.csv", part[["x", "y"]].to_csv(index=False, header=False, na_rep=""))
    at = _upload([("bare.zip", buf.getvalue())])
    assert at.selectbox(key="map_gaze_t_s").value == "— none: rebuild from the sampling rate —"
    [rate] = [n for n in at.number_input if n.key and n.key.startswith("yd_rate_")]
    rate.set_value(120.0).run()
    at.checkbox(key="yd_detect").uncheck().run()
    use_data(at)
    assert "6 files (P01.csv …) loaded (28,800 rows" in " ".join(s.value for s in at.success), page_text(at)
    kept = _kept(at, "6 files (P01.csv …)")
    np.testing.assert_allclose(kept["t_s"].to_numpy(), g["t_s"].to_numpy(), atol=1e-9)
    np.testing.assert_array_equal(kept["x"].isna().to_numpy(), g["x"].isna().to_numpy())
    win = [n for n in at.number_input if n.key and n.key.startswith("yd_win_")][0]
    step = [n for n in at.number_input if n.key and n.key.startswith("yd_step_")][0]
    win.set_value(10.0).run()
    step.set_value(5.0).run()
    [b for b in at.button if b.label == "Make feature windows"][0].click().run()
    assert not at.exception, at.exception
    label = "Upload: 6 files (P01.csv …) (feature windows, 10 s)"
    table = at.session_state["eyedp_uploads"]["features"][label].frame
    want = windows.features_from_table(g[["participant", "t_s", "x", "y"]], io.PRESETS["desktop_24"], 10.0, 5.0,
                                       source="original")
    feats = [c for c in want.columns if c not in ("participant", "recording") and "pupil" not in c]
    assert len(table) == len(want) == 42
    np.testing.assert_allclose(table[feats].to_numpy(float), want[feats].to_numpy(float), rtol=1e-9, atol=1e-9)
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    assert "window of 10 s" in page_text(at)


def test_two_fixation_files_become_two_observers_on_the_heatmaps_page():
    def fix(n: int, x0: float) -> bytes:
        i = np.arange(n)
        return pd.DataFrame({"x": x0 + 5.0 * i, "y": 300.0 + 3.0 * i, "duration_ms": 200.0 + i}).to_csv(
            index=False).encode()
    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("fixations").run()
    at.file_uploader(key="uploader_fixations").set_value([("O1.csv", fix(12, 200), "text/csv"),
                                                          ("O2.csv", fix(15, 500), "text/csv")]).run()
    assert not at.exception, at.exception
    assert "A file without an observer column is one person named by its file name" in page_text(at)
    use_data(at)
    label = "Upload: 2 files (O1.csv …)"
    kept = at.session_state["eyedp_uploads"]["fixations"][label].frame
    assert kept.groupby("observer").size().to_dict() == {"O1": 12, "O2": 15}
    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    stim = at.selectbox(key="hm_stimulus")
    blank = "2 files (O1.csv …) (blank canvas)"
    assert blank in stim.options
    stim.set_value(blank).run()
    assert not at.exception, at.exception
    assert "2 observers" in page_text(at)
