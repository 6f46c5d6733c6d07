"""Uploads: CSV/TSV tables and PNG/JPEG stimuli, parsed and validated in memory.

Nothing a user uploads is written to disk or logged: every function works on the bytes in memory and
error messages quote at most one shortened cell value.

Flow used by the *Your data* page::

    raw = read_table(data, filename, limits=WEB_LIMITS)   # DataFrame, index = spreadsheet row number ("row")
    guess = guess_mapping(raw, kind)            # role -> column (pre-fills the select boxes)
    table = apply_mapping(raw, mapping, kind, filename, drop_missing=..., geometry=...)
    table.attrs["warnings"], table.attrs["counts"]

or, for eye-tracker exports, `READERS[detect_reader(raw)].convert(raw) -> (raw2, mapping)`; whole
recordings (EyeLink ASC included) in one call: `eyedp_core.io.read_recording`.
Any problem raises `DataError` (a ValueError) whose str() names the file, row, column and what was
expected; rows are numbered as in a spreadsheet (the header is row 1, the first data row is row 2).

Units: times are converted to seconds (`t_s`); x and y end up as stimulus/screen pixels with the origin
top-left: other units (normalised, mm, degrees) are converted with an `io.Geometry`; pixel data that look
like degrees or 0-1 coordinates without saying so are refused. Empty x, y, pupil cells are blinks/tracking
loss and stay NaN, as do x = y = 0 samples.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.gaze.geometry import ON_SCREEN_TOLERANCE, PRESETS, UNIT_LABELS, UNITS, Geometry
from eyedp_core.io.checks import check_in_bounds as _check_in_bounds
from eyedp_core.io.checks import check_lengths, fit_to_canvas
from eyedp_core.io.errors import MEGABYTE, DataError, DataWarning, row_numbers
from eyedp_core.io.images import decode_image
from eyedp_core.io.layout import MAX_COLUMNS
from eyedp_core.io.limits import NO_LIMITS, Limits
from eyedp_core.io.names import UPLOADS
from eyedp_core.io.pipeline import MIN_LENGTH_RATIO, PEEK_BYTES, format_of, head_bytes, map_and_validate
from eyedp_core.io.reader_base import DEFAULT_MIN_CONFIDENCE, Reader
from eyedp_core.io.readers import READERS, detect_reader, register_reader
from eyedp_core.io.roles import (
    FEATURES_KEY,
    KINDS,
    LABELS_KEY,
    ROLES,
    TIME_UNIT_KEY,
    TIME_UNITS,
    UNITS_KEY,
    WHOLE_FILE,
    Y_UP_KEY,
    Role,
    guess_mapping,
    guess_notes,
    guess_time_unit,
)
from eyedp_core.io.table import parse_table
from eyedp_core.io.text import _check_size
from eyedp_core.io.validate import canonical_table

__all__ = list(UPLOADS)

# Limits of the web page (a library call has none unless it asks). The upload cap is Streamlit's
# server.maxUploadSize in .streamlit/config.toml, in MB: its uploader refuses files over maxUploadSize x 1,000,000
# bytes (x 1,048,576 on Windows, where this check then refuses them with a message), so keep the two equal.
MAX_UPLOAD_BYTES = 200 * MEGABYTE
# A gzip upload may unpack to 1 GB (a 5-million-row export; the 279 MB uniss_fgd Tobii export is 26 MB packed).
# It is unpacked as a stream and counted, never held whole, so memory follows the parsed table, not the packed
# size, and a small file that unpacks to more (a gzip bomb) is refused after at most this much unpacking.
MAX_UNPACKED_BYTES = 1000 * MEGABYTE
# A table's line holds one row; a wide feature table (5,000 columns of 20-digit numbers) needs 100 kB. A longer
# line would reach the page's preview as one cell of that size.
MAX_LINE_BYTES = MEGABYTE
# Five million samples is 4.6 h at 300 Hz or 83 min at 1000 Hz.
MAX_ROWS = 5_000_000
# 12 MP covers a 4K screenshot (8.3 MP); decoded as RGB it takes 36 MB of memory. No side may exceed
# 16,384 px (a 1 x 12,000,000 px strip passes the pixel cap but no preview could show it).
MAX_IMAGE_PIXELS = 12_000_000
MAX_IMAGE_SIDE = 16_384
WEB_LIMITS = Limits(max_bytes=MAX_UPLOAD_BYTES, max_unpacked=MAX_UNPACKED_BYTES, max_rows=MAX_ROWS,
                    max_line=MAX_LINE_BYTES)
# The first unpacked bytes peek_format reads to tell an ASC recording from a table.


def read_table(data: bytes, filename: str, *, limits: Limits = NO_LIMITS, usecols: list[str] | None = None,
               nrows: int | None = None, chunk_rows: int | None = None,
               progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """CSV/TSV bytes (may be gzip) -> DataFrame indexed by spreadsheet row; DataError if unreadable.

    No size, row or line-length limit unless given (the page passes limits=WEB_LIMITS); more than MAX_COLUMNS
    columns are refused before parsing. usecols/nrows read part of the table (a gzip file is unpacked only as far
    as needed); chunk_rows + progress report progress.
    """
    return parse_table(data, filename, limits, usecols=usecols, nrows=nrows, chunk_rows=chunk_rows, progress=progress)


def apply_mapping(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str, *,
                  drop_missing: bool = False, geometry: Geometry | None = None) -> pd.DataFrame:
    """Raw table, role -> column mapping, kind, file name -> validated canonical table; DataError on problems.

    gaze: participant, t_s (seconds), x, y (px), [pupil], [stimulus]; fixations: observer, x, y, [stimulus],
    [duration_ms], [t_start_s], [t_end_s]; features: participant, [gender], [task], [window], [t_start_s],
    then the feature columns (mapping["features"], default every other column holding numbers). Unmapped
    optional roles are left out. mapping["units"] (px, norm, mm, deg) other than px needs `geometry`.
    drop_missing: rows with an empty cell in a chosen column are dropped and counted, not refused.
    The index keeps the spreadsheet row numbers; warnings are in attrs["warnings"] (the reader's and
    read_table's first), counts in attrs["counts"].
    """
    return map_and_validate(df, mapping, kind, filename, drop_missing=drop_missing, geometry=geometry)


def check_in_bounds(df: pd.DataFrame, width: float, height: float, filename: str,
                    tolerance_px: float = 0.0) -> None:
    """Table with x, y and stimulus size in px -> None, or DataError naming the first row outside + count."""
    _check_in_bounds(df, width, height, filename, tolerance_px)


def load_image(data: bytes, filename: str, max_pixels: int = MAX_IMAGE_PIXELS, *,
               max_side: int = MAX_IMAGE_SIDE, max_bytes: int | None = MAX_UPLOAD_BYTES) -> np.ndarray:
    """PNG/JPEG bytes -> H x W x 3 uint8 RGB; DataError if not PNG/JPEG, damaged or over a limit."""
    return decode_image(data, filename, max_pixels=max_pixels, max_bytes=max_bytes, max_side=max_side)


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    """DataFrame -> UTF-8 CSV bytes with a header and without the index, for download buttons."""
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")


def peek_format(data: bytes, filename: str, *, max_bytes: int | None = None,
                max_unpacked: int | None = None) -> str:
    """Uploaded bytes -> 'eyelink_asc' for an EyeLink ASC file, else 'table'; DataError for an EDF.

    Reads the first PEEK_BYTES only: a gzip file is unpacked that far and no further. One whose trailer states
    more than max_unpacked is refused here; one that understates it is refused by the full read, which counts
    what it unpacks (eyedp_core.io.stream)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError("the upload is not a file's bytes.", file=filename, expected="bytes")
    _check_size(len(data), filename, max_bytes)
    return format_of(head_bytes(data, filename, PEEK_BYTES, max_unpacked), filename)
