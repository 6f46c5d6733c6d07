"""Bytes of an uploaded CSV/TSV table -> DataFrame: streamed in chunks when large or gzip
(eyedp_core.io.stream), else read in memory (eyedp_core.io.text), with the same result either way."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.gzipped import is_gzip, too_large, trailer_size, unpacked_head
from eyedp_core.io.layout import MAX_COLUMNS
from eyedp_core.io.limits import NO_LIMITS, Limits
from eyedp_core.io.lines import check_lines
from eyedp_core.io.stream import read_source
from eyedp_core.io.text import _check_size, decode_text, is_blank, parse_text, unpack

# Uploads larger than this (as given) may be streamed (eyedp_core.io.stream decides); smaller ones never are.
_STREAM_FROM = 2**20
# A preview read in memory looks at most this far into the file (see _preview_prefix).
PREVIEW_BYTES = 16 * 2**20


def parse_table(data: bytes, filename: str, limits: Limits = NO_LIMITS, *, max_columns: int | None = MAX_COLUMNS,
                usecols: list[str] | None = None, nrows: int | None = None, chunk_rows: int | None = None,
                progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Uploaded bytes -> DataFrame indexed by spreadsheet row number (index name 'row').

    limits: bytes as given, unpacked (None: as given), rows, bytes per line (None: none); max_columns is checked
    on the header before parsing. A gzip file is unpacked as a stream (never whole) unless it is small. usecols: parse only these (cleaned) column names; nrows: only the first rows (a preview);
    chunk_rows and progress: parse in chunks and report the fraction done (0-1) after each.
    """
    max_bytes, unpacked = limits.max_bytes, limits.unpacked()
    if isinstance(data, (bytes, bytearray, memoryview)) and (len(data) > _STREAM_FROM or is_gzip(data)):
        _, df = read_source(data, filename, replace(limits, max_unpacked=unpacked), max_columns=max_columns,
                            usecols=usecols, nrows=nrows, chunk_rows=chunk_rows, progress=progress)
        if df is not None:
            return df
    prefix = None
    if nrows is not None and isinstance(data, (bytes, bytearray, memoryview)):
        prefix = _preview_prefix(data, filename, max_bytes, unpacked)
    if prefix is not None:
        data = prefix
    else:
        data = unpack(data, filename, max_bytes, unpacked)
    if is_blank(data):
        raise DataError("the file is empty.", file=filename, expected="a CSV or TSV table with a header row")
    check_lines(data, filename, limits.max_line)
    text = decode_text(data, filename)
    del data
    return parse_text(text, filename, max_rows=limits.max_rows, max_columns=max_columns, usecols=usecols,
                      nrows=nrows, chunk_rows=chunk_rows, progress=progress)


def _preview_prefix(data: bytes | bytearray | memoryview, filename: str, max_bytes: int | None,
                    max_unpacked: int | None) -> bytes | None:
    """Uploaded bytes read in memory for a preview -> the complete lines within their first PREVIEW_BYTES (gzip
    unpacked only that far), or None when the file is not longer or has no line end there (read it whole).
    Only files the stream cannot read (UTF-16, lone CR line ends) get here large: their preview stays bounded."""
    _check_size(len(data), filename, max_bytes)
    if is_gzip(data):
        if max_unpacked is not None and trailer_size(data) > max_unpacked:
            raise too_large(filename, max_unpacked, len(data), trailer_size(data))
        head = unpacked_head(data, filename, PREVIEW_BYTES + 1)
    else:
        head = bytes(data[: PREVIEW_BYTES + 1])
    if len(head) <= PREVIEW_BYTES:
        return None
    cut = _after_last_line_end(head)
    if cut is None:
        return None
    kept = head[:cut]
    lf = {b"\xff\xfe": b"\n\x00", b"\xfe\xff": b"\x00\n"}.get(kept[:2], b"\n")
    # A header alone would read as 'no data rows': a first data row longer than the prefix is read whole.
    return kept if (kept.count(lf) or kept.count(b"\r")) >= 2 else None


def _after_last_line_end(head: bytes) -> int | None:
    """First bytes of a file -> the position after their last line end (CR or LF; in UTF-16, a whole LF
    character), or None when they hold none."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        lf = b"\n\x00" if head.startswith(b"\xff\xfe") else b"\x00\n"
        end = len(head)
        while (i := head.rfind(lf, 0, end)) >= 0:
            if i % 2 == 0:  # a character boundary, not the second half of one and the first of the next
                return i + 2
            end = i + 1
        return None
    cut = max(head.rfind(b"\n"), head.rfind(b"\r"))
    return cut + 1 if cut >= 0 else None
