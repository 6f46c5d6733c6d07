"""Upload parsing and validation (eyedp_core.io): tables, column mapping, checks, readers, CSV export."""
from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from eyedp_core.io import uploads as io


def _gaze_csv(n: int = 30, participants: tuple[str, ...] = ("P1", "P2")) -> bytes:
    """n samples per participant at 250 Hz (ms clock), pixel coordinates -> CSV bytes."""
    rng = np.random.default_rng(3)
    rows = ["participant,t_ms,x,y,pupil"]
    for p in participants:
        for i in range(n):
            rows.append(f"{p},{1000 + 4 * i},{rng.uniform(100, 900):.2f},{rng.uniform(100, 700):.2f},3.5")
    return ("\n".join(rows) + "\n").encode()


def _raises(fn, *args, match: str, **kw) -> io.DataError:
    """Call fn, assert it raises DataError whose message matches; -> the error."""
    with pytest.raises(io.DataError, match=match) as info:
        fn(*args, **kw)
    assert isinstance(info.value, ValueError)
    return info.value


# --- read_table ----------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [b"", b"  \r\n\n\t\n"])
def test_empty_file_is_refused(data):
    """An empty or whitespace-only upload is refused as empty, naming the file."""
    err = _raises(io.read_table, data, "gaze.csv", match="empty")
    assert err.file == "gaze.csv" and str(err).startswith("gaze.csv: ")


def test_undecodable_text_names_the_line():
    """Bytes that are neither UTF-8 nor Latin-1 text give an error naming the line."""
    # 0x81 is undefined in Windows-1252 and invalid UTF-8: no Western text encoding yields it.
    err = _raises(io.read_table, b"participant,x\nP1,1\nA\x81,2\n", "g.csv", match="UTF-8 or Latin-1")
    assert err.row == 3 and "0x81" in str(err)


def test_latin1_and_utf_boms_are_read():
    """Latin-1, UTF-8 with BOM and UTF-16 with BOM all decode to the right text."""
    latin = io.read_table("participant,x\nJosé,1\n".encode("latin-1"), "a.csv")
    assert latin["participant"].iloc[0] == "José"
    assert list(io.read_table(b"\xef\xbb\xbfparticipant,x\nA,1\n", "b.csv").columns) == ["participant", "x"]
    utf16 = io.read_table("participant\tx\nZoë\t2\n".encode("utf-16"), "c.txt")
    assert utf16["participant"].iloc[0] == "Zoë" and utf16["x"].iloc[0] == 2


@pytest.mark.parametrize("data, what", [
    (bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8)), "binary file"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, "PNG image"),
    (b"PK\x03\x04" + b"\x00" * 50, "Excel .xlsx"),
])
def test_binary_upload_as_csv_is_refused(data, what):
    """Random bytes, a PNG or an .xlsx uploaded as CSV are refused, saying what they are."""
    err = _raises(io.read_table, data, "gaze.csv", match=what)
    assert "not a CSV/TSV text table" in str(err)


@pytest.mark.parametrize("text", [
    "participant,t,x,y\nP1,0.5,500.25,300\nP1,1.5,501.75,301\n",
    "participant\tt\tx\ty\nP1\t0.5\t500.25\t300\nP1\t1.5\t501.75\t301\n",
    "participant;t;x;y\nP1;0,5;500,25;300\nP1;1,5;501,75;301\n",  # decimal commas
    "participant  t  x  y\nP1  0.5  500.25  300\nP1  1.5  501.75  301\n",
    '"participant","t","x","y"\r\n"P1",0.5,500.25,300\r\n"P1",1.5,501.75,301\r\n',
])
def test_delimiters_are_sniffed(text):
    """Comma, tab, semicolon (decimal comma), spaces and quoted CSV give the same table."""
    df = io.read_table(text.encode(), "g.csv")
    assert list(df.columns) == ["participant", "t", "x", "y"]
    assert df["x"].tolist() == [500.25, 501.75] and df["t"].tolist() == [0.5, 1.5]
    assert df.index.tolist() == [2, 3] and df.index.name == "row"


def test_single_column_file_is_refused():
    """A file without any delimiter is refused as having one column."""
    _raises(io.read_table, b"participant\nP1\nP2\n", "ids.csv", match="only one column")


def test_header_without_data_and_ragged_rows_are_refused():
    """A header-only file and a row with too many fields are refused (row named)."""
    _raises(io.read_table, b"participant,t,x,y\n", "h.csv", match="no data rows")
    err = _raises(io.read_table, b"a,b,c\n1,2,3\n4,5,6\n7,8,9,10\n", "r.csv", match="more fields")
    assert err.row == 4


def test_blank_and_comment_lines_keep_spreadsheet_row_numbers():
    """Skipped comment and blank lines do not shift the row numbers."""
    df = io.read_table(b"# exported by tracker\n\nparticipant,t,x\nP1,1,2\n\nP1,2,3\n", "c.csv")
    assert df.index.tolist() == [4, 6] and df["x"].tolist() == [2, 3]


def test_headerless_numeric_file_gets_generic_names():
    """A first row of numbers means no header: columns col1..colN, rows from 1."""
    df = io.read_table(b"0,1.5,2.5\n4,1.5,2.5\n8,1.5,2.5\n", "raw.csv")
    assert list(df.columns) == ["col1", "col2", "col3"] and df.index.tolist() == [1, 2, 3]


def test_participant_ids_keep_leading_zeros():
    """Participant IDs stay text, so '007' is not turned into 7."""
    df = io.read_table(b"ParticipantName,t,x,y\n007,1,2,3\n010,2,2,3\n", "z.csv")
    assert df["ParticipantName"].tolist() == ["007", "010"]
    spaced = io.read_table(b"subject , x\n007 , 1\n", "s.csv")  # header and value padded with spaces
    assert list(spaced.columns) == ["subject", "x"] and spaced["subject"].str.strip().tolist() == ["007"]


def test_size_and_row_limits():
    """Byte, decompressed-byte and row limits refuse large uploads, state the real size, and accept ones at the limit."""
    err = _raises(io.read_table, b"a,b\n" + b"1,2\n" * 300, "big.csv", limits=io.Limits(max_bytes=1000), match="limit is")
    assert "1,204 bytes" in str(err) and "1,000 bytes" in str(err)  # the real size, not just the limit
    bomb = gzip.compress(b"a,b\n" + b"1,2\n" * 10_000)  # ~40 kB unpacked from well under 1 kB
    assert len(bomb) < 1000
    err = _raises(io.read_table, bomb, "bomb.csv.gz", limits=io.Limits(max_bytes=1000, max_unpacked=1000),
                  match="once decompressed")
    assert "40,004 bytes once decompressed" in str(err) and "limit is 1,000 bytes" in str(err)
    _raises(io.read_table, b"a,b\n" + b"1,2\n" * 101, "rows.csv", limits=io.Limits(max_rows=100), match="more than 100 data rows")
    assert len(io.read_table(b"a,b\n" + b"1,2\n" * 100, "ok.csv", limits=io.Limits(max_rows=100))) == 100
    assert len(io.read_table(gzip.compress(b"a,b\n1,2\n"), "ok.csv.gz")) == 1


def test_library_reads_have_no_size_limit_but_the_web_limits_are_stated():
    """read_table without limits reads past the web cap; WEB_LIMITS match .streamlit/config.toml (>= 200 MB), in
    the megabytes of 1,000,000 bytes Streamlit's uploader refuses larger files by."""
    import tomllib
    from pathlib import Path

    assert len(io.read_table(b"a,b\n" + b"1,2\n" * 300, "big.csv")) == 300
    config = tomllib.loads((Path(__file__).resolve().parents[3] / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 10**6 == io.MAX_UPLOAD_BYTES >= 200 * 10**6
    assert io.WEB_LIMITS.max_bytes == io.MAX_UPLOAD_BYTES


# --- guess_mapping -------------------------------------------------------------------------------

@pytest.mark.parametrize("columns, kind, expected", [
    (["participant", "stimulus", "t_us", "pupil_w", "x_px", "y_px"], "gaze",
     {"participant": "participant", "t_s": "t_us", "x": "x_px", "y": "y_px", "pupil": "pupil_w",
      "stimulus": "stimulus", "time_unit": "us"}),
    (["Subject", "Time (s)", "GazeX", "GazeY", "xT"], "gaze",
     {"participant": "Subject", "t_s": "Time (s)", "x": "GazeX", "y": "GazeY", "time_unit": "s"}),
    (["image", "subject", "fix_index", "x", "y", "duration_ms"], "fixations",
     {"observer": "subject", "x": "x", "y": "y", "stimulus": "image", "duration_ms": "duration_ms",
      "time_unit": "ms"}),
    (["pid", "sex", "task", "window", "t_start_s", "blink_rate"], "features",
     {"participant": "pid", "gender": "sex", "task": "task", "window": "window", "t_start_s": "t_start_s"}),
])
def test_guess_mapping_by_column_names(columns, kind, expected):
    """Common column names are mapped to the right roles for each kind."""
    df = pd.DataFrame({c: [1.0, 2.0, 3.0] for c in columns})
    guess = io.guess_mapping(df, kind)
    assert {k: v for k, v in guess.items() if v is not None} == expected
    assert [r.name for r in io.ROLES[kind]] == [k for k in guess if k != "time_unit"]


def test_guess_gives_whole_file_when_no_participant_column():
    """No participant column -> WHOLE_FILE; an unknown kind is a ValueError."""
    guess = io.guess_mapping(pd.DataFrame({"t": [0.0], "x": [1.0], "y": [2.0]}), "gaze")
    assert guess["participant"] == io.WHOLE_FILE
    with pytest.raises(ValueError, match="kind"):
        io.guess_mapping(pd.DataFrame({"a": [1]}), "heatmap")


@pytest.mark.parametrize("name, step, unit", [
    ("t_us", 0.004, "us"), ("RecordingTimestamp", 4000, "ms"), ("time_s", 4, "s"), ("Time [ms]", 1e-3, "ms"),
    ("t", 0.004, "s"), ("t", 1 / 30, "s"), ("t", 4, "ms"), ("t", 1, "ms"), ("t", 2000, "us"),
    ("t", 16_667, "us"),
])
def test_time_unit_guess(name, step, unit):
    """The time unit comes from the column name, else from the median sampling step."""
    assert io.guess_time_unit(1e5 + step * np.arange(50), name) == unit


# --- apply_mapping -------------------------------------------------------------------------------

def test_non_numeric_value_names_file_row_column_and_value():
    """A non-number in x names file, spreadsheet row, column, value and count."""
    lines = _gaze_csv(20, ("P1",)).decode().splitlines()
    lines[15] = "P1,1060,abc,300,3.5"  # line 16 of the file = the 15th data row, row 16 in a spreadsheet
    lines[18] = "P1,1072,n/a?,300,3.5"
    raw = io.read_table(("\n".join(lines)).encode(), "gaze.csv")
    err = _raises(io.apply_mapping, raw, io.guess_mapping(raw, "gaze"), "gaze", "gaze.csv",
                  match=r"^gaze\.csv, row 16, column 'x': expected a number, found 'abc'\. 2 rows")
    assert (err.row, err.column, err.count, err.found) == (16, "x", 2, "'abc'")
    assert "header on the first line is row 1" in str(err)


def test_gaze_mapping_gives_canonical_columns_in_seconds():
    """Gaze mapping yields canonical columns and converts every time unit to seconds."""
    raw = io.read_table(_gaze_csv(), "gaze.csv")
    out = io.apply_mapping(raw, io.guess_mapping(raw, "gaze"), "gaze", "gaze.csv")
    assert list(out.columns) == ["participant", "t_s", "x", "y", "pupil"]
    assert out["t_s"].iloc[:2].tolist() == [1.0, 1.004] and out.index[0] == 2
    assert out.attrs["warnings"] == []
    for unit, factor in [("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6)]:
        got = io.apply_mapping(raw, {**io.guess_mapping(raw, "gaze"), "time_unit": unit}, "gaze", "g.csv")
        np.testing.assert_allclose(got["t_s"], raw["t_ms"] * factor)


def test_blinks_allowed_in_xy_pupil_but_not_in_time_or_participant():
    """Empty x/y/pupil (blinks) pass; empty time or participant are refused."""
    lines = _gaze_csv(10, ("P1",)).decode().splitlines()
    lines[3] = "P1,1008,,,"  # a blink: row 4
    raw = io.read_table("\n".join(lines).encode(), "g.csv")
    out = io.apply_mapping(raw, io.guess_mapping(raw, "gaze"), "gaze", "g.csv")
    assert out.loc[4, ["x", "y", "pupil"]].isna().all() and out["x"].notna().sum() == 9
    no_time = io.read_table(_gaze_csv(10, ("P1",)).decode().replace(",1012,", ",,").encode(), "g.csv")
    err = _raises(io.apply_mapping, no_time, io.guess_mapping(no_time, "gaze"), "gaze", "g.csv",
                  match="expected a timestamp, found an empty cell")
    assert err.row == 5
    no_id = io.read_table(_gaze_csv(10, ("P1",)).decode().replace("P1,1016,", ",1016,").encode(), "g.csv")
    assert _raises(io.apply_mapping, no_id, io.guess_mapping(no_id, "gaze"), "gaze", "g.csv",
                   match="found an empty cell").column == "participant"


def test_backwards_and_repeated_timestamps_name_participant_and_row():
    """Backwards or repeated times are refused per recording, naming who and where."""
    base = "participant,stimulus,t_ms,x,y\n"
    backwards = base + "A,s1,0,10,10\nA,s1,4,10,10\nB,s1,0,10,10\nB,s1,8,10,10\nB,s1,6,10,10\nB,s1,7,10,10\n"
    raw = io.read_table(backwards.encode(), "g.csv")
    mapping = {**io.guess_mapping(raw, "gaze"), "stimulus": None}
    err = _raises(io.apply_mapping, raw, mapping, "gaze", "g.csv", match="participant 'B'")
    assert err.row == 6 and "goes backwards from 8 ms (row 5) to 6 ms" in str(err)
    repeated = base + "A,s1,0,10,10\nA,s1,4,10,10\nA,s1,4,10,10\n"
    raw = io.read_table(repeated.encode(), "g.csv")
    assert _raises(io.apply_mapping, raw, io.guess_mapping(raw, "gaze"), "gaze", "g.csv",
                   match="4 ms of row 3 appears again").row == 4
    # The clock restarts per stimulus: accepted once the stimulus column is mapped, refused without it.
    restart = base + "A,s1,0,10,10\nA,s1,4,10,10\nA,s2,0,10,10\nA,s2,4,10,10\nB,s1,0,1,1\n"
    raw = io.read_table(restart.encode(), "g.csv")
    assert len(io.apply_mapping(raw, io.guess_mapping(raw, "gaze"), "gaze", "g.csv")) == 5
    _raises(io.apply_mapping, raw, {**io.guess_mapping(raw, "gaze"), "stimulus": None}, "gaze", "g.csv",
            match="stimulus/trial column")


def test_mapping_errors_missing_role_unknown_column_reused_column():
    """Missing role, unknown column, reused column and bad unit are refused."""
    raw = io.read_table(_gaze_csv(5), "g.csv")
    mapping = io.guess_mapping(raw, "gaze")
    _raises(io.apply_mapping, raw, {**mapping, "y": None}, "gaze", "g.csv", match="required role 'y'")
    assert _raises(io.apply_mapping, raw, {**mapping, "x": "gaze_x"}, "gaze", "g.csv",
                   match="not in the table").column == "gaze_x"
    _raises(io.apply_mapping, raw, {**mapping, "y": "x"}, "gaze", "g.csv", match="same column")
    _raises(io.apply_mapping, raw, {**mapping, "time_unit": "hours"}, "gaze", "g.csv", match="time unit")


def test_whole_file_participant_is_named_after_the_file():
    """WHOLE_FILE names the single participant after the file."""
    raw = io.read_table(b"t,x,y\n0,100,200\n1,110,210\n", "S_1001_S1_TEX.csv.gz")
    mapping = {"participant": io.WHOLE_FILE, "t_s": "t", "x": "x", "y": "y", "time_unit": "s"}
    out = io.apply_mapping(raw, mapping, "gaze", "S_1001_S1_TEX.csv.gz")
    assert out["participant"].unique().tolist() == ["S_1001_S1_TEX"]


@pytest.mark.parametrize("scale, offset, looks", [(20.0, 0.0, "degrees"), (0.5, 0.5, "normalised")])
def test_coordinates_that_are_not_pixels_are_refused(scale, offset, looks):
    """Degrees of visual angle and 0-1 coordinates are refused with a pixel hint."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"p": "A", "t": np.arange(100) * 0.01, "x": offset + rng.uniform(-scale, scale, 100),
                       "y": offset + rng.uniform(-scale, scale, 100) / 2})
    mapping = {"participant": "p", "t_s": "t", "x": "x", "y": "y", "time_unit": "s"}
    _raises(io.apply_mapping, df, mapping, "gaze", "deg.csv", match=f"look like {looks}.*pixels")


def test_fixations_duration_must_not_be_negative():
    """Negative fixation durations are refused; valid fixations get canonical columns."""
    raw = io.read_table(b"subject,image,x,y,duration_ms\n1,a.jpg,10,20,200\n1,a.jpg,30,40,-5\n", "f.csv")
    err = _raises(io.apply_mapping, raw, io.guess_mapping(raw, "fixations"), "fixations", "f.csv",
                  match="not negative")
    assert (err.row, err.column) == (3, "duration_ms")
    ok = io.apply_mapping(raw.iloc[:1], io.guess_mapping(raw, "fixations"), "fixations", "f.csv")
    assert list(ok.columns) == ["observer", "x", "y", "stimulus", "duration_ms"]
    assert ok["observer"].iloc[0] == "1"


def _features(lengths: dict[str, int]) -> pd.DataFrame:
    """Participant -> number of windows => raw feature table with a text column."""
    parts = [pd.DataFrame({"pid": p, "window": np.arange(n), "fix_rate": np.linspace(1, 2, n), "note": "ok"})
             for p, n in lengths.items()]
    return pd.concat(parts, ignore_index=True)


def test_feature_columns_must_be_numeric_and_text_columns_are_labels_or_skipped():
    """Feature columns must be numbers; all-text columns are kept as labels (default) or skipped with a warning
    when the mapping lists the labels."""
    df = _features({"a": 10, "b": 10})
    out = io.apply_mapping(df, io.guess_mapping(df, "features"), "features", "f.csv")
    assert list(out.columns) == ["participant", "window", "fix_rate", "note"]
    assert [w.details.get("labels") for w in out.attrs["warnings"]] == [["note"]]
    assert not pd.api.types.is_numeric_dtype(out["note"]) and set(out["note"]) == {"ok"}
    out = io.apply_mapping(df, {**io.guess_mapping(df, "features"), "labels": []}, "features", "f.csv")
    assert list(out.columns) == ["participant", "window", "fix_rate"]
    assert [w.details.get("skipped") for w in out.attrs["warnings"]] == [["note"]]
    df["fix_rate"] = df["fix_rate"].astype(object)
    df.loc[7, "fix_rate"] = "1,5"
    err = _raises(io.apply_mapping, df, io.guess_mapping(df, "features"), "features", "f.csv",
                  match="expected a number, found '1,5'")
    assert (err.row, err.column) == (9, "fix_rate")
    _raises(io.apply_mapping, _features({"a": 3}), {"participant": "pid", "features": ["note"]}, "features",
            "f.csv", match="found 'ok'")
    # Left unmapped, 'window' would pass as a feature and be mistaken for the window index downstream.
    assert _raises(io.apply_mapping, _features({"a": 3}), {"participant": "pid"}, "features", "f.csv",
                   match="name of a role").column == "window"


def test_feature_recordings_of_very_different_lengths_give_a_warning_with_lengths():
    """Recordings shorter than half the longest give a warning with every length."""
    out = io.apply_mapping(_features({"a": 40, "b": 38, "c": 12}), {"participant": "pid", "window": "window"},
                           "features", "f.csv")
    (warn,) = [w for w in out.attrs["warnings"] if "lengths" in w.details]
    assert warn.details["lengths"] == {"c": 12, "a": 40, "b": 38}
    assert "12 windows" in str(warn) and "40" in str(warn) and "public length T" in str(warn)
    even = io.apply_mapping(_features({"a": 40, "b": 21}), {"participant": "pid", "window": "window"},
                            "features", "f.csv")
    assert not [w for w in even.attrs["warnings"] if "lengths" in w.details]


def test_check_in_bounds_names_first_row_and_counts():
    """Out-of-stimulus rows: first one named with the count; tolerance widens the box."""
    raw = io.read_table(b"observer,x,y\nA,10,10\nA,805,10\nA,50,700\nB,-3,3\nB,799,599\n", "f.csv")
    fix = io.apply_mapping(raw, {"observer": "observer", "x": "x", "y": "y"}, "fixations", "f.csv")
    err = _raises(io.check_in_bounds, fix, 800, 600, "f.csv", match="found 805. 3 of 5 rows")
    assert (err.row, err.column, err.count) == (3, "x", 3)
    # Within 5 px of the edge counts as inside: only y = 700 is left out.
    err = _raises(io.check_in_bounds, fix, 800, 600, "f.csv", tolerance_px=5, match="0 ≤ y ≤ 600")
    assert (err.row, err.column, err.count) == (4, "y", 1)
    assert io.check_in_bounds(fix, 810, 700, "f.csv", tolerance_px=3) is None


# --- export and error object ---------------------------------------------------------------------

def test_to_csv_bytes_round_trips_through_read_table():
    """to_csv_bytes drops the index and reads back to the same table."""
    df = pd.DataFrame({"participant": ["P1", "Zoë"], "t_s": [0.001, 1e-7], "x": [np.nan, 3.25]},
                      index=pd.Index([5, 9], name="row"))
    data = io.to_csv_bytes(df)
    assert data.startswith(b"participant,t_s,x\n")
    back = io.read_table(data, "back.csv")
    pd.testing.assert_frame_equal(back.reset_index(drop=True), df.reset_index(drop=True))


def test_data_error_carries_its_location():
    """DataError keeps its attributes and renders 'file, row N, column 'c': message'."""
    err = io.DataError("expected a number, found 'abc'.", file="gaze.csv", row=17, column="x",
                       expected="a number")
    assert str(err).startswith("gaze.csv, row 17, column 'x': expected a number, found 'abc'.")
    assert (err.file, err.row, err.column, err.expected) == ("gaze.csv", 17, "x", "a number")
    assert str(io.DataError("the file is empty.", file="a.csv")) == "a.csv: the file is empty."


def test_label_role_keeps_chosen_columns_as_text_for_the_attacks():
    """mapping['labels']: chosen columns (numbers too) stay as text labels, are not features, and the attacks'
    task list offers them; a label that is a role's column, or missing, is a DataError naming it."""
    from eyedp_core.attacks.tables import label_columns

    df = _features({"a": 6, "b": 6}).assign(passage=lambda d: d.index % 2 + 1, cond=lambda d: d["pid"] + "x")
    mapping = {"participant": "pid", "window": "window", "labels": ["passage", "cond"]}
    out = io.apply_mapping(df, mapping, "features", "f.csv")
    assert [c for c in out.columns if c not in ("participant", "window")] == ["fix_rate", "passage", "cond"]
    assert list(out["passage"].iloc[:3]) == ["1", "2", "1"] and label_columns(out) == ["passage", "cond"]
    assert _raises(io.apply_mapping, df, {**mapping, "labels": ["pid"]}, "features", "f.csv",
                   match="already chosen").column == "pid"
    assert _raises(io.apply_mapping, df, {**mapping, "labels": ["nope"]}, "features", "f.csv",
                   match="not in the table").column == "nope"
    _raises(io.apply_mapping, df, {**mapping, "labels": "cond"}, "features", "f.csv", match="list of column")


def test_the_io_package_re_exports_every_name_of_uploads() -> None:
    """eyedp_core.io loads its names on first use; its list must follow eyedp_core.io.uploads.__all__."""
    import eyedp_core.io as io
    from eyedp_core.io import uploads

    assert sorted(io._UPLOADS) == sorted(uploads.__all__)
    for name in io.__all__:
        assert getattr(io, name) is not None
