"""A file's first line is never taken silently: a headerless file whose first row holds an ID (so it is not all
numbers) is read with that row as the header, and the reader says it looks like data; true headers, numbered
column names over decimal data, and all-number first lines (read as data, said elsewhere) are not flagged."""
from __future__ import annotations

import pytest

from eyedp_core import io
from eyedp_core.io.layout import header_like_data


def _said(text: str) -> tuple[list[str], int, list[str]]:
    df = io.read_table(text.encode(), "rec.csv")
    return list(df.columns), len(df), [str(w) for w in df.attrs["warnings"]]


def test_a_headerless_file_whose_first_row_holds_an_id_is_said_to_look_like_data() -> None:
    names, rows, said = _said("P01,0.10,0.20\nP01,0.15,0.25\nP02,0.20,0.30\n")
    assert names == ["P01", "0.10", "0.20"] and rows == 2
    assert any("the first line (P01, 0.10, 0.20) was taken as the header row" in s
               and "as it is, that row is not read as data" in s for s in said), said


@pytest.mark.parametrize("text", [
    "participant,t,x,y\nP01,1,0.1,0.2\nP01,2,0.3,0.4\n",      # a header of words
    "participant,0,1\nP01,0.31,0.2\nP02,0.3,0.4\n",            # numbered columns over decimal data
    "participant,x,y\nP01,0.1,0.2\n",                          # one line below: too little to judge
])
def test_real_headers_are_not_flagged(text: str) -> None:
    _, _, said = _said(text)
    assert not any("taken as the header row" in s for s in said), said


def test_an_all_number_first_line_is_data_and_said_so() -> None:
    names, rows, said = _said("1,0.1,0.2\n2,0.3,0.4\n3,0.5,0.6\n")
    assert names == ["col1", "col2", "col3"] and rows == 3
    assert any("no header row" in s and "read as data, row 1" in s for s in said), said


@pytest.mark.parametrize(("first", "below", "flag"), [
    (["P01", "3", "0.5"], [["P02", "4", "0.7"], ["P03", "5", ""]], True),   # empty cells below do not count
    (["P01", "3", "0.5"], [["P02", "4.5", "0.7"], ["P03", "5", "0.1"]], False),  # a decimal below a whole number
    (["name", "x", "y"], [["a", "1", "2"], ["b", "3", "4"]], False),    # no number in the first line
    (["P01", "x", "0.5"], [["P02", "4", "0.7"], ["P03", "5", "0.1"]], False),  # a word over numbers
])
def test_header_like_data_compares_each_field_with_its_column(first: list[str], below: list[list[str]],
                                                            flag: bool) -> None:
    assert header_like_data(first, below, ".") is flag


@pytest.mark.parametrize(("text", "chosen"), [
    ("12,0.51,0.42\n13,0.52,0.43\n14,0.53,0.44\n", "t_s ← col1, x ← col2, y ← col3"),
    ("0.51,0.42\n0.52,0.43\n0.53,0.44\n", "x ← col1, y ← col2"),
])
def test_a_headerless_gaze_files_columns_are_said_to_be_chosen_by_position(text: str, chosen: str) -> None:
    raw = io.read_table(text.encode(), "bare.csv")
    notes = io.guess_notes(raw, "gaze")
    assert f"The file has no header row, so its columns were chosen by their position: {chosen}." in " ".join(notes)
    named = io.read_table(b"t,x,y\n12,0.51,0.42\n13,0.52,0.43\n", "named.csv")
    assert not any("by their position" in n for n in io.guess_notes(named, "gaze"))
