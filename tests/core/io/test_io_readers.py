"""Eye-tracker export readers (eyedp_core.io READERS) on real recordings and synthetic headers."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.io import readers as io_readers


def _raises(fn, *args, match: str, **kw) -> io.DataError:
    """Call fn, assert it raises DataError whose message matches; -> the error."""
    with pytest.raises(io.DataError, match=match) as info:
        fn(*args, **kw)
    return info.value


def _fgd_head(realdata, n: int = 50_000) -> bytes:
    """First n samples of the Uniss-FGD Tobii Studio export -> CSV bytes (read in memory)."""
    with gzip.open(realdata / "uniss_fgd" / "fgd_samples.csv.gz", "rb") as fh:
        return b"".join(fh.readline() for _ in range(n + 1))


def test_tobii_reader_on_real_tobii_studio_export(realdata):
    """Uniss-FGD Tobii Studio samples map to canonical gaze with ms->s and mean pupil."""
    raw = io.read_table(_fgd_head(realdata), "fgd_samples.csv")
    assert io.detect_reader(raw) == "tobii"
    df, mapping = io.READERS["tobii"].to_canonical(raw)
    assert mapping["t_s"] == "RecordingTimestamp" and mapping["time_unit"] == "ms"
    assert (mapping["x"], mapping["y"]) == ("GazePointX(MCSpx)", "GazePointY(MCSpx)")
    out = io.apply_mapping(df, mapping, "gaze", "fgd_samples.csv")
    assert len(out) == 50_000 and out["participant"].iloc[0] == "00"
    np.testing.assert_allclose(out["t_s"], raw["RecordingTimestamp"] / 1000)
    left, right = raw["PupilLeft"].to_numpy(), raw["PupilRight"].to_numpy()
    both = np.isfinite(left) & np.isfinite(right)
    np.testing.assert_allclose(out["pupil"][both], (left[both] + right[both]) / 2)
    only_left = np.isfinite(left) & ~np.isfinite(right)
    assert only_left.any() and np.allclose(out["pupil"][only_left], left[only_left])
    # Media coordinates are pixels of the 562 x 762 px face image the participants saw.
    assert io.check_in_bounds(out, 562, 762, "fgd_samples.csv") is None
    assert 0.01 < out["x"].isna().mean() < 0.1


def test_tobii_reader_on_a_plain_pandas_frame(realdata):
    """The Tobii reader also works on a frame read directly by pandas."""
    raw = pd.read_csv(realdata / "uniss_fgd" / "fgd_samples.csv.gz", nrows=5000)
    name = io.detect_reader(raw)
    df, mapping = io.READERS[name].to_canonical(raw)
    out = io.apply_mapping(df, mapping, "gaze", "fgd.csv")
    assert name == "tobii" and out["participant"].iloc[0] == "0" and out["stimulus"].iloc[0] == "AF09SAS.JPG"


def test_tobii_pro_lab_style_header_uses_unit_from_header():
    """A Pro Lab-style header is recognised; [μs] in the name sets the unit."""
    raw = pd.DataFrame({"Participant name": ["P1"] * 3, "Recording timestamp [μs]": [0, 8333, 16667],
                        "Gaze point X": [500.0, 501, 502], "Gaze point Y": [400.0, 401, 402],
                        "Pupil diameter left": [3.0, -1, np.nan], "Pupil diameter right": [4.0, 4, np.nan]})
    df, mapping = io.READERS[io.detect_reader(raw)].to_canonical(raw)
    out = io.apply_mapping(df, mapping, "gaze", "lab.tsv")
    assert mapping["time_unit"] == "us" and out["t_s"].iloc[2] == pytest.approx(0.016667)
    assert out["pupil"].iloc[:2].tolist() == [3.5, 4.0] and np.isnan(out["pupil"].iloc[2])


@pytest.mark.parametrize("name, columns", [
    ("eyelink", ["RECORDING_SESSION_LABEL", "TIMESTAMP", "RIGHT_GAZE_X", "RIGHT_GAZE_Y", "RIGHT_PUPIL_SIZE"]),
    ("pupil_labs", ["gaze_timestamp", "world_index", "confidence", "norm_pos_x", "norm_pos_y"]),
    ("pupil_labs", ["section id", "recording id", "timestamp [ns]", "gaze x [px]", "gaze y [px]"]),
    ("pupil_labs_fixations", ["id", "start_timestamp", "duration", "norm_pos_x", "norm_pos_y", "confidence"]),
    ("eyelink_fixations", ["RECORDING_SESSION_LABEL", "CURRENT_FIX_X", "CURRENT_FIX_Y", "CURRENT_FIX_DURATION"]),
    ("gazebase", ["n", "x", "y", "val", "dP", "lab", "xT", "yT"]),
])
def test_eyelink_pupil_labs_and_gazebase_headers_are_recognised(name, columns):
    """EyeLink reports, Pupil Labs exports and GazeBase recordings are detected from their headers."""
    assert io.detect_reader(columns) == name and io.READERS[name].supported


def test_eyelink_asc_text_is_sent_to_read_recording(realdata):
    """A real EyeLink ASC file is not a table: read_table says to read it as a recording."""
    data = (realdata / "saccades_testdata" / "example_eyelink_events.txt").read_bytes()
    _raises(io.read_table, data, "example_eyelink_events.txt", match="EyeLink ASC.*read_recording")
    assert io.peek_format(data, "example_eyelink_events.txt") == "eyelink_asc"


def test_edf_binary_is_refused_with_the_conversion_hint():
    """An EDF file (binary) is refused by every entry point with the edf2asc hint."""
    edf = b"SR_RESEARCH_1000FILE\nDATE: Fri Mar 14 14:03:21 2014\n" + bytes(range(256))
    _raises(io.read_table, edf, "s1.edf", match="EDF.*edf2asc")
    _raises(io.read_recording, edf, match="EDF.*edf2asc", filename="s1.edf")
    _raises(io.peek_format, edf, "s1.edf", match="edf2asc")


def test_reader_registry(monkeypatch):
    """Generic is the fallback, names are unique, and a registered reader is detected and used."""
    assert io.detect_reader(pd.DataFrame({"t": [0], "x": [1], "y": [2]})) == "generic"
    assert list(io.READERS)[-1] == "generic"
    with pytest.raises(ValueError, match="already registered"):
        io.register_reader(io.READERS["tobii"])
    monkeypatch.setattr(io_readers, "READERS", dict(io_readers.READERS))  # registry restored afterwards
    mine = io.Reader("mine", "My tracker", lambda d: "MY_T" in list(getattr(d, "columns", d)),
                     lambda d: (d, {"participant": io.WHOLE_FILE, "t_s": "MY_T", "x": "MX", "y": "MY",
                                    "time_unit": "ms"}))
    io.register_reader(mine)
    raw = pd.DataFrame({"MY_T": [0, 2], "MX": [100.0, 101], "MY": [50.0, 51]})
    name = io.detect_reader(raw)
    out = io.apply_mapping(*io_readers.READERS[name].to_canonical(raw), "gaze", "mine.csv")
    assert name == "mine" and out["t_s"].tolist() == [0.0, 0.002]
    assert io.detect_reader(["t", "MX"]) == "generic"


def test_generic_reader_on_headerless_saccades_example(realdata):
    """Headerless t,x,y example.csv maps to one participant at 250 Hz."""
    data = (realdata / "saccades_testdata" / "example.csv").read_bytes()
    raw = io.read_table(data, "example.csv")
    assert list(raw.columns) == ["col1", "col2", "col3"] and io.detect_reader(raw) == "generic"
    df, mapping = io.READERS["generic"].to_canonical(raw)
    assert mapping == {"participant": io.WHOLE_FILE, "t_s": "col1", "x": "col2", "y": "col3", "pupil": None,
                       "stimulus": None, "time_unit": "ms"}
    out = io.apply_mapping(df, mapping, "gaze", "example.csv")
    assert len(out) == 148 and set(out["participant"]) == {"example"} and out.index[0] == 1
    assert out["t_s"].iloc[0] == pytest.approx(257.724)
    np.testing.assert_allclose(np.diff(out["t_s"]), 0.004, atol=1e-9)  # 250 Hz, as its source says


def test_generic_reader_on_gazebase_refuses_degrees_without_geometry(realdata):
    """GazeBase columns are guessed; its degrees are refused as pixels, and converted with a geometry."""
    name = "S_1001_S1_TEX.csv"
    raw = io.read_table((realdata / "gazebase_sample" / name).read_bytes(), name)
    mapping = io.guess_mapping(raw, "gaze")
    assert (mapping["t_s"], mapping["time_unit"], mapping["x"], mapping["y"], mapping["pupil"]) == (
        "n", "ms", "x", "y", "dP")
    err = _raises(io.apply_mapping, raw, mapping, "gaze", name, match="degrees of visual angle")
    assert err.column == "x" and "geometry" in str(err)
    out = io.apply_mapping(raw, {**mapping, "units": "deg", "y_up": True}, "gaze", name,
                           geometry=io.PRESETS["gazebase"])
    assert out["x"].between(0, 1680).mean() > 0.95 and out.attrs["counts"]["off_screen"] > 0
