"""Gaze recordings without timestamps: time rebuilt as sample number / a stated sampling rate, or dropped with a
sentence offering the rate. Lund 2013's moving-dot trials are the real case (SMI at 500 Hz, no clock stored)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.io.errors import DataError
from eyedp_core.io.steps import Step

LUND = Path(__file__).resolve().parents[2].parent / "shared" / "realdata" / "lund2013" / "lund2013_samples.csv.gz"


def _csv(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def _synthetic() -> pd.DataFrame:
    """A: clock in ms; B: no clock, one sample without a position in the middle; C: no clock but a trailing zero
    stamp (tracker padding)."""
    a = pd.DataFrame({"participant": "A", "time_ms": [1000.0, 1004.0, 1008.0, 1012.0], "x": [100.0, 101, 102, 103],
                      "y": [50.0, 51, 52, 53]})
    b = pd.DataFrame({"participant": "B", "time_ms": np.nan, "x": [200.0, np.nan, 202, 203, 204],
                      "y": [60.0, 61, 62, 63, 64]})
    c = pd.DataFrame({"participant": "C", "time_ms": [np.nan, np.nan, np.nan, 0.0], "x": [300.0, 301, 302, 303],
                      "y": [70.0, 71, 72, 73]})
    return pd.concat([a, b, c], ignore_index=True)


MAPPING = {"participant": "participant", "t_s": "time_ms", "x": "x", "y": "y"}


def test_rate_rebuilds_time_per_recording_from_its_sample_number():
    rec = io.read_recording(_csv(_synthetic()), filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", sampling_rate_hz=250))
    s = rec.samples
    # A keeps its own clock, read in ms (the unit is guessed from A alone).
    assert s.loc[s.participant == "A", "t_s"].tolist() == pytest.approx([1.0, 1.004, 1.008, 1.012])
    # B: sample i at i / 250 s; the sample without a position keeps its slot (its x is missing, not dropped).
    b = s[s.participant == "B"]
    assert b["t_s"].tolist() == pytest.approx([0.0, 0.004, 0.008, 0.012, 0.016])
    assert int(b["x"].isna().sum()) == 1
    # C: three rebuilt samples, the zero stamp after them dropped as padding.
    assert s.loc[s.participant == "C", "t_s"].tolist() == pytest.approx([0.0, 0.004, 0.008])
    assert rec.counts["time_rebuilt"] == 8 and rec.counts["zero_time_dropped"] == 1
    assert "dropped_missing" not in rec.counts and len(s) == 12
    validate = next(r for r in rec.reports if r.step is Step.VALIDATE)
    assert "time rebuilt from 250 Hz for 2 recordings without timestamps (8 rows)" in validate.sentence()
    # Rebuilt time is not a drop: the report does not list it among what was dropped.
    assert "time_rebuilt" not in validate.dropped


def test_without_a_rate_the_rows_are_dropped_and_the_sentence_offers_the_rate():
    rec = io.read_recording(_csv(_synthetic()), filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze"))
    # C's zero stamp is padding, not a clock: C goes with B.
    assert rec.counts["dropped_missing"] == 8 and rec.counts["zero_time_dropped"] == 1
    assert set(rec.samples["participant"]) == {"A"}
    text = " ".join(str(w) for w in rec.warnings)
    assert "8 of them belong to 2 recordings without any timestamp: give the sampling rate (Hz)" in text
    assert "leave that column out" not in text
    validate = next(r for r in rec.reports if r.step is Step.VALIDATE)
    assert "2 recordings without timestamps (8 rows): a sampling rate would rebuild their time" in validate.sentence()
    assert io.Upload.recordings_without_time(_synthetic(), MAPPING) == 2
    assert io.Upload.recordings_without_time(_synthetic().query("participant == 'A'"), MAPPING) == 0


def test_a_recording_with_some_missing_times_is_not_rebuilt():
    df = _synthetic()
    df.loc[1, "time_ms"] = np.nan  # A loses one stamp: A has a clock, its empty row is dropped as before
    rec = io.read_recording(_csv(df), filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", sampling_rate_hz=250))
    assert rec.counts["dropped_missing"] == 1 and rec.counts["time_rebuilt"] == 8
    assert "belong to" not in " ".join(str(w) for w in rec.warnings)


def test_without_drop_missing_the_rate_still_rebuilds_and_no_rate_refuses():
    data = _csv(_synthetic())
    rec = io.read_recording(data, filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", sampling_rate_hz=250, drop_missing=False))
    assert len(rec.samples) == 12
    with pytest.raises(DataError):
        io.read_recording(data, filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", drop_missing=False))


@pytest.mark.parametrize("rate", [0, -500, float("nan"), float("inf"), 1e9, "fast"])
def test_an_impossible_rate_is_refused_with_a_message(rate):
    with pytest.raises(DataError, match="sampling rate"):
        io.read_recording(_csv(_synthetic()), filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", sampling_rate_hz=rate))


def test_a_text_cell_in_a_recording_without_clock_is_still_named():
    df = _synthetic().astype({"time_ms": object})
    df.loc[5, "time_ms"] = "later"
    with pytest.raises(DataError) as err:
        io.read_recording(_csv(df), filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", sampling_rate_hz=250))
    assert err.value.row == 7 and err.value.column == "time_ms"


def test_the_upload_object_takes_the_rate_in_its_options():
    up = io.Upload(_csv(_synthetic()), "s.csv")
    frame = up.full_table()
    rec = up.finish(frame, {**MAPPING, "time_unit": "ms"}, io.ReadOptions(kind="gaze", sampling_rate_hz=250))
    assert rec.counts["time_rebuilt"] == 8 and len(rec.samples) == 12


@pytest.mark.skipif(not LUND.is_file(), reason=f"Lund 2013 samples not found at {LUND}")
def test_lund2013_moving_dot_recordings_at_500_hz():
    raw = pd.read_csv(LUND)
    key = ["participant", "stimulus"]
    stamped = raw["t_us"].notna() & raw["t_us"].ne(0)
    clockless = raw.assign(s=stamped).groupby(key)["s"].transform("sum").eq(0)
    n_clockless = int(raw.loc[clockless, key].drop_duplicates().shape[0])
    empty_rows = int((clockless & raw["t_us"].isna()).sum())
    zeros = int(raw["t_us"].eq(0).sum())
    assert (n_clockless, empty_rows, zeros) == (24, 21_326, 13)  # every moving-dot trial, by hand

    without = io.read_recording(LUND)
    assert without.counts["dropped_missing"] == empty_rows
    assert "21,326 of them belong to 24 recordings without any timestamp" in " ".join(map(str, without.warnings))

    rec = io.read_recording(LUND, options=io.ReadOptions(sampling_rate_hz=500))
    s = rec.samples
    assert len(s) == len(raw) - zeros and s.groupby(key).ngroups == 63
    assert rec.counts["time_rebuilt"] == empty_rows and "dropped_missing" not in rec.counts
    validate = next(r for r in rec.reports if r.step is Step.VALIDATE)
    assert "time rebuilt from 500 Hz for 24 recordings without timestamps (21,326 rows)" in validate.sentence()
    th20 = s[(s.participant == "TH20") & (s.stimulus == "trial1")]
    assert len(th20) == 1658 and th20["t_s"].to_numpy() == pytest.approx(np.arange(1658) / 500.0)
    # The recordings with a clock are read exactly as without a rate; without it, no moving-dot row is left (the
    # three trials whose only stamp is a trailing zero lose that padding row too).
    assert without.samples.groupby(key).ngroups == 63 - n_clockless
    assert without.counts["zero_time_dropped"] == zeros == rec.counts["zero_time_dropped"]
    pd.testing.assert_frame_equal(s.loc[without.samples.index], without.samples)


def _page_csv(n_stamped: int = 300, n_clockless: int = 300) -> bytes:
    """A at 250 Hz with a clock in ms, then B with the same gaze path and no clock."""
    i = np.arange(max(n_stamped, n_clockless))
    x, y = 400 + 200 * np.sin(i / 40), 300 + 100 * np.cos(i / 55)
    a = pd.DataFrame({"participant": "A", "time_ms": i[:n_stamped] * 4.0, "x": x[:n_stamped], "y": y[:n_stamped]})
    b = pd.DataFrame({"participant": "B", "time_ms": np.nan, "x": x[:n_clockless], "y": y[:n_clockless]})
    return _csv(pd.concat([a, b], ignore_index=True))


def _rate_inputs(at) -> list:
    return [n for n in at.number_input if n.key and n.key.startswith("yd_rate_")]


def test_your_data_asks_for_the_rate_only_when_a_recording_has_no_clock_and_uses_it():
    from tests.apptest import open_app, page_text

    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("gaze").run()
    at.file_uploader(key="uploader_gaze").set_value(("stamped.csv", _page_csv(300, 0), "text/csv")).run()
    assert not at.exception and not _rate_inputs(at)

    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("gaze").run()
    at.file_uploader(key="uploader_gaze").set_value(("dots.csv", _page_csv(), "text/csv")).run()
    assert not at.exception, at.exception
    [rate] = _rate_inputs(at)
    assert "1 recording in the first rows has no timestamps" in page_text(at)
    rate.set_value(250.0).run()
    [b for b in at.button if b.label == "Use this data"][0].click().run()
    assert not at.exception, at.exception
    ok = " ".join(s.value for s in at.success)
    assert "dots.csv loaded (600 rows" in ok, page_text(at)
    assert "time rebuilt from 250 Hz for 1 recording without timestamps (300 rows)" in page_text(at)


def test_your_data_without_a_rate_drops_them_and_offers_the_rate_when_found_past_the_preview():
    from tests.apptest import open_app, page_text

    at = open_app("pages/your_data.py")
    at.radio(key="upload_kind").set_value("gaze").run()
    at.file_uploader(key="uploader_gaze").set_value(("late.csv", _page_csv(5200, 300), "text/csv")).run()
    assert not at.exception and not _rate_inputs(at)  # B starts after the 5,000-row preview
    [b for b in at.button if b.label == "Use this data"][0].click().run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "late.csv loaded (5,200 rows" in text and "give the sampling rate (Hz)" in text
    [rate] = _rate_inputs(at)
    assert "Some recordings in the file have no timestamps" in page_text(at)


def test_a_recording_stamped_all_zeros_is_still_refused_by_the_time_check():
    df = _synthetic()
    df.loc[df.participant == "A", "time_ms"] = 0.0  # no empty cell: not a recording without timestamps
    with pytest.raises(DataError, match="strictly increase"):
        io.read_recording(_csv(df), filename="s.csv", mapping=MAPPING, options=io.ReadOptions(kind="gaze", sampling_rate_hz=250))
