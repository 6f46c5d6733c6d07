"""The layout of a text table, read from its first lines: delimiter, decimal mark, header, column names, and
the lines to skip before the header. The same code serves a table held in memory and one read as a stream
(eyedp_core.io.stream), so both read a file the same way."""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass

import numpy as np

from eyedp_core.io.asc import looks_like_asc
from eyedp_core.io.errors import DataError, DataWarning
from eyedp_core.io.roles import is_id_name

DELIMITERS = (",", "\t", ";")
WHITESPACE = r"\s+"
SNIFF_LINES = 50
SNIFF_BYTES = 65536
_QUOTED = re.compile(r'"[^"]*"')
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+")
_DECIMAL_DOT = re.compile(r"[-+]?\d*\.\d+(?:[eE][-+]?\d+)?")
_NA_TOKENS = {"", "na", "nan", "n/a", "null", "none", "#n/a", "-nan", "."}
# EyeLink writes '.' for a missing sample; pandas' own list covers the rest.
NA_VALUES = ["."]
# Blank lines (any whitespace, form feeds and no-break spaces included) and '#' comment lines before the
# header (SMI and other exports write these) are skipped. Lines end at \n, \r\n or \r, as pandas reads them.
_LEADING = re.compile(r"\A(?:[^\S\r\n]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_BLANK_LINES = re.compile(r"(?:[^\S\r\n]*(?:#[^\r\n]*)?(?:\r\n|\r|\n))*")
# A table with more columns than this is refused before it is parsed (a wide feature table has hundreds).
MAX_COLUMNS = 5000
MAX_PREAMBLE = 20
# Line ends Python's str.splitlines knows but CSV readers (csv, pandas) do not: a file using them holds, to a
# CSV reader, one endless line. Inside a cell they are kept as text; on the first line they are named.
ODD_LINE_ENDS = {"\u2028": "U+2028 LINE SEPARATOR", "\u2029": "U+2029 PARAGRAPH SEPARATOR",
                 "\u0085": "U+0085 NEXT LINE"}


def _split(line: str, sep: str) -> list[str]:
    """One line and a delimiter -> its fields (quotes respected, leading spaces dropped)."""
    if sep == WHITESPACE:
        return line.split()
    return next(csv.reader([line], delimiter=sep, skipinitialspace=True), [])


def _fields(line: str, sep: str, filename: str, row: int) -> list[str]:
    """_split for a line of the file at `row`; DataError when a field is longer than the csv module reads."""
    try:
        return _split(line, sep)
    except csv.Error:
        limit = csv.field_size_limit()
        raise DataError(f"a field on this line is longer than {limit:,} characters, the longest field EyeDP reads "
                        "when it looks for the header. Is this a CSV/TSV table (one row per line, short column "
                        "names)?", file=filename, row=row, expected=f"fields of at most {limit:,} characters",
                        found=f"a field over {limit:,} characters") from None


def odd_line_ends(line: str, filename: str, row: int) -> None:
    """First line -> nothing, or DataError when it holds a line end only Unicode knows (U+2028 and the like)."""
    hit = next((c for c in ODD_LINE_ENDS if c in line), None)
    if hit is None:
        return
    raise DataError(f"the first line holds the character {ODD_LINE_ENDS[hit]}: the file "
                    f"seems to use {ODD_LINE_ENDS[hit].split(' ', 1)[0]} as its line end, which CSV readers do not "
                    "treat as one, so the whole file would read as one line. Save it again with ordinary line ends "
                    "(Windows CR LF or Unix LF), e.g. from a spreadsheet program as 'CSV UTF-8'.", file=filename,
                    row=row, expected="lines ending in LF or CR LF", found=ODD_LINE_ENDS[hit])


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


def _kind(text: str, decimal: str) -> str | None:
    """A field -> 'float' (a number with a decimal part or exponent), 'int', 'text', or None when empty."""
    if text.strip().lower() in _NA_TOKENS:
        return None
    if not _is_number(text, decimal):
        return "text"
    return "int" if text.strip().lstrip("+-").isdigit() else "float"


def header_like_data(first: list[str], below: list[list[str]], decimal: str) -> bool:
    """First line's fields (taken as the header) and the fields of the lines below it -> True when the first line
    reads like one more row: it holds a number, and each of its fields has the kind (text, whole number, decimal
    number) every filled cell below it has. A header of numbered columns over decimal data (0, 1, 2 over 0.31,
    ...) is not flagged; a headerless file whose first row holds an ID ('P01', 0.12, 0.30) is."""
    kinds = [_kind(f, decimal) for f in first]
    if not any(k in ("int", "float") for k in kinds) or len(below) < 2:
        return False
    for i, k in enumerate(kinds):
        seen = {_kind(row[i], decimal) for row in below if i < len(row)} - {None}
        if k is not None and seen and seen != {k}:
            return False
    return True


def unique_names(names: list[str]) -> tuple[list[str], dict[str, str]]:
    """Header fields -> (stripped unique names, {new name: original} for every renamed one)."""
    out: list[str] = []
    renamed: dict[str, str] = {}
    taken: set[str] = set()
    stripped = [str(n).strip() for n in names]
    given = set(stripped)
    counts: dict[str, int] = {}
    for i, (raw, name) in enumerate(zip(names, stripped)):
        new = name or f"Unnamed: {i}"
        if new in taken:
            k = counts.get(new, 0)
            while f"{new}.{k + 1}" in taken or f"{new}.{k + 1}" in given:
                k += 1
            counts[new] = k + 1
            new = f"{new}.{k + 1}"
        if new != raw and (new != name or not name):
            renamed[new] = str(raw)
        taken.add(new)
        out.append(new)
    return out, renamed


def _first_line(body: str) -> str:
    """Text -> its first line (up to the first \r or \n)."""
    hit = _NEWLINE.search(body)
    return body if hit is None else body[: hit.start()]


@dataclass
class Layout:
    """How a table is laid out in its text: delimiter, decimal mark, lines before the header, names."""

    sep: str
    decimal: str
    header: bool
    names: list[str]
    skipped: int
    preamble: list[str]
    notes: list[DataWarning]
    body: str  # the text from the header line on

    def read_kw(self, usecols: list[str] | None, limit: int | None) -> dict:
        """-> pandas read_csv keywords for the body (the same for an in-memory and a streamed read)."""
        kw: dict = dict(sep=self.sep, decimal=self.decimal, skip_blank_lines=False, low_memory=False,
                        skipinitialspace=True, header=0 if self.header else None, names=self.names,
                        index_col=False, na_values=NA_VALUES, usecols=usecols, nrows=limit)
        if self.sep == WHITESPACE:
            kw["engine"] = "c"
        # Identifier columns stay text, so participant '007' does not become the number 7.
        kw["dtype"] = {n: str for n in self.names
                       if self.header and is_id_name(n) and (usecols is None or n in usecols)}
        return kw


def _table_body(text: str, filename: str) -> tuple[str, int]:
    """Decoded text -> (the text from the first non-blank, non-comment line on, lines skipped before it)."""
    lead = _LEADING.match(text)
    skip_at = lead.end() if lead else 0
    body = text[skip_at:]
    if not body.strip():
        raise DataError("the file is empty.", file=filename, expected="a CSV or TSV table with a header row")
    skipped = len(_NEWLINE.findall(text, 0, skip_at))
    if looks_like_asc(body[:SNIFF_BYTES]):
        raise DataError("this is an EyeLink ASC file (converted from EDF), not a table. Upload it as raw "
                        "gaze samples (the page reads it with its EyeLink reader) or read it with "
                        "eyedp_core.io.read_recording.", file=filename, expected="a CSV or TSV table")
    return body, skipped


def _sniff_lines(body: str, filename: str) -> list[str]:
    """Table body -> its first non-blank lines (at most SNIFF_LINES); DataError when there are none."""
    head = body[:SNIFF_BYTES]
    lines = [ln for ln in _NEWLINE.split(head)[: SNIFF_LINES + 1] if ln.strip()][:SNIFF_LINES]
    if not lines:
        raise DataError("the file is empty.", file=filename, expected="a CSV or TSV table with a header row")
    return lines


def _delimiter_and_preamble(lines: list[str]) -> tuple[str | None, list[str]]:
    """First lines -> (delimiter or None, the 'key value' lines above the table)."""
    sep = sniff_delimiter(lines)
    if sep is None:
        # Some exports put 'key value' lines above the table ("gaze 576 304", "geometry distance 0.75 ...");
        # skip up to MAX_PREAMBLE of them when the rest is a consistent table.
        for k in range(1, min(MAX_PREAMBLE, len(lines) - 2) + 1):
            sep = sniff_delimiter(lines[k:])
            if sep is not None:
                return sep, lines[:k]
    return sep, []


def _cut_preamble(body: str, preamble: list[str]) -> tuple[str, int]:
    """Body and its preamble lines -> (the body from the header line on, lines cut off)."""
    cut = 0
    for _ in preamble:
        cut = _BLANK_LINES.match(body, cut).end()
        hit = _NEWLINE.search(body, cut)
        cut = len(body) if hit is None else hit.end()
    cut = _BLANK_LINES.match(body, cut).end()
    return body[cut:], len(_NEWLINE.findall(body, 0, cut))


def _check_width(first_line: str, sep: str, filename: str, row: int, max_columns: int | None) -> None:
    """Header line -> nothing, or DataError when it has more than max_columns columns."""
    if max_columns is None:
        return
    # Counting delimiters is an upper bound that costs nothing; the exact count only when it matters.
    rough = len(first_line.split()) if sep == WHITESPACE else first_line.count(sep) + 1
    if rough > max_columns:
        n_cols = (rough if sep == WHITESPACE or '"' not in first_line
                  else len(_fields(first_line, sep, filename, row)))
        if n_cols > max_columns:
            raise DataError(f"the first line has {n_cols:,} columns; the limit is {max_columns:,}. "
                            "Is this a table with one row per sample (or fixation, or window)? Leave out "
                            "columns you do not need before uploading.", file=filename, row=row,
                            expected=f"at most {max_columns} columns", found=f"{n_cols} columns")


def _header_names(raw_first: list[str], lines: list[str], sep: str, decimal: str, filename: str,
                  skipped: int) -> tuple[list[str], list[DataWarning]]:
    """Header fields and the lines below -> (unique column names, notes on them)."""
    first = [f.strip() for f in raw_first]
    notes: list[DataWarning] = []
    names, renamed = unique_names(raw_first)
    below = [[f.strip() for f in _fields(ln, sep, filename, skipped + 2 + i)] for i, ln in enumerate(lines[1:])]
    if header_like_data(first, below, decimal):
        shown_line = ", ".join(first[:4]) + (" …" if len(first) > 4 else "")
        notes.append(DataWarning(f"the first line ({shown_line}) was taken as the header row (its values name "
                                 "the columns) but looks like data: if the file has no header, add one (e.g. "
                                 "participant, t, x, y); as it is, that row is not read as data.",
                                 file=filename, row=skipped + 1, details={"header_like_data": True}))
    if renamed:
        listing = ", ".join(f"{orig!r} -> '{new}'" for new, orig in list(renamed.items())[:8])
        notes.append(DataWarning(f"some column names were empty or the same once surrounding spaces "
                                 f"were removed, so they were renamed: {listing}.", file=filename,
                                 details={"renamed": renamed}))
    return names, notes


def _check_usecols(names: list[str], usecols: list[str] | None, filename: str) -> None:
    """Column names and the columns asked for -> nothing, or DataError naming the first one missing."""
    if usecols is None:
        return
    known = set(names)
    missing = [c for c in usecols if c not in known]
    if missing:
        raise DataError("the column is not in the table.", file=filename, column=str(missing[0]),
                        expected="a column of the table")


def sniff_layout(text: str, filename: str, *, max_columns: int | None = MAX_COLUMNS,
                 usecols: list[str] | None = None) -> Layout:
    """Decoded text (the whole table or its first lines) -> Layout; DataError when it is not a table."""
    body, skipped = _table_body(text, filename)
    lines = _sniff_lines(body, filename)
    sep, preamble = _delimiter_and_preamble(lines)
    if preamble:
        body, cut_lines = _cut_preamble(body, preamble)
        skipped += cut_lines
        lines = lines[len(preamble):]
    if sep is None:
        raise DataError(f"the file has only one column (first line: {lines[0][:40]!r}). Expected columns "
                        "separated by commas, tabs or semicolons.", file=filename,
                        expected="at least two columns")
    first_line = _first_line(body)
    odd_line_ends(first_line, filename, skipped + 1)
    _check_width(first_line, sep, filename, skipped + 1, max_columns)
    decimal = sniff_decimal(lines[1:], sep)
    raw_first = _fields(first_line, sep, filename, skipped + 1)
    header = has_header([f.strip() for f in raw_first], decimal)
    if header:
        names, notes = _header_names(raw_first, lines, sep, decimal, filename, skipped)
    else:
        names, notes = [f"col{i + 1}" for i in range(len(raw_first))], []
    _check_usecols(names, usecols, filename)
    return Layout(sep, decimal, header, names, skipped, preamble, notes, body)
