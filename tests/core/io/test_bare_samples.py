"""Bare gaze samples: a file of x, y and nothing else (often without a header; the rate is stated in the paper)
read with a stated sampling rate, its time rebuilt as sample number / rate, and the report saying so.

The real case is the saccades package's example.csv (an EyeLink excerpt at 250 Hz, headerless t, x, y): its
x, y columns alone are the bare shape, and its own clock is the independent check of the rebuilt one."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.io.errors import DataError
from eyedp_core.io.sample_clock import REBUILT_CLOCK
from eyedp_core.io.steps import Step

EXAMPLE = (Path(__file__).resolve().parents[3].parent / "shared" / "realdata" / "saccades_testdata"
           / "example.csv")


def _example() -> pd.DataFrame:
    if not EXAMPLE.is_file():
        pytest.skip(f"saccades example.csv not found at {EXAMPLE}")
    return pd.read_csv(EXAMPLE, header=None, names=["t_ms", "x", "y"])


def _bare(frame: pd.DataFrame, header: bool = False) -> bytes:
    return frame[["x", "y"]].to_csv(index=False, header=header).encode()


def test_real_bare_samples_get_the_clock_the_tracker_had():
    raw = _example()
    rec = io.read_recording(_bare(raw), filename="example_xy.csv", options=io.ReadOptions(sampling_rate_hz=250))
    s = rec.samples
    assert rec.kind == "gaze" and len(s) == len(raw) == 148
    # The tracker's own clock (ms, every step 4 ms) and the rebuilt one agree sample for sample.
    assert np.unique(np.diff(raw["t_ms"])).tolist() == [4]
    np.testing.assert_allclose(s["t_s"].to_numpy(), (raw["t_ms"] - raw["t_ms"].iloc[0]).to_numpy() / 1000.0,
                               atol=1e-12)
    np.testing.assert_array_equal(s["x"].to_numpy(), raw["x"].to_numpy())
    np.testing.assert_array_equal(s["y"].to_numpy(), raw["y"].to_numpy())
    # The first line is a sample, not a header: it is row 1 and kept.
    assert s.index[0] == 1 and s["x"].iloc[0] == raw["x"].iloc[0]
    assert rec.counts["time_rebuilt"] == 148 and "dropped_missing" not in rec.counts
    text = " ".join(map(str, rec.warnings))
    assert "no header row (its first line holds only numbers): that line was read as data, row 1" in text
    assert "no time column: every recording's time was rebuilt from the stated sampling rate of 250 Hz" in text
    sentences = {r.step: r.sentence() for r in rec.reports}
    assert "no header row: its first line was read as data" in sentences[Step.PREVIEW]
    assert f"t_s ← {REBUILT_CLOCK}, x ← col1, y ← col2" in sentences[Step.MAP]
    assert "time rebuilt from 250 Hz for 1 recording without timestamps (148 rows)" in sentences[Step.VALIDATE]


def test_a_header_row_is_not_reported_as_data():
    raw = _example()
    rec = io.read_recording(_bare(raw, header=True), filename="xy.csv", options=io.ReadOptions(sampling_rate_hz=250))
    assert len(rec.samples) == 148 and rec.samples.index[0] == 2
    assert "no header row" not in " ".join(map(str, rec.warnings))
    assert "no header" not in " ".join(r.sentence() for r in rec.reports)


def test_without_a_rate_the_refusal_says_what_to_give():
    raw = _example()
    with pytest.raises(DataError, match=r"no sampling rate is given.*sampling_rate_hz="):
        io.read_recording(_bare(raw), filename="xy.csv", options=io.ReadOptions(kind="gaze"))


def test_normalised_bare_samples_need_their_units_and_screen():
    raw = _example()
    norm = raw.assign(x=raw["x"] / 640, y=raw["y"] / 480)
    with pytest.raises(DataError, match="normalised coordinates"):
        io.read_recording(_bare(norm), filename="n.csv", options=io.ReadOptions(sampling_rate_hz=250))
    screen = io.Geometry(640, 480, 400.0, 300.0, 600.0, "the study's screen")
    rec = io.read_recording(_bare(norm), filename="n.csv", geometry=screen, options=io.ReadOptions(sampling_rate_hz=250, units="norm"))
    np.testing.assert_allclose(rec.samples["x"].to_numpy(), raw["x"].to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(rec.samples["t_s"].to_numpy(), np.arange(148) / 250.0)


def test_each_recording_of_a_bare_table_starts_its_own_clock_and_lost_samples_keep_their_slot():
    frame = pd.DataFrame({"participant": ["A"] * 4 + ["B"] * 3,
                          "x": [10.0, np.nan, 12, 13, 20, 21, 22], "y": [5.0, np.nan, 7, 8, 9, 9, 9]})
    rec = io.read_recording(frame.to_csv(index=False).encode(), filename="two.csv", mapping={"participant": "participant", "x": "x", "y": "y"}, options=io.ReadOptions(kind="gaze", sampling_rate_hz=100))
    s = rec.samples
    assert s.loc[s.participant == "A", "t_s"].tolist() == pytest.approx([0.0, 0.01, 0.02, 0.03])
    assert s.loc[s.participant == "B", "t_s"].tolist() == pytest.approx([0.0, 0.01, 0.02])
    assert int(s["x"].isna().sum()) == 1
    # One time column already present: the rate changes nothing for a recording that has a clock.
    timed = frame.assign(t=np.r_[np.arange(4), np.arange(3)] * 0.004)
    kept = io.read_recording(timed.to_csv(index=False).encode(), filename="t.csv", options=io.ReadOptions(kind="gaze", sampling_rate_hz=100))
    assert kept.samples["t_s"].tolist() == pytest.approx([0, 0.004, 0.008, 0.012, 0, 0.004, 0.008])
    assert "time_rebuilt" not in kept.counts


def test_a_table_whose_column_is_already_named_like_the_rebuilt_clock_is_refused():
    frame = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0], REBUILT_CLOCK: ["a", "b"]})
    up = io.Upload(frame.to_csv(index=False).encode(), "odd.csv")
    with pytest.raises(DataError, match="already has a column named"):
        up.finish(up.full_table(), {"participant": io.WHOLE_FILE, "x": "x", "y": "y"},
                  io.ReadOptions(kind="gaze", sampling_rate_hz=100))


GAZEBASE = EXAMPLE.parents[1] / "gazebase_sample" / "S_1001_S1_TEX.csv"


def test_real_gazebase_as_bare_degrees_reads_and_windows_as_the_file_with_its_clock():
    """GazeBase's reading recording (1000 Hz, clock n in ms, invalid samples val = 4) written as bare x, y in
    degrees with an empty line for each invalid sample: the same samples, times and feature windows as the
    original read by its own reader, so bare samples reach Time series and Attacks unchanged."""
    if not GAZEBASE.is_file():
        pytest.skip(f"GazeBase sample not found at {GAZEBASE}")
    raw = pd.read_csv(GAZEBASE)
    bare = raw[["x", "y"]].mask(raw["val"] != 0).to_csv(index=False, header=False, na_rep="").encode()
    lost = int((raw["val"] != 0).sum())
    assert lost == 2005 and raw["n"].diff().dropna().eq(1).all() and raw["n"].iloc[0] == 0
    original = io.read_recording(GAZEBASE)
    rec = io.read_recording(bare, filename=GAZEBASE.name, geometry="gazebase", mapping={"participant": io.WHOLE_FILE, "x": "col1", "y": "col2", "units": "deg",
                                     "y_up": True}, options=io.ReadOptions(kind="gaze", sampling_rate_hz=1000))
    a, b = original.samples, rec.samples
    assert len(b) == len(a) == len(raw) and rec.counts["time_rebuilt"] == len(raw)
    np.testing.assert_allclose(b["t_s"].to_numpy(), a["t_s"].to_numpy(), atol=1e-9)
    np.testing.assert_array_equal(b["x"].isna().to_numpy(), a["x"].isna().to_numpy())
    np.testing.assert_allclose(b["x"].to_numpy(), a["x"].to_numpy(), rtol=1e-12)
    assert f"{lost:,} empty lines between samples were read as lost samples" in " ".join(map(str, rec.warnings))
    fa, fb = original.features(10.0), rec.features(10.0)
    # The bare file has no pupil column: its pupil features are empty, every other feature is the same.
    feats = [c for c in fa.columns if c not in ("participant", "recording") and "pupil" not in c]
    pupil = [c for c in fa.columns if "pupil" in c]
    assert pupil and fb[pupil].isna().all().all() and fa[pupil].notna().any().any()
    assert len(fa) == 6 and list(fb.columns) == list(fa.columns)
    np.testing.assert_allclose(fb[feats].to_numpy(float), fa[feats].to_numpy(float), rtol=1e-9, atol=1e-9)


def test_an_empty_line_keeps_its_slot_in_a_recording_whose_time_column_is_empty():
    """The rule for bare files holds for a time column that exists but is empty: a line with every cell empty
    (the parser leaves it out) is a lost sample of the recording above it, and the samples after it keep their
    times."""
    text = ("participant,t,x,y\n"
            "A,0.000,1,1\nA,0.004,2,2\n"
            "B,,10,10\n,,,\nB,,12,12\nB,,13,13\n")
    rec = io.read_recording(text.encode(), filename="gap.csv", mapping={"participant": "participant", "t_s": "t", "x": "x", "y": "y"}, options=io.ReadOptions(kind="gaze", sampling_rate_hz=100))
    b = rec.samples[rec.samples.participant == "B"]
    assert b["t_s"].tolist() == pytest.approx([0.0, 0.02, 0.03])
    bare = io.read_recording(b"10,10\n\n12,12\n13,13\n", filename="g.csv", options=io.ReadOptions(sampling_rate_hz=100))
    assert bare.samples["t_s"].tolist() == pytest.approx([0.0, 0.01, 0.02, 0.03])
    assert bare.samples["x"].isna().tolist() == [False, True, False, False]
