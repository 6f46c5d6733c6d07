"""Line length of an upload, measured on its bytes as they are read (in pieces or whole), so a file with a line
longer than the limit is refused from a bounded prefix, before the line reaches a parser or a preview."""
from __future__ import annotations

import numpy as np

from eyedp_core.io.errors import DataError
from eyedp_core.io.layout import _first_line as first_line
from eyedp_core.io.layout import odd_line_ends

# Measured in slices of this many bytes, so the comparison arrays stay small next to the file.
_SLICE = 2**24


class LineMeter:
    """Counts line lengths over bytes fed in order; DataError at the first line longer than max_line bytes.

    A line ends at '\\n' or '\\r'; line numbers count '\\n' (as a spreadsheet numbers the lines of a file)."""

    def __init__(self, max_line: int, filename: str) -> None:
        self.max_line, self.filename = int(max_line), filename
        self.run = 0  # bytes since the last line end
        self.newlines = 0  # '\n' seen before the current piece

    def feed(self, piece: bytes | bytearray | memoryview) -> None:
        """Next bytes of the file -> nothing, or DataError naming the first line over the limit."""
        for start in range(0, len(piece), _SLICE):
            self._feed(np.frombuffer(piece, dtype=np.uint8, count=min(_SLICE, len(piece) - start), offset=start))

    def _feed(self, b: np.ndarray) -> None:
        """One slice as a uint8 array."""
        ends = np.flatnonzero((b == 10) | (b == 13))
        if ends.size == 0:
            self.run += b.size
            if self.run > self.max_line:
                self._refuse(b, b.size)
            return
        # Length of each line ending in this slice: the first continues the run of the previous slices.
        lengths = np.diff(ends, prepend=-1) - 1
        lengths[0] += self.run
        over = np.flatnonzero(lengths > self.max_line)
        if over.size:
            self._refuse(b, int(ends[over[0]]))
        self.run = b.size - int(ends[-1]) - 1
        if self.run > self.max_line:
            self._refuse(b, b.size)
        self.newlines += int(np.count_nonzero(b == 10))

    def _refuse(self, b: np.ndarray, upto: int) -> None:
        """Raise the DataError for the line that runs over position `upto` of slice b."""
        line = self.newlines + int(np.count_nonzero(b[:upto] == 10)) + 1
        raise DataError(f"this line is longer than {self.max_line:,} bytes, the longest line an upload may hold "
                        "(a table's line holds one row of values). Is this a CSV/TSV table with a line end after "
                        "each row?", file=self.filename, row=line, expected=f"lines of at most {self.max_line:,} "
                        "bytes", found=f"a line over {self.max_line:,} bytes")


def check_lines(data: bytes | bytearray | memoryview, filename: str, max_line: int | None) -> None:
    """File's bytes (whole, or its head) -> nothing, or DataError naming the first line longer than max_line
    (None: no limit); a first line that runs long because the file ends its lines with U+2028 (or U+2029,
    U+0085) gets that said instead."""
    if max_line is None:
        return
    try:
        LineMeter(max_line, filename).feed(data)
    except DataError as err:
        if err.row == 1:
            text = bytes(data[: max_line + 1]).decode("utf-8", errors="replace")
            odd_line_ends(first_line(text), filename, 1)
        raise
