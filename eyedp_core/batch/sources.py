"""Sharded fixation tables (Parquet, CSV or CSV.gz, the column names of eyedp_core.io) read in bounded chunks and
checked. A problem that means the table is wrong (a missing column, a coordinate that is text, an empty observer id,
a position far off the canvas) is a DataError naming the file and row, raised before anything is released. Every
other row is either used or counted and named (file, line, why) in the run's RowReport: rows of other stimuli,
blank lines, CSV lines with a wrong number of fields, missing or non-finite coordinates, positions just off the
canvas (moved to its edge, the Heatmaps page's rule) and positions on its far edge (outside the cell grid)."""
from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import csv

from eyedp_core.io.checks import fit_to_canvas
from eyedp_core.io.errors import ROW_INDEX_NAME, DataError

__all__ = ["CHUNK_ROWS", "MAX_NAMED", "REQUIRED", "Chunk", "NamedRow", "RowFate", "RowReport", "expand_inputs",
           "read_chunks"]

REQUIRED = ("observer", "x", "y")
CHUNK_ROWS = 500_000  # rows per chunk: bounds the memory of every engine's reader
MAX_NAMED = 20  # rows named per reason in the report (all are counted): the report stays small for any input
# The texts pandas reads as missing: CSV shards keep the meaning they had when pandas read them.
_NA_TEXT = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
            "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]


class RowFate(str, Enum):
    """What the batch reader did with one row of a shard (every row has exactly one fate)."""

    USED = "used"
    MOVED_TO_EDGE = "just off the canvas: moved to its edge and used"
    OTHER_STIMULUS = "on another stimulus: not read"
    BLANK = "blank line: skipped"
    FIELD_COUNT = "wrong number of fields: skipped"
    NON_FINITE = "missing or non-finite x or y: left out (the observer stays counted, with the other fixations)"
    FAR_EDGE = "on the canvas' far edge (x = width or y = height), outside the cell grid: left out, as on the page"


@dataclass(frozen=True)
class NamedRow:
    """One row the reader did not use as it stands: file, line (header = line 1) and why."""

    file: str
    line: int
    fate: RowFate
    why: str

    def to_dict(self) -> dict[str, object]:
        """The named row as a JSON-ready dict."""
        return {"file": self.file, "line": self.line, "fate": self.fate.name.lower(), "why": self.why}


@dataclass
class RowReport:
    """Every row of the input, counted by fate, and the first MAX_NAMED rows of each fate other than used or on
    another stimulus named. It describes the private input: it is the operator's run report, never released."""

    counts: dict[RowFate, int] = field(default_factory=lambda: {f: 0 for f in RowFate})
    named: list[NamedRow] = field(default_factory=list)
    _n_named: dict[RowFate, int] = field(default_factory=lambda: {f: 0 for f in RowFate}, repr=False)

    @property
    def rows(self) -> int:
        """All rows read (every data line of a CSV shard, every row of a Parquet shard)."""
        return sum(self.counts.values())

    def add(self, fate: RowFate, count: int) -> None:
        """Count `count` rows of this fate."""
        self.counts[fate] += int(count)

    def name(self, fate: RowFate, file: str, lines: np.ndarray, why: Callable[[int], str]) -> None:
        """Count the rows at `lines` and name the first MAX_NAMED of this fate; why(i) says why for the i-th."""
        self.add(fate, len(lines))
        take = min(MAX_NAMED - self._n_named[fate], len(lines))
        for i in range(take):
            self.named.append(NamedRow(file, int(lines[i]), fate, why(i)))
        self._n_named[fate] += take

    def to_dict(self) -> dict[str, object]:
        """The report as a JSON-ready dict: rows read, counts by fate and the named rows."""
        return {"rows_read": self.rows, "counts": {f.name.lower(): self.counts[f] for f in RowFate},
                "meaning": {f.name.lower(): f.value for f in RowFate},
                "named": [r.to_dict() for r in self.named],
                "named_at_most": f"{MAX_NAMED} rows per reason (all are counted)",
                "private": "counts and rows of the private input: for the operator, not for publication (not DP)"}


@dataclass(frozen=True, eq=False)
class Chunk:
    """Checked rows of one shard on one stimulus: observer ids (str), x and y in px (float64).

    Every well-formed row of the stimulus is here, so every engine counts the same observers; a row whose x or y
    was missing or non-finite, or that lies on the canvas' far edge, has NaN in both (no engine puts it in a cell,
    as gaze_maps keeps such an observer with an empty map), and a position just off the canvas has been moved to
    its edge."""

    file: str
    observer: np.ndarray
    x: np.ndarray
    y: np.ndarray

    @property
    def on_grid(self) -> np.ndarray:
        """Mask of the rows that land in a cell (every finite one: the reader has checked 0 ≤ x < width, 0 ≤ y <
        height)."""
        return np.isfinite(self.x) & np.isfinite(self.y)


def expand_inputs(patterns: str | list[str]) -> list[str]:
    """Glob pattern(s) in, the sorted shard paths out; DataError when a pattern matches no file."""
    pats = [patterns] if isinstance(patterns, str) else list(patterns)
    files: list[str] = []
    for p in pats:
        hits = sorted(f for f in glob.glob(os.path.expanduser(p), recursive=True) if os.path.isfile(f))
        if not hits:
            raise DataError("no file matches this pattern", file=p, expected="Parquet, CSV or CSV.gz files")
        files.extend(hits)
    return sorted(set(files))


def _is_parquet(path: str) -> bool:
    return path.lower().endswith((".parquet", ".pq", ".parq"))


class _LineMap:
    """The physical line of each well-formed CSV row, given the lines PyArrow skipped for a wrong field count."""

    def __init__(self, name: str, report: RowReport) -> None:
        self.name, self.report = name, report
        self.slots: list[int] = []  # for each skipped line: the number of well-formed rows before it
        self.skipped = 0

    def on_invalid(self, row: csv.InvalidRow) -> str:
        """PyArrow's handler of a line with a wrong number of fields: count, name and skip it."""
        line = int(row.number) if row.number is not None and row.number > 0 else -1
        self.slots.append(line - 2 - self.skipped)
        self.skipped += 1
        text = row.text if len(row.text) <= 60 else row.text[:57] + "..."
        self.report.name(RowFate.FIELD_COUNT, self.name, np.array([line]),
                         lambda _: f"{row.actual_columns} fields where the header has {row.expected_columns} "
                                   f"({text!r})")
        return "skip"

    def lines(self, first: int, count: int) -> np.ndarray:
        """Index of the first well-formed row and a count in, those rows' physical lines out."""
        g = np.arange(first, first + count, dtype=np.int64)
        return g + 2 + np.searchsorted(np.asarray(self.slots, dtype=np.int64), g, side="right")


def _csv_frames(path: str, name: str, chunk_rows: int, report: RowReport) -> Iterator[tuple[pd.DataFrame, np.ndarray]]:
    """CSV shard in, (frame of one chunk, the physical line of each row) out; lines with a wrong number of fields
    are counted and named in `report` and skipped."""
    sep = "\t" if ".tsv" in path.lower() else ","
    parse = csv.ParseOptions(delimiter=sep, invalid_row_handler=lambda _: "skip")  # the header only
    try:
        with csv.open_csv(path, read_options=csv.ReadOptions(use_threads=False), parse_options=parse) as r:
            header = list(r.schema.names)
    except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
        raise DataError(f"not a readable CSV file ({err})", file=name) from None
    _check_columns(header, name)
    want = [c for c in (*REQUIRED, "stimulus") if c in header]
    lines = _LineMap(name, report)
    opts = csv.ConvertOptions(include_columns=want, column_types={c: pa.string() for c in want},
                                strings_can_be_null=True, null_values=_NA_TEXT)
    parse = csv.ParseOptions(delimiter=sep, invalid_row_handler=lines.on_invalid, ignore_empty_lines=False)
    done = 0
    try:
        reader = csv.open_csv(path, read_options=csv.ReadOptions(use_threads=False), parse_options=parse,
                                convert_options=opts)
        batches: list[pa.RecordBatch] = []
        held = 0
        for batch in reader:
            batches.append(batch)
            held += batch.num_rows
            if held >= chunk_rows:
                df = pa.Table.from_batches(batches).to_pandas()
                yield df, lines.lines(done, len(df))
                done, batches, held = done + len(df), [], 0
        if batches:
            df = pa.Table.from_batches(batches).to_pandas()
            yield df, lines.lines(done, len(df))
    except (pa.ArrowException, UnicodeDecodeError) as err:
        raise DataError(f"not a readable CSV file after line {int(lines.lines(done, 1)[0]) - 1} ({err})",
                        file=name) from None


def _parquet_frames(path: str, name: str, chunk_rows: int) -> Iterator[tuple[pd.DataFrame, np.ndarray]]:
    """Parquet shard in, (frame of one chunk, the row label of each row: header = row 1) out."""
    try:
        pf = pq.ParquetFile(path)
    except Exception as err:  # noqa: BLE001  (pyarrow raises several kinds for a damaged file)
        raise DataError(f"not a readable Parquet file ({err})", file=name) from None
    cols = list(pf.schema_arrow.names)
    _check_columns(cols, name)
    want = [c for c in (*REQUIRED, "stimulus") if c in cols]
    start = 0
    for batch in pf.iter_batches(batch_size=chunk_rows, columns=want):
        df = batch.to_pandas()
        yield df, np.arange(start, start + len(df), dtype=np.int64) + 2
        start += len(df)


def _check_columns(cols: list[str], name: str) -> None:
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise DataError(f"missing column(s) {', '.join(repr(c) for c in missing)}; found {cols[:20]}",
                        file=name, column=missing[0],
                        expected="columns observer, x, y (and stimulus) as eyedp_core.io names them")


def _numbers(df: pd.DataFrame, col: str, name: str, lines: np.ndarray) -> np.ndarray:
    """A coordinate column in, float64 out (missing = NaN); DataError naming the first text that is no number."""
    raw = df[col]
    num = np.array(pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan))  # writable
    bad = np.isnan(num) & raw.notna().to_numpy() & (raw.astype(str).str.strip() != "").to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"expected a number (px), found {str(raw.iloc[i])[:40]!r}; {int(bad.sum()):,} rows of "
                        "this chunk are not numbers", file=name, row=int(lines[i]), column=col,
                        expected="a number", found=str(raw.iloc[i])[:40], count=int(bad.sum()))
    return num


def _text(v: object) -> str:
    """A raw coordinate in, how the report quotes it out ('missing' for an empty field)."""
    return "missing" if v is None or (isinstance(v, float) and np.isnan(v)) else repr(str(v))[:30]


def _check_frame(df: pd.DataFrame, lines: np.ndarray, name: str, stimulus: str, width: int, height: int,
                 report: RowReport) -> Chunk | None:
    """One chunk's frame and row lines in, its checked Chunk on the stimulus (None if it has no such row) out;
    every row's fate is counted in `report`."""
    df = df.reset_index(drop=True)
    blank = df.isna().all(axis=1).to_numpy()
    if blank.any():
        report.name(RowFate.BLANK, name, lines[blank], lambda _: "no field holds a value")
    keep = ~blank
    if "stimulus" in df.columns:
        other = keep & (df["stimulus"].astype(str) != stimulus).to_numpy()
        report.add(RowFate.OTHER_STIMULUS, int(other.sum()))
        keep &= ~other
    if not keep.any():
        return None
    df, lines = df[keep].reset_index(drop=True), lines[keep]
    obs = df["observer"]
    missing = obs.isna().to_numpy() | (obs.astype(str).str.strip() == "").to_numpy()
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise DataError(f"empty observer id ({int(missing.sum()):,} rows of this chunk): every fixation "
                        "must say whose it is", file=name, row=int(lines[i]),
                        column="observer", expected="an observer id", count=int(missing.sum()))
    x = _numbers(df, "x", name, lines)
    y = _numbers(df, "y", name, lines)
    finite = np.isfinite(x) & np.isfinite(y)
    if not finite.all():
        bad = np.flatnonzero(~finite)
        raw_x, raw_y = df["x"].to_numpy(dtype=object)[bad], df["y"].to_numpy(dtype=object)[bad]
        report.name(RowFate.NON_FINITE, name, lines[bad],
                    lambda i: f"x = {_text(raw_x[i])}, y = {_text(raw_y[i])}: a position must be a finite number")
        x[bad], y[bad] = np.nan, np.nan
    # The page's rule (eyedp_core.io.fit_to_canvas): positions up to a tenth of the canvas off it are moved to its
    # edge; one further out is refused, as it means a wrong canvas size or screen coordinates.
    fin = np.flatnonzero(finite)
    fit_to_canvas(pd.DataFrame({"x": x[fin], "y": y[fin]}, index=pd.Index(lines[fin], name=ROW_INDEX_NAME)),
                  width, height, name)
    with np.errstate(invalid="ignore"):
        off = finite & ((x < 0) | (x > width) | (y < 0) | (y > height))
        cx, cy = np.clip(x, 0.0, float(width)), np.clip(y, 0.0, float(height))
        far = finite & ((cx >= width) | (cy >= height))
    moved, edge = off & ~far, far
    if moved.any():
        i_m = np.flatnonzero(moved)
        report.name(RowFate.MOVED_TO_EDGE, name, lines[i_m],
                    lambda i: f"({x[i_m[i]]:g}, {y[i_m[i]]:g}) moved to ({cx[i_m[i]]:g}, {cy[i_m[i]]:g}) on the "
                              f"{width} × {height} px canvas")
    if edge.any():
        i_e = np.flatnonzero(edge)
        report.name(RowFate.FAR_EDGE, name, lines[i_e],
                    lambda i: f"({x[i_e[i]]:g}, {y[i_e[i]]:g})" + (f" moved to ({cx[i_e[i]]:g}, {cy[i_e[i]]:g})"
                                                                   if off[i_e[i]] else "")
                    + f" lies on the far edge of the {width} × {height} px canvas, outside every cell")
    report.add(RowFate.USED, int((finite & ~off & ~far).sum()))
    cx[edge], cy[edge] = np.nan, np.nan
    return Chunk(name, obs.astype(str).to_numpy(), cx, cy)


def read_chunks(files: list[str], stimulus: str, width: int, height: int, chunk_rows: int = CHUNK_ROWS,
                report: RowReport | None = None) -> Iterator[Chunk]:
    """Shards, the stimulus and the public canvas in, checked Chunks of that stimulus' rows out, one bounded chunk
    at a time; every row's fate is counted (and the unusual ones named) in `report`.

    Rows of other stimuli (when a shard has a stimulus column) are counted and skipped, as are blank lines and CSV
    lines with a wrong number of fields; a missing or non-finite x or y leaves the row off the grid (its observer
    counted); positions just off the canvas are moved to its edge (the page's rule). A missing column, a
    coordinate that is not a number, an empty observer id or a position far off the canvas is a DataError
    naming the file and row."""
    report = RowReport() if report is None else report
    for path in files:
        name = os.path.basename(path)
        if _is_parquet(path):
            frames = _parquet_frames(path, name, chunk_rows)
        elif path.lower().endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".txt.gz")):
            frames = _csv_frames(path, name, chunk_rows, report)
        else:
            raise DataError("unknown file type", file=name, expected="a .parquet, .csv or .csv.gz file")
        for df, lines in frames:
            chunk = _check_frame(df, lines, name, stimulus, width, height, report)
            if chunk is not None:
                yield chunk
