"""Error and warning objects for uploads, and the row-number convention they use.

Row numbers are the line numbers of the uploaded file, as a spreadsheet shows them: with a header,
the header is row 1 and the first data row is row 2; without a header the first data row is row 1.
`read_table` keeps these numbers as the frame's index (named "row"), so every later check can name
the row the user sees even after blank lines were dropped or rows were filtered.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a table is built (app start needs none)
    import pandas as pd

ROW_INDEX_NAME = "row"
ROW_NOTE = ("(Rows are the file's line numbers, as a spreadsheet shows them: a header on the first line is "
            "row 1, so the first data row is row 2.)")
# Long cell values are cut in messages: the message is for orientation, not a copy of the data.
MAX_SHOWN_CHARS = 40


def shown(value: Any) -> str:
    """A cell value -> a short quoted text for a message (long values are cut)."""
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        return "an empty cell" if np.isnan(value) else repr(str(value))
    text = str(value)
    if len(text) > MAX_SHOWN_CHARS:
        text = text[: MAX_SHOWN_CHARS - 1] + "…"
    return repr(text)


class DataError(ValueError):
    """A problem with an uploaded file; str() is the plain message the page shows.

    Attributes: file, row (line number as in a spreadsheet, header = row 1), column, expected,
    found (the offending value, shortened) and count (how many rows have the same problem).
    """

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None,
                 column: str | None = None, expected: str | None = None, found: str | None = None,
                 count: int | None = None) -> None:
        """Message and location -> error whose str() reads 'file, row N, column 'c': message'."""
        self.message = message
        self.file = file
        self.row = None if row is None else int(row)
        self.column = column
        self.expected = expected
        self.found = found
        self.count = None if count is None else int(count)
        super().__init__(self._render())

    def _render(self) -> str:
        """Attributes -> the one-paragraph message."""
        # A message that already starts with the file name ("x.png is not ...") is not prefixed again.
        file = None if self.file and self.message.startswith(self.file) else self.file
        where = [p for p in (file, None if self.row is None else f"row {self.row}",
                             None if self.column is None else f"column '{self.column}'") if p]
        text = (", ".join(where) + ": " if where else "") + self.message
        if self.row is not None:
            text += " " + ROW_NOTE
        return text

    def __str__(self) -> str:
        """-> the message the page shows."""
        return self._render()


@dataclass(frozen=True)
class DataWarning:
    """Something the user should know about an accepted upload; str() is the message."""

    message: str
    file: str | None = None
    row: int | None = None
    column: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        """-> 'file: message'."""
        return f"{self.file}: {self.message}" if self.file else self.message


def row_numbers(df: pd.DataFrame) -> np.ndarray:
    """Frame -> the spreadsheet row number of each row (index if read_table made it, else position + 2)."""
    import pandas as pd  # imported here: the app's error guard imports this module at start

    if df.index.name == ROW_INDEX_NAME and pd.api.types.is_integer_dtype(df.index.dtype):
        return df.index.to_numpy(dtype=np.int64)
    # A frame built in code is assumed to have come from a file with a header.
    return np.arange(len(df), dtype=np.int64) + 2


def first_row(df: pd.DataFrame, mask: np.ndarray) -> tuple[int, int] | None:
    """Frame and boolean mask -> (position, spreadsheet row) of the first True, or None if none is."""
    hits = np.flatnonzero(mask)
    if hits.size == 0:
        return None
    rows = row_numbers(df)[hits]
    k = int(np.argmin(rows))
    return int(hits[k]), int(rows[k])


def size_pair(value: float, limit: float, scale: float = 1.0, unit: str = "",
              base_unit: str = "") -> tuple[str, str]:
    """A size over its limit -> both as text, with enough digits that they never read the same."""
    for digits in (1, 2, 3):
        a, b = f"{value / scale:,.{digits}f}", f"{limit / scale:,.{digits}f}"
        if a != b:
            return f"{a}{unit}", f"{b}{unit}"
    # Too close for a rounded unit: give the exact counts.
    return f"{value:,.0f}{base_unit}", f"{limit:,.0f}{base_unit}"


# A megabyte is 1,000,000 bytes, as Streamlit's uploader counts them when it states and enforces its cap.
MEGABYTE = 10**6


def megabytes(n_bytes: float, limit: float) -> tuple[str, str]:
    """Byte count and limit -> ('50.3 MB', '50.0 MB') style texts that differ (bytes below 1 MB)."""
    if limit < MEGABYTE:
        return f"{n_bytes:,.0f} bytes", f"{limit:,.0f} bytes"
    return size_pair(n_bytes, limit, MEGABYTE, " MB", " bytes")


def size_text(n_bytes: int) -> str:
    """A limit in bytes -> '200 MB' when a whole number of megabytes, else '1.5 MB' or '1,000 bytes'."""
    if n_bytes < MEGABYTE:
        return f"{n_bytes:,} bytes"
    return f"{n_bytes // MEGABYTE:,} MB" if n_bytes % MEGABYTE == 0 else f"{n_bytes / MEGABYTE:,.1f} MB"
