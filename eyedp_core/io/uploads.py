"""Uploads: CSV/TSV tables and PNG/JPEG stimuli, parsed and validated in memory.

Nothing a user uploads is written to disk or logged: every function works on the bytes in memory and
error messages quote at most one shortened cell value.

Flow used by the *Your data* page::

    raw = read_table(data, filename)            # DataFrame, index = spreadsheet row number ("row")
    guess = guess_mapping(raw, kind)            # role -> column (pre-fills the select boxes)
    table = apply_mapping(raw, mapping, kind, filename)   # canonical columns, validated
    table.attrs["warnings"]                     # list of DataWarning to show (may be empty)

or, for eye-tracker exports, `READERS[detect_reader(raw)].to_canonical(raw) -> (raw2, mapping)`.
Any problem raises `DataError` (a ValueError) whose str() names the file, row, column and what was
expected; rows are numbered as in a spreadsheet (the header is row 1, the first data row is row 2).

Units: times are converted to seconds (`t_s`); x and y must be stimulus/screen pixels with the
origin top-left (values that look like degrees or 0-1 coordinates are refused); empty x, y, pupil
cells are blinks/tracking loss and stay NaN.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError, DataWarning, row_numbers
from eyedp_core.io.images import decode_image
from eyedp_core.io.readers import READERS, Reader, detect_reader, register_reader
from eyedp_core.io.roles import (FEATURES_KEY, KINDS, ROLES, TIME_UNIT_KEY, TIME_UNITS, WHOLE_FILE, Role,
                                 guess_mapping, guess_time_unit)
from eyedp_core.io.text import parse_table
from eyedp_core.io.validate import canonical_table, check_lengths
from eyedp_core.io.validate import check_in_bounds as _check_in_bounds

__all__ = [
    "DataError", "DataWarning", "Role", "Reader", "ROLES", "KINDS", "READERS", "WHOLE_FILE", "TIME_UNITS",
    "TIME_UNIT_KEY", "FEATURES_KEY", "MAX_UPLOAD_BYTES", "MAX_ROWS", "MAX_IMAGE_PIXELS", "MIN_LENGTH_RATIO",
    "read_table", "guess_mapping", "guess_time_unit", "apply_mapping", "check_in_bounds", "check_lengths",
    "load_image", "to_csv_bytes", "register_reader", "detect_reader", "row_numbers",
]

# 50 MiB holds about 1.5 million gaze samples as CSV; Streamlit itself allows 200 MB per upload.
MAX_UPLOAD_BYTES = 50 * 2**20
# One million samples is 55 min at 300 Hz or 17 min at 1000 Hz; more makes the pages sluggish.
MAX_ROWS = 1_000_000
# 12 MP covers a 4K screenshot (8.3 MP); decoded as RGB it takes 36 MB of memory.
MAX_IMAGE_PIXELS = 12_000_000
# A feature table whose shortest recording is below this fraction of the longest gets a warning.
MIN_LENGTH_RATIO = 0.5


def read_table(data: bytes, filename: str) -> pd.DataFrame:
    """CSV/TSV bytes (may be gzip) -> DataFrame indexed by spreadsheet row; DataError if unreadable."""
    return parse_table(data, filename, max_bytes=MAX_UPLOAD_BYTES, max_rows=MAX_ROWS)


def apply_mapping(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str) -> pd.DataFrame:
    """Raw table, role -> column mapping, kind, file name -> validated canonical table; DataError on problems.

    gaze: participant, t_s (seconds), x, y, [pupil], [stimulus]; fixations: observer, x, y, [stimulus],
    [duration_ms]; features: participant, [gender], [task], [window], [t_start_s], then the feature
    columns (mapping["features"], default every other column holding numbers). Unmapped optional roles
    are left out. The index keeps the spreadsheet row numbers; warnings are in attrs["warnings"].
    """
    return canonical_table(df, mapping, kind, filename, min_length_ratio=MIN_LENGTH_RATIO)


def check_in_bounds(df: pd.DataFrame, width: float, height: float, filename: str,
                    tolerance_px: float = 0.0) -> None:
    """Table with x, y and stimulus size in px -> None, or DataError naming the first row outside + count."""
    _check_in_bounds(df, width, height, filename, tolerance_px)


def load_image(data: bytes, filename: str, max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray:
    """PNG/JPEG bytes -> H x W x 3 uint8 RGB; DataError if not PNG/JPEG, damaged or over max_pixels."""
    return decode_image(data, filename, max_pixels=max_pixels, max_bytes=MAX_UPLOAD_BYTES)


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    """DataFrame -> UTF-8 CSV bytes with a header and without the index, for download buttons."""
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")
