"""Sharded fixation tables (Parquet, CSV or CSV.gz, the column names of eyedp_core.io) read in bounded chunks and
checked: every problem is a DataError naming the file (and row), raised before anything is released."""
from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from eyedp_core.io.errors import ROW_INDEX_NAME, DataError
from eyedp_core.io.uploads import check_in_bounds

__all__ = ["CHUNK_ROWS", "REQUIRED", "Chunk", "expand_inputs", "read_chunks"]

REQUIRED = ("observer", "x", "y")
CHUNK_ROWS = 500_000  # rows per chunk: bounds the memory of every engine's reader


@dataclass(frozen=True, eq=False)
class Chunk:
    """Checked rows of one shard on one stimulus: observer ids (str), x and y in px (float64)."""

    file: str
    observer: np.ndarray
    x: np.ndarray
    y: np.ndarray


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


def _raw_frames(path: str, chunk_rows: int) -> Iterator[tuple[pd.DataFrame, int, bool]]:
    """Shard in, (frame of one chunk, index of its first data row, is CSV) out, one chunk at a time."""
    name = os.path.basename(path)
    if _is_parquet(path):
        try:
            pf = pq.ParquetFile(path)
        except Exception as err:  # noqa: BLE001  (pyarrow raises several kinds for a damaged file)
            raise DataError(f"not a readable Parquet file ({err})", file=name) from None
        cols = [c for c in pf.schema_arrow.names]
        _check_columns(cols, name)
        want = [c for c in (*REQUIRED, "stimulus") if c in cols]
        start = 0
        for batch in pf.iter_batches(batch_size=chunk_rows, columns=want):
            df = batch.to_pandas()
            yield df, start, False
            start += len(df)
        return
    if not path.lower().endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".txt.gz")):
        raise DataError("unknown file type", file=name, expected="a .parquet, .csv or .csv.gz file")
    sep = "\t" if ".tsv" in path.lower() else ","
    try:
        header = pd.read_csv(path, sep=sep, nrows=0).columns.tolist()
    except Exception as err:  # noqa: BLE001
        raise DataError(f"not a readable CSV file ({err})", file=name) from None
    _check_columns(header, name)
    want = [c for c in (*REQUIRED, "stimulus") if c in header]
    start = 0
    reader = pd.read_csv(path, sep=sep, usecols=want, dtype={"observer": str, "stimulus": str, "x": object, "y": object},
                         chunksize=chunk_rows, keep_default_na=True)
    for df in reader:
        yield df, start, True
        start += len(df)


def _check_columns(cols: list[str], name: str) -> None:
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise DataError(f"missing column(s) {', '.join(repr(c) for c in missing)}; found {cols[:20]}",
                        file=name, column=missing[0],
                        expected="columns observer, x, y (and stimulus) as eyedp_core.io names them")


def _row_label(pos, start: int, csv: bool):
    """Position(s) in the chunk in, the row(s) users see out: as a spreadsheet shows the table, header = row 1
    (the convention of eyedp_core.io, also for Parquet)."""
    return start + pos + 2


def _numbers(df: pd.DataFrame, col: str, name: str, start: int, csv: bool, pos: np.ndarray) -> np.ndarray:
    raw = df[col]
    num = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(num) & raw.notna().to_numpy() & (raw.astype(str).str.strip() != "").to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"expected a number (px), found {str(raw.iloc[i])[:40]!r}; {int(bad.sum()):,} rows of "
                        "this chunk are not numbers", file=name, row=_row_label(int(pos[i]), start, csv), column=col,
                        expected="a number", found=str(raw.iloc[i])[:40], count=int(bad.sum()))
    return num


def read_chunks(files: list[str], stimulus: str, width: int, height: int,
                chunk_rows: int = CHUNK_ROWS) -> Iterator[Chunk]:
    """Shards, the stimulus and the public canvas in, checked Chunks of that stimulus' rows out.

    Rows of other stimuli (when a shard has a stimulus column) are skipped; rows with an empty x or y are
    dropped, as the Heatmaps page drops lost fixations. A missing column, a coordinate that is not a number,
    an empty observer id or a position off the canvas is a DataError naming the file and row."""
    for path in files:
        name = os.path.basename(path)
        for df, start, csv in _raw_frames(path, chunk_rows):
            df = df.reset_index(drop=True)
            if "stimulus" in df.columns:
                df = df[df["stimulus"].astype(str) == stimulus]
            if df.empty:
                continue
            pos_in_chunk = df.index.to_numpy()  # chunk-relative positions survive the stimulus filter
            df = df.reset_index(drop=True)
            obs = df["observer"]
            missing = obs.isna().to_numpy() | (obs.astype(str).str.strip() == "").to_numpy()
            if missing.any():
                i = int(np.flatnonzero(missing)[0])
                pos = int(pos_in_chunk[i])
                raise DataError(f"empty observer id ({int(missing.sum()):,} rows of this chunk): every fixation "
                                "must say whose it is", file=name, row=_row_label(pos, start, csv),
                                column="observer", expected="an observer id", count=int(missing.sum()))
            x = _numbers(df, "x", name, start, csv, pos_in_chunk)
            y = _numbers(df, "y", name, start, csv, pos_in_chunk)
            keep = np.isfinite(x) & np.isfinite(y)
            frame = pd.DataFrame({"x": x[keep], "y": y[keep]},
                                 index=pd.Index(_row_label(pos_in_chunk[keep], start, csv), name=ROW_INDEX_NAME))
            check_in_bounds(frame, width, height, name)
            yield Chunk(name, obs.astype(str).to_numpy()[keep], x[keep], y[keep])
