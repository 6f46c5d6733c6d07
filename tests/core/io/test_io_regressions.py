"""Named hostile inputs: bad input never ends in an exception box.

Each test is one input that could raise something other than DataError (an exception box on the page) or
be misread; it must give a valid table or a DataError naming file, row, column and expectation.
"""
from __future__ import annotations

import gzip
import struct
import time
import zlib

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io


def _png(width: int, height: int, *, bad_crc: bool = False) -> bytes:
    """A PNG header declaring width x height (almost no pixel data); bad_crc breaks the IHDR checksum."""
    def chunk(kind: bytes, body: bytes, crc_fix: int = 0) -> bytes:
        """Chunk type and body -> length + type + body + CRC."""
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", (zlib.crc32(kind + body) ^ crc_fix))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr, 1 if bad_crc else 0)
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


# --- read_table ----------------------------------------------------------------------------------

@pytest.mark.parametrize("blank", ["\f", "\u00a0", "\f\u00a0 \t", "\v"])
def test_read_table_40000_blank_lines_of_form_feeds_or_no_break_spaces(blank):
    """Was IndexError: 40,000 lines of form feeds / no-break spaces before the header are skipped."""
    text = (blank + "\n") * 40_000 + "participant,t,x,y\nP1,0,1,2\nP1,1,3,4\n"
    df = io.read_table(text.encode("utf-8"), "ff.csv")
    assert list(df.columns) == ["participant", "t", "x", "y"]
    assert df.index.tolist() == [40_002, 40_003]  # rows still count the skipped lines


@pytest.mark.parametrize("blank", ["\f", "\u00a0"])
def test_read_table_only_blank_lines_is_empty(blank):
    """A file of nothing but such lines is refused as empty, not with an IndexError."""
    with pytest.raises(io.DataError, match="empty"):
        io.read_table(((blank + "\n") * 40_000).encode("utf-8"), "blank.csv")


def test_names_that_differ_only_by_surrounding_spaces_are_made_unique_and_reported():
    """Was AttributeError/ValueError in guess/apply_mapping: ' x' and 'x' collide once stripped."""
    df = io.read_table(b"participant,t, x,x ,y\nP1,0,1,2,3\nP1,1,4,5,6\n", "dup.csv")
    assert list(df.columns) == ["participant", "t", "x", "x.1", "y"]
    assert any("renamed" in str(w) for w in df.attrs["warnings"])
    guess = io.guess_mapping(df, "gaze")
    out = io.apply_mapping(df, guess, "gaze", "dup.csv")
    assert out["x"].tolist() == [1.0, 4.0]


def test_a_frame_with_duplicate_names_gives_data_errors_not_crashes():
    """A DataFrame built in code with two 'x' columns: guess works, apply_mapping names the column."""
    df = pd.DataFrame([[0, 1.0, 2.0, 3.0], [1, 4.0, 5.0, 6.0]], columns=["t", "x", "x", "y"])
    guess = io.guess_mapping(df, "gaze")
    assert guess["x"] == "x"
    with pytest.raises(io.DataError, match="two columns of the table have this name") as info:
        io.apply_mapping(df, guess, "gaze", "frame")
    assert info.value.column == "x"


def test_label_column_of_whole_floats_beyond_2_to_the_63():
    """Was TypeError casting to int64: huge whole-number labels are written out, not cast."""
    df = pd.DataFrame({"observer": [2.0**63, 1e300, 3.0, np.nan], "x": [1.0, 2, 3, 4], "y": [1.0, 2, 3, 4]})
    out = io.apply_mapping(df, {"observer": "observer", "x": "x", "y": "y"}, "fixations", "big.csv",
                           drop_missing=True)
    assert out["observer"].tolist()[:3] == ["9223372036854775808", f"{1e300:.0f}", "3"]


def test_a_million_columns_are_refused_before_parsing_stating_the_count():
    """Was minutes and 2.6 GB: the header's column count is checked before pandas sees the file."""
    header = ",".join(f"c{i}" for i in range(1_000_000)).encode()
    data = header + b"\n" + b",".join([b"1"] * 1_000_000) + b"\n"
    start = time.perf_counter()
    with pytest.raises(io.DataError, match="1,000,000 columns; the limit is 5,000") as info:
        io.read_table(data, "wide.csv")
    assert time.perf_counter() - start < 3.0 and info.value.row == 1


def test_too_many_columns_in_a_frame_given_to_apply_mapping():
    """The same limit holds for frames built in code."""
    df = pd.DataFrame(np.zeros((2, io.MAX_COLUMNS + 1)))
    with pytest.raises(io.DataError, match="5,001 columns"):
        io.apply_mapping(df, {"participant": io.WHOLE_FILE, "t_s": "0", "x": "1", "y": "2"}, "gaze", "w")


def test_gzip_bomb_states_its_real_size():
    """Was '50.0 MB once decompressed; the limit is 50 MB': the real unpacked size is read from the trailer."""
    bomb = gzip.compress(b"a,b\n" + b"1,2\n" * 3_000_000)  # 12 MB unpacked
    with pytest.raises(io.DataError) as info:
        io.read_table(bomb, "bomb.csv.gz", limits=io.Limits(max_unpacked=5 * 10**6))
    assert "expands to 12.0 MB once decompressed" in str(info.value)
    assert "the limit is 5 MB once decompressed" in str(info.value)


def test_truncated_gzip_is_called_truncated():
    """A gzip file cut short is refused as truncated."""
    data = gzip.compress(b"a,b\n" + b"1,2\n" * 1000)
    with pytest.raises(io.DataError, match="truncated"):
        io.read_table(data[: len(data) // 2], "cut.csv.gz")


# --- images --------------------------------------------------------------------------------------

def test_one_by_twelve_million_pixel_image_is_refused_by_its_side():
    """Was a crash in the preview (JPEG sides <= 65,500 px): a side over MAX_IMAGE_SIDE is refused from the header."""
    with pytest.raises(io.DataError, match="1 × 12,000,000 px; no side may be longer than 16,384 px"):
        io.load_image(_png(1, 12_000_000), "strip.png")


def test_png_with_a_bad_checksum_is_called_damaged():
    """Was 'not a PNG or JPEG': a PNG whose header checksum is wrong is damaged."""
    with pytest.raises(io.DataError, match="starts like a PNG image but is damaged"):
        io.load_image(_png(10, 10, bad_crc=True), "crc.png")


def test_pixel_limit_message_never_reads_the_same_on_both_sides():
    """Was '12.0 megapixels; the limit is 12.0 megapixels'."""
    with pytest.raises(io.DataError) as info:
        io.load_image(_png(4000, 3001), "edge.png")
    assert "12.004 megapixels; the limit is 12.000 megapixels" in str(info.value)


# --- misreadings of real files -------------------------------------------------------------------

def test_fixation_duration_is_never_guessed_from_a_display_duration():
    """Was: duration_ms silently mapped to display_duration_ms (the ~32 s trial display time)."""
    df = pd.DataFrame({"subject": ["a"], "display_duration_ms": [32000], "fix_start_ms": [0], "fix_end_ms": [200],
                       "x": [1.0], "y": [2.0]})
    guess = io.guess_mapping(df, "fixations")
    assert guess["duration_ms"] is None and guess["t_start_s"] == "fix_start_ms"
    notes = io.guess_notes(df, "fixations")
    assert any("display_duration_ms" in n and "display duration" in n for n in notes)
    # A user who picks it anyway is told.
    out = io.apply_mapping(df, {**guess, "duration_ms": "display_duration_ms"}, "fixations", "chart.csv")
    assert any("display_duration_ms" in str(w) for w in out.attrs["warnings"])


def test_fixations_with_empty_positions_are_dropped_and_counted_not_refused():
    """Was: one empty x/y refused the whole fixation file."""
    df = io.read_table(b"observer,x,y\na,1,2\na,,\nb,3,4\n", "fix.csv")
    with pytest.raises(io.DataError, match="found an empty cell"):
        io.apply_mapping(df, io.guess_mapping(df, "fixations"), "fixations", "fix.csv")
    out = io.apply_mapping(df, io.guess_mapping(df, "fixations"), "fixations", "fix.csv", drop_missing=True)
    assert len(out) == 2 and out.attrs["counts"]["dropped_missing"] == 1


def test_trailing_zero_timestamps_are_dropped_and_counted_and_xy_zero_is_signal_loss():
    """Was: trailing t = 0 rows refused with advice to sort; x = y = 0 passed as gaze."""
    csv = b"participant,t_ms,x,y\n" + b"".join(f"P1,{1000 + 2 * i},{500 + i},300\n".encode() for i in range(30))
    csv += b"P1,1060,0,0\nP1,0,0,0\nP1,0,0,0\n"
    df = io.read_table(csv, "el.csv")
    out = io.apply_mapping(df, io.guess_mapping(df, "gaze"), "gaze", "el.csv")
    assert len(out) == 31 and out.attrs["counts"]["zero_time_dropped"] == 2
    assert np.isnan(out["x"].iloc[-1]) and out.attrs["counts"]["lost_xy_zero"] == 1


def test_degrees_are_converted_with_a_geometry_instead_of_refused():
    """Was: degrees refused with advice to convert and no way to give the geometry."""
    t = np.arange(100) / 60
    df = pd.DataFrame({"t": t, "x": np.linspace(-10, 10, 100), "y": np.linspace(5, -5, 100)})
    mapping = {**io.guess_mapping(df, "gaze"), "units": "deg"}
    with pytest.raises(io.DataError, match="need the screen geometry"):
        io.apply_mapping(df, mapping, "gaze", "deg.csv")
    geo = io.PRESETS["desktop_24"]
    out = io.apply_mapping(df, {**mapping, "y_up": True}, "gaze", "deg.csv", geometry=geo)
    assert out["x"].iloc[50] == pytest.approx(960 + 600 * np.tan(np.radians(0.10101)) / (531.3 / 1920), rel=1e-3)
    assert out["y"].iloc[0] < 540 < out["y"].iloc[-1]  # y up in the file -> y down in pixels


def test_bool_feature_columns_are_skipped_not_refused():
    """SBSAT's Trial_Recycled_ (True/False) is not a feature; a mostly empty column can be dropped by rows."""
    df = io.read_table(b"RECORDING_SESSION_LABEL,recycled,blink,fix\np1,True,,3\np1,False,2,4\np2,True,,5\n",
                       "trial.csv")
    out = io.apply_mapping(df, io.guess_mapping(df, "features"), "features", "trial.csv", drop_missing=True)
    assert list(out.columns) == ["participant", "blink", "fix"] and len(out) == 1
    assert any("true/false" in str(w) for w in out.attrs["warnings"])
