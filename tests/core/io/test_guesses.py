"""Better guesses and clearer choices on upload: all-empty columns ignored, the column that empties most rows
named, candidates listed for a role no column was found for, a file-name stimulus column preferred over an
index that names different images."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io


def _read(df: pd.DataFrame, name: str = "t.csv") -> pd.DataFrame:
    return io.read_table(df.to_csv(index=False).encode(), name)


def test_the_librarys_own_feature_table_with_empty_columns_uploads() -> None:
    rng = np.random.default_rng(3)
    n = 40
    table = pd.DataFrame({"participant": np.repeat(["a", "b"], n // 2), "recording": "r1",
                          "window": np.tile(np.arange(n // 2), 2), "t_start_s": np.tile(np.arange(n // 2.0), 2),
                          "fix_rate_hz": rng.normal(3, 0.3, n), "pupil_mean_mm": np.nan,
                          "sacc_amp_mean_deg": np.where(np.arange(n) % 7 == 0, np.nan, rng.normal(3, 1, n))})
    raw = _read(table, "feat.csv")
    mapping = io.guess_mapping(raw, "features")
    out = io.apply_mapping(raw, mapping, "features", "feat.csv", drop_missing=False)
    assert "pupil_mean_mm" not in out.columns and len(out) == n  # ignored, nothing refused
    assert np.isnan(out["sacc_amp_mean_deg"]).sum() == 6  # a window without a saccade keeps its row
    said = " ".join(map(str, out.attrs["warnings"]))
    assert "empty in every row and are ignored: 'pupil_mean_mm'" in said
    dropped = io.apply_mapping(raw, mapping, "features", "feat.csv", drop_missing=True)
    assert len(dropped) == n - 6  # the empty pupil column does not empty every row


def test_one_column_causing_most_drops_is_named_with_the_offer_to_leave_it_out() -> None:
    n = 100
    f = pd.DataFrame({"participant": np.repeat(["a", "b"], n // 2), "window": np.tile(np.arange(n // 2), 2),
                      "fix_rate_hz": 3.0, "blink_rate": np.where(np.arange(n) < 70, np.nan, 3.0)})
    f.loc[90, "fix_rate_hz"] = np.nan  # one row empty in another column too
    raw = _read(f, "f.csv")
    out = io.apply_mapping(raw, io.guess_mapping(raw, "features"), "features", "f.csv", drop_missing=True)
    assert len(out) == 29
    warn = [w for w in out.attrs["warnings"] if "dropped_missing" in w.details][0]
    assert warn.details["culprit"] == "blink_rate" and warn.details["culprit_rows"] == 70
    assert "71 of 100 rows" in str(warn) and "70 of them are empty only in 'blink_rate': leave that column out" \
        in str(warn)
    even = f.assign(blink_rate=np.where(np.arange(n) % 2 == 0, np.nan, 3.0),
                    fix_rate_hz=np.where(np.arange(n) % 2 == 1, np.nan, 3.0))
    with pytest.raises(io.DataError, match="Leave the mostly empty column out"):  # no single culprit
        raw = _read(even, "f.csv")
        io.apply_mapping(raw, io.guess_mapping(raw, "features"), "features", "f.csv", drop_missing=True)


def _ir_gaze() -> pd.DataFrame:
    n = 20
    return pd.DataFrame({"participant": "a", "time": np.arange(n) * 10, "IR_hor": np.linspace(100, 900, n),
                         "IR_ver": np.linspace(500, 600, n), "status": "ok"})


def test_a_role_without_a_column_lists_the_candidates() -> None:
    raw = _read(_ir_gaze(), "ir.csv")
    mapping = io.guess_mapping(raw, "gaze")
    assert mapping["x"] is None and mapping["y"] is None and mapping["t_s"] == "time"
    notes = io.guess_notes(raw, "gaze")
    assert "No column was recognised for 'x'. Candidates: 'IR_hor', 'IR_ver'." in notes
    assert "No column was recognised for 'y'. Candidates: 'IR_ver', 'IR_hor'." in notes  # the hinted one first
    with pytest.raises(io.DataError, match=r"role 'x'.*Candidates in this file: 'IR_hor', 'IR_ver'\.") as err:
        io.apply_mapping(raw, mapping, "gaze", "ir.csv")
    assert "'status'" not in str(err.value)  # text is no candidate for a position
    ok = io.apply_mapping(raw, {**mapping, "x": "IR_hor", "y": "IR_ver"}, "gaze", "ir.csv")
    assert len(ok) == 20


def _osie_like(index_name: str = "stimulus") -> pd.DataFrame:
    """Fixations whose index column names a target and a filler image with the same number."""
    rows = []
    for obs in ("o1", "o2"):
        for idx in (1, 2):
            for kind in ("target", "filler"):
                rows.append({"observer": obs, index_name: idx, "file": f"{kind}_{idx}.jpg", "x": 10.0, "y": 20.0,
                             "duration_ms": 200.0})
    return pd.DataFrame(rows)


def test_a_file_name_column_wins_over_an_index_that_names_different_images() -> None:
    raw = _read(_osie_like(), "fix.csv")
    mapping = io.guess_mapping(raw, "fixations")
    assert mapping["stimulus"] == "file"
    notes = " ".join(io.guess_notes(raw, "fixations"))
    assert "'file' was chosen for the stimulus, not 'stimulus'" in notes and "filler_1.jpg, target_1.jpg" in notes
    out = io.apply_mapping(raw, mapping, "fixations", "fix.csv")
    assert out["stimulus"].nunique() == 4  # four images, not two merged index values


def test_an_ambiguous_stimulus_choice_is_said() -> None:
    df = _osie_like().assign(file=lambda d: d["stimulus"].map(lambda i: f"img_{i}.jpg"))  # one name per index
    raw = _read(df, "fix.csv")
    assert io.guess_mapping(raw, "fixations")["stimulus"] == "stimulus"  # no collision: the name pattern's pick
    notes = " ".join(io.guess_notes(raw, "fixations"))
    assert "Several columns could name the stimulus: 'stimulus' (chosen), 'file'" in notes


def test_a_fixation_export_read_as_gaze_is_said_and_the_reverse() -> None:
    fix = pd.DataFrame({"participant": "a", "timestamp": np.arange(30) * 250.0, "x": 10.0, "y": 20.0,
                        "duration": 230.0})
    raw = _read(fix, "fix.csv")
    notes = io.guess_notes(raw, "gaze")
    assert notes[0] == ("This file looks like fixations, not gaze samples: it has a duration column ('duration'), "
                        "and its rows are about one duration apart. If each row is one fixation, choose 'Fixations' "
                        "above.")
    assert not any("looks like" in n for n in io.guess_notes(raw, "fixations"))
    gaze = pd.DataFrame({"participant": "a", "t_ms": np.arange(300) * 2.0, "x": 10.0, "y": 20.0})
    with_events = gaze.assign(event_duration=400.0)  # samples carrying their event's duration stay samples
    assert not any("looks like" in n for n in io.guess_notes(_read(with_events, "g.csv"), "gaze"))
    raw = _read(gaze, "g.csv")
    notes = io.guess_notes(raw, "fixations")
    assert "This file looks like gaze samples, not fixations: it has no duration column and its times ('t_ms') " \
           "are 2 ms apart." in notes[0]
    assert not any("looks like" in n for n in io.guess_notes(raw, "gaze"))


def test_fixation_times_named_start_s_and_end_s_arrive_as_the_canonical_t_start_s_and_t_end_s() -> None:
    """An upload naming its fixation times start_s / end_s maps to t_start_s / t_end_s, and the features are
    timed by them: window 0's fixation rate and mean gap between fixations, counted by hand from the onsets."""
    rng = np.random.default_rng(3)
    n = 200
    start = np.round(np.cumsum(rng.uniform(0.25, 0.45, n)), 4)
    dur = np.round(rng.uniform(150, 300, n), 2)
    end = np.round(start + dur / 1000, 4)
    df = pd.DataFrame({"observer": "P1", "x": rng.uniform(0, 1000, n), "y": rng.uniform(0, 700, n),
                       "duration_ms": dur, "start_s": start, "end_s": end})
    rec = io.read_recording(df.to_csv(index=False).encode(), filename="f.csv")
    assert rec.kind == "fixations"
    assert list(rec.samples.columns) == ["observer", "x", "y", "duration_ms", "t_start_s", "t_end_s"]
    np.testing.assert_allclose(rec.samples["t_start_s"], start)
    first = rec.features(10.0).iloc[0]
    assert first["t_start_s"] == pytest.approx(start[0])
    inside = (start >= start[0]) & (start < start[0] + 10.0)
    assert first["fix_rate_hz"] == pytest.approx(inside.sum() / 10.0)
    # Between two fixations the features put a saccade from one's end (onset + duration) to the next onset.
    sac_start = start[:-1] + dur[:-1] / 1000
    gaps = (start[1:] - sac_start)[(sac_start >= start[0]) & (sac_start < start[0] + 10.0)] * 1000
    assert first["sacc_dur_mean_ms"] == pytest.approx(gaps.mean(), rel=1e-9)
