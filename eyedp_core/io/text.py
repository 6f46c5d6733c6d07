"""Bytes of an uploaded CSV/TSV table -> DataFrame, entirely in memory.

Order of checks: size, gzip (decompressed size is checked too), known binary formats, control bytes,
text encoding (UTF-8, else Windows-1252/Latin-1), unsupported text exports, delimiter, header, parse.
"""
from __future__ import annotations

import csv
import re
import zlib
from io import StringIO

import numpy as np
import pandas as pd

from eyedp_core.io.errors import ROW_INDEX_NAME, DataError
from eyedp_core.io.readers import unsupported_text_format
from eyedp_core.io.roles import is_id_name

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
)
DELIMITERS = (",", "\t", ";")
WHITESPACE = r"\s+"
SNIFF_LINES = 50
SNIFF_BYTES = 65536
# More than this share of control bytes (other than tab/CR/LF/FF/VT) in the first 64 KiB means binary.
MAX_CONTROL_SHARE = 0.01
_QUOTED = re.compile(r'"[^"]*"')
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")
_DECIMAL_DOT = re.compile(r"[-+]?\d*\.\d+(?:[eE][-+]?\d+)?")
_NA_TOKENS = {"", "na", "nan", "n/a", "null", "none", "#n/a", "-nan"}
# Blank lines and '#' comment lines before the header (SMI and other exports write these) are skipped.
_LEADING = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\r?\n)*")
_PARSER_LINE = re.compile(r"(?:line|row) (\d+)")
HINT_SAVE_AS = "Save it from your spreadsheet program as 'CSV UTF-8' (comma-separated) and upload that."


def _check_size(n_bytes: int, filename: str, max_bytes: int, what: str = "") -> None:
    """Byte count -> nothing, or DataError when it exceeds max_bytes."""
    if n_bytes > max_bytes:
        raise DataError(f"the file is {n_bytes / 2**20:.1f} MB{what}; the limit is {max_bytes / 2**20:.0f} "
                        "MB. Upload fewer participants or a shorter recording.", file=filename,
                        expected=f"at most {max_bytes} bytes")


def gunzip_limited(data: bytes, filename: str, max_bytes: int) -> bytes:
    """gzip bytes -> decompressed bytes; DataError when damaged or larger than max_bytes once unpacked."""
    # Stop decompressing just past the limit, so a small gzip bomb cannot fill the memory.
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, max_bytes + 1)
    except zlib.error:
        raise DataError("the file looks gzip-compressed but is damaged.", file=filename) from None
    _check_size(len(out), filename, max_bytes, " once decompressed" if len(out) > max_bytes else "")
    return out


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


def _split(line: str, sep: str) -> list[str]:
    """One line and a delimiter -> its fields (quotes respected, leading spaces dropped)."""
    if sep == WHITESPACE:
        return line.split()
    return next(csv.reader([line], delimiter=sep, skipinitialspace=True), [])


def sniff_delimiter(lines: list[str]) -> str | None:
    """First lines of a table -> ',', tab, ';', r'\\s+' or None when every line is a single field."""
    clean = [_QUOTED.sub("", ln) for ln in lines]
    best, best_key = None, (0.0, 0)
    for sep in DELIMITERS:
        counts = np.array([ln.count(sep) for ln in clean])
        if counts[0] == 0:
            continue
        # The header and most data lines must agree on the number of fields.
        key = (float(np.mean(counts == counts[0])), int(counts[0]))
        if key > best_key:
            best, best_key = sep, key
    if best is not None:
        return best
    widths = np.array([len(ln.split()) for ln in lines])
    if widths[0] >= 2 and np.mean(widths == widths[0]) >= 0.9:
        return WHITESPACE
    return None


def sniff_decimal(lines: list[str], sep: str) -> str:
    """Sample lines and delimiter -> ',' when numbers use a decimal comma (never if comma-separated)."""
    if sep == ",":
        return "."
    fields = [f.strip() for ln in lines for f in _split(ln, sep)]
    commas = sum(bool(_DECIMAL_COMMA.fullmatch(f)) for f in fields)
    dots = sum(bool(_DECIMAL_DOT.fullmatch(f)) for f in fields)
    return "," if commas and not dots else "."


def _is_number(text: str, decimal: str) -> bool:
    """A field -> whether it reads as a finite number."""
    try:
        return bool(np.isfinite(float(text.strip().replace(decimal, ".") if decimal == "," else text)))
    except ValueError:
        return False


def has_header(first: list[str], decimal: str) -> bool:
    """First line's fields -> False when they are all numbers or empty, i.e. the file has no header."""
    real = [f for f in first if f.strip().lower() not in _NA_TOKENS]
    return not (real and all(_is_number(f, decimal) for f in real))


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


def parse_table(data: bytes, filename: str, max_bytes: int, max_rows: int) -> pd.DataFrame:
    """Uploaded bytes -> DataFrame indexed by spreadsheet row number (index name 'row')."""
    _check_size(len(data), filename, max_bytes)
    if data.startswith(b"\x1f\x8b"):
        data = gunzip_limited(data, filename, max_bytes)
    if not data.strip():
        raise DataError("the file is empty.", file=filename, expected="a CSV or TSV table with a header row")
    text = decode_text(data, filename)
    body = _LEADING.sub("", text, count=1)
    if not body.strip():
        raise DataError("the file is empty.", file=filename, expected="a CSV or TSV table with a header row")
    skipped = text[: len(text) - len(body)].count("\n")
    fmt = unsupported_text_format(body[:SNIFF_BYTES])
    if fmt:
        raise DataError(f"this looks like {fmt}, which is not supported yet. Export the samples as a "
                        "CSV/TSV table (one row per sample) and map its columns.", file=filename)
    lines = [ln for ln in body[:SNIFF_BYTES].splitlines()[: SNIFF_LINES + 1] if ln.strip()][:SNIFF_LINES]
    sep = sniff_delimiter(lines)
    if sep is None:
        raise DataError(f"the file has only one column (first line: {lines[0][:40]!r}). Expected columns "
                        "separated by commas, tabs or semicolons.", file=filename,
                        expected="at least two columns")
    decimal = sniff_decimal(lines[1:], sep)
    raw_first = _split(lines[0], sep)
    first = [f.strip() for f in raw_first]
    header = has_header(first, decimal)
    kw: dict = dict(sep=sep, decimal=decimal, skip_blank_lines=False, nrows=max_rows + 1,
                    low_memory=False, skipinitialspace=True)
    if header:
        kw["header"] = 0
        # Identifier columns stay text, so participant '007' does not become the number 7. The keys are
        # the names as pandas sees them (trailing spaces kept); duplicated names get renamed, so skip them.
        kw["dtype"] = {name: str for name in raw_first if is_id_name(name) and raw_first.count(name) == 1}
    else:
        kw.update(header=None, names=[f"col{i + 1}" for i in range(len(first))])
    try:
        df = pd.read_csv(StringIO(body), **kw)
    except pd.errors.EmptyDataError:
        raise DataError("the file is empty.", file=filename) from None
    except (pd.errors.ParserError, ValueError) as err:
        raise _parser_error(err, filename, skipped) from None
    if len(df) > max_rows:
        raise DataError(f"the table has more than {max_rows:,} data rows; upload fewer participants or a "
                        "shorter recording (or downsample it).", file=filename,
                        expected=f"at most {max_rows} rows")
    df.columns = [str(c).strip() for c in df.columns]
    # A delimiter at the end of every line makes an empty unnamed column: not the user's data.
    empty_unnamed = [c for c in df.columns if c.startswith("Unnamed: ") and df[c].isna().all()]
    df = df.drop(columns=empty_unnamed)
    start = skipped + (2 if header else 1)
    df.index = pd.RangeIndex(start, start + len(df), name=ROW_INDEX_NAME)
    df = df[~df.isna().all(axis=1).to_numpy()]
    if df.empty:
        raise DataError("the file has a header row but no data rows.", file=filename,
                        expected="at least one data row")
    df.attrs["source_file"] = filename
    df.attrs["has_header"] = header
    return df
