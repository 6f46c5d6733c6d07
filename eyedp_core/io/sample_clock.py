"""Gaze recordings without timestamps, and their time rebuilt from a stated sampling rate.

Some datasets store a recording without timestamps and state the tracker's rate elsewhere (Lund 2013's moving-dot
trials: 500 Hz in the paper). Without a rate such rows have no time and are dropped (counted); with one, sample i
of each such recording (counted in file order before any row is dropped, an empty line included, so lost samples
keep their slot) is at i / rate seconds. A zero timestamp in such a recording is tracker padding (as anywhere else), not a time: a
recording whose only stamps are zeros has none.

A file of bare samples (x, y and nothing else, often without a header: the rate is in the paper) has no time
column at all: `with_rebuilt_clock` gives it an empty one, so the same rule rebuilds the time of every recording.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import ROW_INDEX_NAME, DataError, DataWarning
from eyedp_core.io.roles import TIME_UNIT_KEY, WHOLE_FILE

# Rates above this are not eye trackers (the fastest sample at 2 kHz); a typo such as 500000 is refused.
MAX_SAMPLING_RATE_HZ = 100_000.0
# The name of the time column a file without one is given; the step report's mapping shows it as t_s's source.
REBUILT_CLOCK = "sample number ÷ rate"


@dataclass(frozen=True)
class Timeless:
    """The rows with an empty time of a raw gaze table's recordings that have no time value at all."""

    rows: pd.Series  # bool, on the raw table's index: an empty time in a recording without any time
    padding: pd.Series  # bool, same index: a zero time in such a recording (tracker padding, never a time)
    recordings: int
    position: pd.Series  # each row's sample number inside its recording (0, 1, …), on the same index

    @property
    def n_rows(self) -> int:
        """-> how many rows those recordings hold."""
        return int(self.rows.sum())

    def hint(self) -> str:
        """-> the sentence that offers the sampling rate, for a message about the dropped rows."""
        return (f" {self.n_rows:,} of them belong to {self.recordings:,} recording"
                f"{'s' if self.recordings != 1 else ''} without any timestamp: give the sampling rate (Hz) "
                "of recordings without timestamps to rebuild their time as sample number ÷ rate and keep them.")

    def missing_note(self) -> str:
        """-> the step report's sentence when no rate was given."""
        return (f"{self.recordings:,} recording{'s' if self.recordings != 1 else ''} without timestamps "
                f"({self.n_rows:,} rows): a sampling rate would rebuild their time")

    def note(self, rate_hz: float) -> str:
        """-> the step report's sentence on the rebuilt time."""
        return (f"time rebuilt from {rate_hz:g} Hz for {self.recordings:,} recording"
                f"{'s' if self.recordings != 1 else ''} without timestamps ({self.n_rows:,} rows)")


def timeless(df: pd.DataFrame, cols: dict[str, str]) -> Timeless | None:
    """Raw gaze table and resolved role -> column map -> the recordings (participant, and stimulus when mapped)
    whose time column holds nothing but empty cells and zeros (one empty at least), or None when every recording
    has some time."""
    t = df[cols["t_s"]]
    empty = t.isna().to_numpy()
    if not empty.any():
        return None
    number = pd.to_numeric(t, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    # A cell that is not a number counts as a time here, so that the number check still names it.
    stamped = ~empty & (np.isnan(number) | (number != 0))
    keys = [cols[k] for k in ("participant", "stimulus") if k in cols and cols[k] != WHOLE_FILE]
    if keys:
        codes = df.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    else:
        codes = np.zeros(len(df), dtype=np.int64)
    with_time = np.bincount(codes, weights=stamped, minlength=int(codes.max()) + 1 if len(codes) else 0)
    # A recording stamped all zeros and never empty is left to the increasing-time check, which names it.
    has_empty = np.bincount(codes, weights=empty, minlength=with_time.size) > 0
    none = (with_time == 0) & has_empty
    if not none.any():
        return None
    rows = none[codes] & empty
    position = pd.Series(codes, index=df.index).groupby(codes, sort=False).cumcount() + _lost_lines(df, codes)
    return Timeless(pd.Series(rows, index=df.index), pd.Series(none[codes] & ~empty, index=df.index),
                    int(none.sum()), position)


def _lost_lines(df: pd.DataFrame, codes: np.ndarray) -> np.ndarray:
    """A table read from a file (index: spreadsheet rows) and each row's recording -> how many empty lines (all
    cells empty: a lost sample of a bare x, y file, which the parser leaves out) lie before each row in its
    recording, counting an empty line as a sample of the recording of the row above it; zeros for a table
    built in code."""
    if df.index.name != ROW_INDEX_NAME or not pd.api.types.is_integer_dtype(df.index.dtype) or len(df) < 2:
        return np.zeros(len(df), dtype=np.int64)
    rows = df.index.to_numpy(dtype=np.int64)
    gap = np.r_[0, np.diff(rows) - 1].clip(min=0)
    if not gap.any():
        return np.zeros(len(df), dtype=np.int64)
    # The gap before row i is lost samples of row i-1's recording: a running sum of them, per recording, read at
    # each row of that recording (a gap is counted before the row that follows it).
    owner = np.r_[codes[0], codes[:-1]]
    n = len(df)
    events = pd.DataFrame({"code": np.r_[owner, codes], "at": np.r_[np.arange(n), np.arange(n)],
                           "first": np.r_[np.zeros(n, dtype=np.int8), np.ones(n, dtype=np.int8)],
                           "lost": np.r_[gap, np.zeros(n, dtype=np.int64)]})
    events = events.sort_values(["code", "at", "first"], kind="stable")
    events["sum"] = events.groupby("code", sort=False)["lost"].cumsum()
    at_rows = events[events["first"] == 1].sort_values("at")
    return at_rows["sum"].to_numpy(dtype=np.int64)


def check_rate(rate_hz: float | None, filename: str) -> float | None:
    """A stated sampling rate -> it as a float (None stays None); DataError unless positive and plausible."""
    if rate_hz is None:
        return None
    try:
        rate = float(rate_hz)
    except (TypeError, ValueError):
        raise DataError(f"the sampling rate must be a number of hertz, got {rate_hz!r}.", file=filename,
                        expected="a sampling rate in Hz") from None
    if not np.isfinite(rate) or rate <= 0 or rate > MAX_SAMPLING_RATE_HZ:
        raise DataError(f"the sampling rate must be above 0 and at most {MAX_SAMPLING_RATE_HZ:,.0f} Hz, got "
                        f"{rate:g}.", file=filename, expected="a sampling rate in Hz")
    return rate


def with_rebuilt_clock(frame: pd.DataFrame, mapping: dict[str, Any], kind: str, rate_hz: float | None,
                       filename: str) -> tuple[pd.DataFrame, dict[str, Any], list[DataWarning]]:
    """A table, its role -> column mapping and kind, the stated sampling rate -> (the table with an empty time
    column, the mapping pointing t_s at it, a warning saying so) when a gaze table has no time column; else all
    three as given (no warning). DataError when it has none and no rate is given, saying what to give."""
    if kind != "gaze" or mapping.get("t_s"):
        return frame, mapping, []
    rate = check_rate(rate_hz, filename)
    if rate is None:
        raise DataError("no column is chosen for the sample time (t_s) and no sampling rate is given. Choose the "
                        "time column, or give the sampling rate (Hz) to rebuild each recording's time as sample "
                        "number ÷ rate (sampling_rate_hz= in Python).", file=filename,
                        expected="a time column or a sampling rate")
    if REBUILT_CLOCK in frame.columns:
        raise DataError(f"the table already has a column named '{REBUILT_CLOCK}'; choose it as the time column "
                        "or rename it.", file=filename, column=REBUILT_CLOCK, expected="another column name")
    out, lost = _empty_lines_back(frame, mapping)
    out = out.assign(**{REBUILT_CLOCK: np.nan})
    out.attrs = dict(frame.attrs)
    used = {**mapping, "t_s": REBUILT_CLOCK, TIME_UNIT_KEY: "s"}
    kept = (f" {lost:,} empty line{'s' if lost != 1 else ''} between samples {'were' if lost != 1 else 'was'} "
            "read as lost samples: kept in their slots with no position." if lost else "")
    note = DataWarning(f"the file has no time column: every recording's time was rebuilt from the stated "
                       f"sampling rate of {rate:g} Hz as sample number ÷ rate (sample i at i / {rate:g} s, "
                       f"counted in file order).{kept}", file=filename,
                       details={"clock_rebuilt_hz": rate, "empty_lines_kept": lost})
    return out, used, [note]


def _empty_lines_back(frame: pd.DataFrame, mapping: dict[str, Any]) -> tuple[pd.DataFrame, int]:
    """A table read from a file (index: spreadsheet rows) and its mapping -> (the table with a row of empty cells
    for each empty line between its first and last rows, the ID columns taken from the row above, and how many
    such lines): in a file without a clock a line is a sample, and a lost one (a blink) must keep its slot and
    stay visible as missing. A table built in code is returned as it is."""
    index = frame.index
    if (index.name != ROW_INDEX_NAME or len(frame) < 2 or not pd.api.types.is_integer_dtype(index.dtype)
            or not index.is_monotonic_increasing):
        return frame, 0
    full = pd.RangeIndex(int(index[0]), int(index[-1]) + 1, name=ROW_INDEX_NAME)
    lost = len(full) - len(frame)
    if lost <= 0:
        return frame, 0
    out = frame.reindex(full)
    ids = [c for k in ("participant", "stimulus") if isinstance(c := mapping.get(k), str) and c in out.columns]
    if ids:
        out[ids] = out[ids].ffill()
    return out, lost
