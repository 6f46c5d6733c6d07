"""Your data: a gaze upload becomes feature windows (window length, step) with a participants table's columns
as labels, which the Time series and Attacks pages use (AppTest)."""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.data import bundled
from tests.apptest import page_text, upload_file, use_data


def _gaze_csv() -> bytes:
    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02", "P03", "P04", "P05", "P06"]) & (g["t_s"] < 40)]
    return g[["participant", "t_s", "x", "y", "pupil"]].to_csv(index=False).encode()


def test_gaze_upload_to_feature_windows_with_participant_labels_reaches_attacks_and_time_series():
    at = upload_file("gaze", "gaze.csv", _gaze_csv())
    at.checkbox(key="yd_detect").set_value(False).run()
    use_data(at)
    assert "gaze.csv loaded" in " ".join(s.value for s in at.success)
    people = bundled.load_sample("demographics").to_csv(index=False).encode()
    at.file_uploader(key="uploader_participants").set_value(("people.csv", people, "text/csv")).run()
    assert not at.exception, at.exception
    assert "labels: age, gender" in page_text(at)
    win = [n for n in at.number_input if n.key and n.key.startswith("yd_win_")][0]
    step = [n for n in at.number_input if n.key and n.key.startswith("yd_step_")][0]
    win.set_value(10.0).run()
    step.set_value(5.0).run()
    [b for b in at.button if b.label == "Make feature windows"][0].click().run()
    assert not at.exception, at.exception
    ok = " ".join(s.value for s in at.success)
    label = "Upload: gaze.csv (feature windows, 10 s)"
    # 40 s per participant (t_s 0 … 39.99), windows of 10 s every 5 s: starts 0, 5, …, 30 -> 7 windows each.
    assert ("Feature windows derived from 'gaze.csv' (feature-window step): 42 windows of 10 s every 5 s "
            "(6 recordings of 6 participants).") in ok, ok
    assert at.sidebar.selectbox(key="sel_features").value == label
    table = at.session_state["eyedp_uploads"]["features"][label].frame
    assert np.allclose(sorted(set(table["t_start_s"])), [0, 5, 10, 15, 20, 25, 30])
    assert table.attrs["window_s"] == 10.0 and set(table["gender"]) == {"male", "female"}
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    tasks = at.multiselect(key="at_tasks").options
    assert "gender" in tasks and "age" in tasks
    text = page_text(at)
    assert "window of 10 s" in text  # the window length travelled: no 30 s assumed
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def test_participants_labels_join_an_uploaded_feature_table():
    rng = np.random.default_rng(2)
    import pandas as pd

    parts = [pd.DataFrame({"participant": p, "window": np.arange(30), "fix_rate_hz": rng.normal(3 + i, 0.2, 30),
                           "sacc_amp_mean_deg": rng.normal(4, 0.5, 30)})
             for i, p in enumerate(["P01", "P02", "P03", "P04"])]
    at = upload_file("features", "feat.csv", pd.concat(parts).to_csv(index=False).encode())
    use_data(at)
    people = b"Subject,Sex,Group\nP01,F,a\nP02,M,b\nP03,f,a\nP04,m,b\n"
    at.file_uploader(key="uploader_participants").set_value(("people.csv", people, "text/csv")).run()
    assert not at.exception, at.exception
    [b for b in at.button if b.label == "Add these labels to feat.csv"][0].click().run()
    assert not at.exception, at.exception
    label = "Upload: feat.csv (+ gender, Group)"
    assert at.sidebar.selectbox(key="sel_features").value == label
    table = at.session_state["eyedp_uploads"]["features"][label].frame
    assert list(table.groupby("participant")["gender"].first()) == ["f", "m", "f", "m"]
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    assert {"gender", "Group"} <= set(at.multiselect(key="at_tasks").options)


def test_a_participants_table_without_a_participant_column_is_refused_clearly():
    at = upload_file("features", "feat.csv", b"participant,window,f1\na,0,1\na,1,2\nb,0,3\nb,1,4\n")
    at.file_uploader(key="uploader_participants").set_value(("people.csv", b"name,gender\na,f\n", "text/csv")).run()
    assert not at.exception, at.exception
    err = " ".join(e.value for e in at.error)
    assert "people.csv: no column names the participant. Columns: name, gender" in err


def test_the_uploads_screen_travels_to_the_gaze_samples_page():
    at = upload_file("gaze", "gaze.csv", _gaze_csv())
    at.checkbox(key="yd_detect").set_value(False).run()
    at.selectbox(key=[s.key for s in at.selectbox if s.key and s.key.startswith("geo_preset_gaze_")][0]) \
        .set_value("laptop_14").run()
    use_data(at)
    at.switch_page("pages/gaze_samples.py").run()
    assert not at.exception, at.exception
    assert at.sidebar.selectbox(key="sel_gaze").value == "Upload: gaze.csv"
    from eyedp_core import io

    laptop = io.PRESETS["laptop_14"]
    assert at.number_input(key="gs_wpx").value == laptop.width_px == 1920
    assert at.number_input(key="gs_dist").value == laptop.distance_mm / 10 == 50.0
    assert at.number_input(key="gs_wcm").value == pytest.approx(laptop.width_mm / 10)
    assert not at.warning or all("default value" not in w.value for w in at.warning)


def _png(w: int, h: int, colour=(200, 30, 30)) -> bytes:
    from io import BytesIO

    from PIL import Image

    buf = BytesIO()
    Image.new("RGB", (w, h), colour).save(buf, "PNG")
    return buf.getvalue()


def test_many_images_and_a_zip_upload_at_once_and_match_stimuli_by_name():
    import io as _io
    import zipfile

    from tests.apptest import open_app

    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("set/b.png", _png(40, 30))
        z.writestr("set/c.jpeg", b"not an image inside")  # refused and named; the others stay
        z.writestr("set/readme.txt", "not an image")
    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("image").run()
    at.file_uploader(key="uploader_image").set_value([("a.png", _png(40, 30), "image/png"),
                                                      ("set.zip", buf.getvalue(), "application/zip")]).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "**2 images**" in " ".join(m.value for m in at.markdown) and "a.png, b.png" in text
    assert "1 file(s) that are not PNG/JPEG images were skipped (e.g. set/readme.txt)" in text
    assert any("c.jpeg" in w.value for w in at.warning)
    [b for b in at.button if b.label == "Use these images"][0].click().run()
    assert not at.exception, at.exception
    assert "2 images are now offered as stimuli on the Heatmaps page." in " ".join(s.value for s in at.success)
    assert {"a.png", "b.png"} <= set(at.session_state["eyedp_uploads"]["image"])


def test_image_files_refuse_a_zip_bomb_and_a_damaged_zip():
    import io as _io
    import zipfile

    from eyedp_core.io.errors import DataError
    from eyedp_core.io.image_files import image_files

    buf = _io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("big.png", b"\0" * 5_000_000)
    with pytest.raises(DataError, match="unpack to more than 1 MB"):
        image_files([("bomb.zip", buf.getvalue())], max_bytes=1_000_000)
    with pytest.raises(DataError, match="not a readable zip"):
        image_files([("x.zip", b"PK\x03\x04 broken")], max_bytes=10**9)
    ok, skipped = image_files([("one.png", b"1234")], max_bytes=10)
    assert ok == [("one.png", b"1234")] and skipped == []
