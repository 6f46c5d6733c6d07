"""The inputs of a plan's series forms and gaze samples on the batch path: feature-window tables (`--series`) and
gaze-sample tables (`--samples`), each file read whole with the library's table reader (io.uploads.read_table for
CSV / TSV, gzipped or not; Parquet by pyarrow) and the files stacked. Unlike the heatmaps' shards these are held
in memory: a series form's tensor and Kaleido's streams need a participant's rows together."""
from __future__ import annotations

import os

import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.uploads import read_table

__all__ = ["read_tables"]

_PARQUET = (".parquet", ".pq", ".parq")
_TEXT = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".txt.gz")


def _read_one(path: str) -> pd.DataFrame:
    name = os.path.basename(path)
    low = path.lower()
    try:
        if low.endswith(_PARQUET):
            return pd.read_parquet(path)
        if not low.endswith(_TEXT):
            raise DataError("unknown file type", file=name, expected="a .parquet, .csv, .tsv or .csv.gz file")
        with open(path, "rb") as f:
            return read_table(f.read(), name).reset_index(drop=True)
    except (OSError, ValueError) as err:
        if isinstance(err, DataError):
            raise
        raise DataError(f"cannot be read ({err})", file=name) from None


def read_tables(files: list[str], required: tuple[str, ...], what: str) -> pd.DataFrame:
    """Files, the columns each must have and what they hold (for messages) in, their rows stacked out (the
    participant column as text); DataError naming the file that lacks a column or cannot be read."""
    if not files:
        raise DataError(f"no {what} files were given")
    parts = []
    for path in files:
        df = _read_one(path)
        missing = [c for c in required if c not in df.columns]
        if missing:
            raise DataError(f"the {what} table lacks the column(s) {', '.join(missing)}", file=os.path.basename(path),
                            expected=", ".join(required))
        parts.append(df)
    out = pd.concat(parts, ignore_index=True)
    out["participant"] = out["participant"].astype(str)
    return out
