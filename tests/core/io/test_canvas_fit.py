"""Derived data never blocks a view: positions just off the canvas are clipped, further ones dropped from tables
the app made (refused in the user's own), all counted under the app's one tolerance; messages about a derived
table name its source file and the step that made it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.data import derived
from eyedp_core.gaze.geometry import ON_SCREEN_TOLERANCE, Geometry
from eyedp_core.heatmaps import preview
from eyedp_core.io import derive
from eyedp_core.io.errors import DataError
from eyedp_core.io.validate import OFF_SCREEN_MARGIN

GAZEBASE = Path(__file__).resolve().parents[4] / "shared" / "realdata" / "gazebase_sample" / "S_1001_S1_TEX.csv"


def _table(xs, ys) -> pd.DataFrame:
    n = len(xs)
    return pd.DataFrame({"observer": [f"O{i % 3}" for i in range(n)], "x": np.asarray(xs, float),
                         "y": np.asarray(ys, float)}, index=pd.RangeIndex(2, n + 2, name="row"))


def test_one_tolerance_for_the_whole_app() -> None:
    assert OFF_SCREEN_MARGIN == ON_SCREEN_TOLERANCE == io.ON_SCREEN_TOLERANCE == 0.1
    g = io.PRESETS["desktop_24"]
    # The upload's off-screen check uses it by default: 10 % of 1920 = 192 px, of 1080 = 108 px.
    assert list(g.off_screen(np.array([-191.0, -193.0, 100.0]), np.array([0.0, 0.0, 1080 + 109.0]))) == \
        [False, True, True]


def test_near_positions_are_clipped_and_counted() -> None:
    df = _table([-5.0, 50.0, 104.0, 20.0], [10.0, -3.0, 20.0, 30.0])  # 100 x 50 canvas: 10 px and 5 px slack
    out, note = io.fit_to_canvas(df, 100, 50, "f.csv")
    assert len(out) == 4
    assert list(out["x"]) == [0.0, 50.0, 100.0, 20.0] and list(out["y"]) == [10.0, 0.0, 20.0, 30.0]
    assert "3 of 4 rows" in note and "f.csv" in note and "moved to its edge" in note
    assert df["x"].iloc[0] == -5.0  # the input is not changed
    same, none = io.fit_to_canvas(_table([1.0, 99.0], [1.0, 49.0]), 100, 50, "f.csv")
    assert none == "" and list(same["x"]) == [1.0, 99.0]


def test_far_positions_refuse_the_users_table_but_leave_a_derived_table() -> None:
    df = _table([-5.0, 50.0, 130.0, 20.0], [10.0, 20.0, 20.0, 30.0])  # 130 > 100 + 10
    with pytest.raises(DataError, match="outside the stimulus") as err:
        io.fit_to_canvas(df, 100, 50, "mine.csv")
    assert err.value.row == 4 and err.value.column == "x"
    made_by = "fixations detected by I-VT in the gaze samples of rec.csv"
    out, note = io.fit_to_canvas(df, 100, 50, "Upload: rec.csv", made_by)
    assert list(out["x"]) == [0.0, 50.0, 20.0]
    assert "1 of 4 rows lay further out and were left out" in note and "1 of 4 rows lay just outside" in note
    assert note.startswith("Fixations detected by I-VT in the gaze samples of rec.csv:")
    with pytest.raises(DataError, match="made by the app: fixations detected by I-VT") as err:
        io.fit_to_canvas(_table([500.0, 600.0], [0.0, 0.0]), 100, 50, "Upload: rec.csv", made_by)
    assert err.value.row is None  # no row number of a table the user never saw


def _gaze_with_a_low_fixation() -> pd.DataFrame:
    """Two participants, 1000 Hz: 300 ms still at (500, 400), then 300 ms still at (800, -74), with 20 ms jumps."""
    rows = []
    for p in ("P1", "P2"):
        t = 0.0
        for (x, y) in [(500.0, 400.0), (800.0, -74.0), (900.0, 500.0)]:
            for _ in range(300):
                rows.append((p, t, x, y))
                t += 0.001
            for k in range(1, 21):  # a saccade: fast, far above 30 °/s
                rows.append((p, t, x + k * 10.0, y + k * 10.0))
                t += 0.001
    return pd.DataFrame(rows, columns=["participant", "t_s", "x", "y"])


def test_derived_fixations_just_off_the_screen_reach_the_heatmap() -> None:
    geo = Geometry.from_cm(1920, 1080, 53.1, 29.9, 60.0)
    fix, how = derive.fixations_from_gaze(_gaze_with_a_low_fixation(), geo, "ivt", source="rec.csv")
    assert len(fix) == 6 and fix["y"].min() == 0.0  # the fixation at y = -74 px is on the edge, not refused
    assert how.counts["fixations_off_screen_left_out"] == 0
    assert "2 of 6 rows lay just outside the 1920 × 1080 px canvas" in how.describe()
    assert fix.attrs["made_by"] == "fixations derived from 'rec.csv' (I-VT step)"
    assert "Fixations derived from 'rec.csv' (I-VT step): 2 of 6 rows lay just outside" in how.fitted
    w, h = derived.data_extent(fix)
    sub, said = preview.fixations_for_stimulus(fix, "Upload: rec.csv (fixations, IVT)", "blank", w, h)
    assert len(sub) == 6 and sub["observer"].nunique() == 2 and "every row" in said


def test_messages_about_a_derived_table_name_its_source_and_step() -> None:
    geo = Geometry.from_cm(1920, 1080, 53.1, 29.9, 60.0)
    fix, _ = derive.fixations_from_gaze(_gaze_with_a_low_fixation().assign(stimulus="page1"), geo, "ivt",
                                         source="rec.csv")
    with pytest.raises(DataError) as err:
        preview.fixations_for_stimulus(fix, "Upload: rec.csv (fixations, IVT)", "page2", 1920, 1080)
    assert "no fixations for the stimulus 'page2'" in str(err.value)
    assert "made by the app: fixations derived from 'rec.csv' (I-VT step)" in str(err.value)


def test_heatmaps_clip_the_users_table_within_the_tolerance() -> None:
    df = _table([-5.0, 50.0, 104.0, 20.0, 30.0, 40.0], [10.0, -3.0, 20.0, 30.0, 5.0, 6.0])
    sub, how = preview.fixations_for_stimulus(df, "mine.csv", "img.png", 100, 50)
    assert sub["x"].between(0, 100).all() and sub["y"].between(0, 50).all()
    assert "3 of 6 rows lay just outside the 100 × 50 px canvas" in how


@pytest.mark.skipif(not GAZEBASE.exists(), reason="needs ../shared/realdata/gazebase_sample")
def test_gazebase_fixations_are_all_on_the_screen() -> None:
    rec = io.read_recording(GAZEBASE)
    fix, how = rec.detect_fixations()
    g = rec.geometry
    assert len(fix) == how.fixations > 200
    assert fix["x"].between(0, g.width_px).all() and fix["y"].between(0, g.height_px).all()
    # independent count: fixation centres outside the screen before the fit
    assert "were moved to its edge" in how.describe() or "were left out" in how.describe()


def test_an_image_matches_its_stimulus_whatever_the_extension() -> None:
    df = pd.DataFrame({"observer": ["a", "b", "a", "b"], "stimulus": ["face.jpg", "face.jpg", "dog.jpg", "dog.jpg"],
                       "x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    sub, how = preview.fixations_for_stimulus(df, "fix.csv", "face.png", 10, 10)
    assert list(sub["x"]) == [1.0, 2.0]
    assert derived.stimuli_without_images(df, ["face.png"]) == ["dog.jpg"]
    exact, _ = preview.fixations_for_stimulus(df.assign(stimulus=["face.png", "face.png", "face.jpg", "face.jpg"]),
                                              "fix.csv", "face.png", 10, 10)
    assert list(exact["x"]) == [1.0, 2.0]  # an exact name wins over a same-stem one


def test_a_derivation_states_the_screens_own_pixels_per_degree() -> None:
    """The derivation sentence and the screen line say the same px/deg (one formula): the Lund screen read 31.5
    in one and 30.7 in the other."""
    import re

    geo = Geometry.from_cm(1024, 768, 37.5, 30.2, 67.0)
    _, how = derive.fixations_from_gaze(_gaze_with_a_low_fixation(), geo, "ivt", source="rec.csv")
    said = re.search(r"\(([0-9.]+) px/deg\)", how.describe()).group(1)
    assert said == f"{geo.px_per_deg:.1f}" and f"({said} px/deg)" in geo.describe()
