"""Bytes of an uploaded CSV/TSV table -> DataFrame, entirely in memory.

Order of checks: size, gzip (decompressed size is checked too), known binary formats, control bytes,
text encoding (UTF-8, else Windows-1252/Latin-1), formats that are not tables (EyeLink ASC), delimiter,
number of columns (before parsing), header, parse. Limits are None (no limit) unless the caller sets them:
the web page does, a library call does not.

Column names are stripped of surrounding spaces; names that then collide, or are empty, are made unique
the way pandas does it ('x', 'x.1'; 'Unnamed: 3') and the renaming is reported in attrs["warnings"].
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from io import BytesIO

import numpy as np
import pandas as pd

from eyedp_core.io.errors import ROW_INDEX_NAME, DataError, DataWarning, megabytes, shown
from eyedp_core.io.gzipped import gunzip_limited, is_gzip
from eyedp_core.io.layout import _NEWLINE, MAX_COLUMNS, SNIFF_BYTES, Layout, sniff_layout

# Leading bytes of formats people upload by mistake, so the message can say what the file really is.
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office file (e.g. Excel .xls)"),
    (b"PAR1", "a Parquet file"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program"),
    (b"SR_RESEARCH", "an EyeLink EDF recording (binary). Convert it to text with SR Research's edf2asc and "
                     "upload the .asc file instead"),
)
# More than this share of control bytes (other than tab/CR/LF/FF/VT) in the first 64 KiB means binary.
MAX_CONTROL_SHARE = 0.01
_PARSER_LINE = re.compile(r"(?:line|row) (\d+)")
_BLANK = re.compile(rb"\s*")
HINT_SAVE_AS = "Save it from your spreadsheet program as 'CSV UTF-8' (comma-separated) and upload that."


def _check_size(n_bytes: int, filename: str, max_bytes: int | None, what: str = "") -> None:
    """Byte count -> nothing, or DataError stating the real size over max_bytes (None: no limit)."""
    if max_bytes is not None and n_bytes > max_bytes:
        size, limit = megabytes(n_bytes, max_bytes)
        raise DataError(f"the file is {size}{what}; the limit is {limit}. Upload fewer participants or a "
                        "shorter recording, or read it with eyedp_core.io.read_recording (no limit).",
                        file=filename, expected=f"at most {max_bytes} bytes", found=f"{n_bytes} bytes")


def _refuse_binary(data: bytes, filename: str) -> None:
    """Raw bytes -> nothing, or DataError when they are a known binary format or full of control bytes."""
    for magic, what in MAGIC:
        if data.startswith(magic):
            raise DataError(f"this is {what}, not a CSV/TSV text table. {HINT_SAVE_AS}", file=filename,
                            expected="a CSV or TSV text table")
    head = np.frombuffer(data[:SNIFF_BYTES], dtype=np.uint8)
    control = (head < 32) & ~np.isin(head, (9, 10, 11, 12, 13))
    if head.size and (control[0] or (head == 0).any() or control.mean() > MAX_CONTROL_SHARE):
        raise DataError(f"this is a binary file, not a CSV/TSV text table. {HINT_SAVE_AS}", file=filename,
                        expected="a CSV or TSV text table")


def decode_text(data: bytes, filename: str) -> str:
    """Raw bytes -> text (UTF-8 with or without BOM, UTF-16 with BOM, else Windows-1252/Latin-1)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        # Excel's "Unicode text" export: UTF-16 with a byte-order mark (it contains NUL bytes).
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise DataError("the file starts like UTF-16 text but cannot be decoded as such. "
                            + HINT_SAVE_AS, file=filename) from None
    _refuse_binary(data, filename)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        # Windows-1252 is Latin-1 plus printable characters in 0x80-0x9F; the bytes it leaves undefined
        # would be control characters in Latin-1, which real text never contains.
        return data.decode("cp1252")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise DataError(f"the file is not text in UTF-8 or Latin-1 (Windows-1252): byte "
                        f"0x{data[err.start]:02X} cannot be decoded. {HINT_SAVE_AS}", file=filename,
                        row=line, expected="UTF-8 or Latin-1 text") from None


def _parser_error(err: Exception, filename: str, offset: int) -> DataError:
    """pandas parser exception -> DataError naming the row (pandas' own message is not shown)."""
    found = _PARSER_LINE.search(str(err))
    # pandas counts "line N" from 1 but "row N" (unclosed quotes) from 0.
    row = None if not found else int(found.group(1)) + offset + (found.group(0).startswith("row"))
    text = str(err)
    if "EOF" in text or "quote" in text.lower():
        msg = "a quoted value is never closed (an unmatched \" character)."
    elif "fields" in text:
        msg = ("this row has more fields than the first line (a stray delimiter, or a comma inside a "
               "value that is not quoted?).")
    else:
        msg = "the file could not be read as a table."
    return DataError(msg, file=filename, row=row, expected="a rectangular table")


def unpack(data: bytes, filename: str, max_bytes: int | None = None,
           max_unpacked: int | None = None) -> bytes | bytearray:
    """Uploaded bytes -> the file's bytes (gunzipped if gzip); DataError over a limit or when damaged."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DataError("the upload is not a file's bytes.", file=filename, expected="bytes")
    if not isinstance(data, bytes):
        data = bytes(data)
    _check_size(len(data), filename, max_bytes)
    if is_gzip(data):
        # Held once, as a bytearray (bytes() of it would be a second copy of the whole file).
        return gunzip_limited(data, filename, max_unpacked)
    return data


def is_blank(data: bytes | bytearray) -> bool:
    """Bytes -> whether they hold only whitespace (found without copying them, unlike data.strip())."""
    return _BLANK.fullmatch(data) is not None


def row_limit(max_rows: int | None, nrows: int | None) -> int | None:
    """Row limit and preview length -> rows for pandas to read (one past the limit, to notice going over)."""
    limit = None if max_rows is None else max_rows + 1
    if nrows is not None:
        limit = nrows if limit is None else min(limit, nrows)
    return limit


def parse_text(text: str, filename: str, *, max_rows: int | None = None,
               max_columns: int | None = MAX_COLUMNS, usecols: list[str] | None = None,
               nrows: int | None = None, chunk_rows: int | None = None,
               progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Decoded text of a table -> DataFrame indexed by spreadsheet row number (see parse_table)."""
    layout = sniff_layout(text, filename, max_columns=max_columns, usecols=usecols)
    body, layout.body = layout.body, ""
    kw = layout.read_kw(usecols, row_limit(max_rows, nrows))
    if nrows is not None:
        # A preview needs only its first lines: do not hand pandas (or the encoder) the whole file.
        pos = 0
        for _ in range(nrows + 2):
            hit = _NEWLINE.search(body, pos)
            if hit is None:
                break
            pos = hit.end()
        else:
            body = body[:pos]
    # pandas reads UTF-8 bytes directly; a StringIO would hold the text as 4 bytes per character.
    stream = BytesIO(body.encode("utf-8", errors="replace"))
    del body
    kw["encoding"] = "utf-8"
    try:
        with warnings.catch_warnings():
            # A delimiter at the end of data lines (common in tracker exports) gives them one more, empty
            # field than the header: pandas drops that trailing field and warns.
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            df = _read_csv(stream, kw, chunk_rows, progress, usecols or layout.names)
    except pd.errors.EmptyDataError:
        raise DataError("the file is empty.", file=filename) from None
    except (pd.errors.ParserError, ValueError, OverflowError) as err:
        raise _parser_error(err, filename, layout.skipped) from None
    return finish_frame(df, layout, filename, max_rows, nrows)


def finish_frame(df: pd.DataFrame, layout: Layout, filename: str, max_rows: int | None,
                 nrows: int | None) -> pd.DataFrame:
    """Parsed cells -> the table: row limit checked, empty unnamed columns and empty rows dropped, index =
    spreadsheet row numbers, layout and notes in attrs."""
    if max_rows is not None and len(df) > max_rows:
        raise DataError(f"the table has more than {max_rows:,} data rows; the limit is {max_rows:,}. "
                        "Upload fewer participants or a shorter recording (or downsample it).", file=filename,
                        expected=f"at most {max_rows} rows")
    # A delimiter at the end of every line makes an empty unnamed column: not the user's data.
    empty_unnamed = [c for c in df.columns if str(c).startswith("Unnamed: ") and df[c].isna().all()]
    df = df.drop(columns=empty_unnamed)
    start = layout.skipped + (2 if layout.header else 1)
    df.index = pd.RangeIndex(start, start + len(df), name=ROW_INDEX_NAME)
    df = _blank_as_missing(df)
    df = df[~df.isna().all(axis=1).to_numpy()]
    wide = _wide_integers_as_float(df, filename)
    if df.empty and nrows != 0:
        raise DataError("the file has a header row but no data rows.", file=filename,
                        expected="at least one data row")
    df.attrs["source_file"] = filename
    df.attrs["has_header"] = layout.header
    df.attrs["layout"] = {"sep": layout.sep, "decimal": layout.decimal, "skipped_lines": layout.skipped}
    df.attrs["preamble"] = [ln[:200] for ln in layout.preamble]
    df.attrs["warnings"] = list(layout.notes) + wide + ([] if layout.header else [_headerless_note(layout, filename)])
    return df


def _headerless_note(layout: Layout, filename: str) -> DataWarning:
    """A table without a header row -> the warning that says its first line was read as data (a header that
    happens to be all numbers would otherwise pass as one more sample, unsaid)."""
    n = len(layout.names)
    names = ", ".join(layout.names[:3]) + (f" … {layout.names[-1]}" if n > 3 else "")
    return DataWarning(f"the file has no header row (its first line holds only numbers): that line was read as "
                       f"data, row {layout.skipped + 1}, and the columns are named by position ({names}).",
                       file=filename, row=layout.skipped + 1, details={"headerless": True})


def concat_chunks(parts: list[pd.DataFrame], columns: list[str], decimal: str = ".") -> pd.DataFrame:
    """Chunks of one table -> the table, with the dtypes a single read would give: a column empty in one chunk
    (read as float NaN) takes the type the other chunks found (e.g. text), instead of turning into objects; a
    column with text in one chunk is text in all (numbers written with the file's decimal mark)."""
    if not parts:
        return pd.DataFrame(columns=columns)
    if len(parts) == 1:
        return parts[0]
    for col in parts[0].columns:
        dtypes = {str(p[col].dtype) for p in parts}
        if len(dtypes) == 1:
            continue
        filled = [p[col].dtype for p in parts if p[col].notna().any()]
        text = [d for d in filled if pd.api.types.is_string_dtype(d) and not pd.api.types.is_object_dtype(d)]
        if text and all(pd.api.types.is_numeric_dtype(d) or d == text[0] for d in filled):
            # A single read keeps such a column as text (one cell was not a number): so do the chunks.
            for i, part in enumerate(parts):
                if part[col].dtype != text[0]:
                    cells = part[col].astype(text[0])
                    if decimal != "." and pd.api.types.is_float_dtype(part[col].dtype):
                        cells = cells.str.replace(".", decimal, regex=False)
                    parts[i] = part.assign(**{col: cells})
    return pd.concat(parts, ignore_index=True)


def _read_csv(stream: BytesIO, kw: dict, chunk_rows: int | None, progress: Callable[[float], None] | None,
              columns: list[str]) -> pd.DataFrame:
    """pandas read_csv, in chunks with progress reports when chunk_rows is set."""
    if not chunk_rows:
        return pd.read_csv(stream, **kw)
    parts = []
    total = max(len(stream.getbuffer()), 1)
    for part in pd.read_csv(stream, chunksize=chunk_rows, **kw):
        parts.append(part)
        if progress is not None:
            progress(min(stream.tell() / total, 1.0))
    return concat_chunks(parts, columns, kw.get("decimal", "."))


def _wide_integers_as_float(df: pd.DataFrame, filename: str) -> list[DataWarning]:
    """Columns pandas kept as Python integers because one is wider than 64 bits -> float columns (in place), with
    a warning naming each column and its first such cell. Such integers break every numeric step and the table
    preview (Arrow has no type for them)."""
    notes = []
    for col in df.columns:
        s = df[col]
        if s.dtype != object or pd.api.types.infer_dtype(s, skipna=True) not in ("integer", "mixed-integer-float"):
            continue
        # Through text: float() of a Python integer over 1e308 raises, float() of its digits gives inf.
        values = s.astype("str").astype("float64")
        wide = s.map(lambda v: isinstance(v, int) and not -2**63 <= v < 2**64).to_numpy(dtype=bool)
        first = int(np.argmax(wide)) if wide.any() else 0
        df[col] = values
        notes.append(DataWarning(
            f"column '{col}' holds whole numbers too wide for 64 bits (row {df.index[first]}: "
            f"{shown(s.iloc[first])}); they were read as decimal numbers, which keep about 16 significant digits"
            + (" (numbers beyond 1e308 become infinite and count as unreadable)." if np.isinf(values).any()
               else "."), file=filename, column=str(col), details={"wide_integers": int(wide.sum())}))
    return notes


def _blank_as_missing(df: pd.DataFrame) -> pd.DataFrame:
    """Text cells that hold only whitespace (no-break spaces, form feeds) -> missing, like empty cells."""
    for col in df.columns:
        s = df[col]
        if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
            continue
        try:
            blank = s.astype("str").str.strip().eq("").to_numpy(dtype=bool, na_value=False)
            blank &= s.notna().to_numpy()
        except (TypeError, ValueError):
            continue
        if blank.any():
            df[col] = s.mask(blank)
    return df
