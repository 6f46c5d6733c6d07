"""AOI metrics of a plan on the batch path: the fixations of the output's stimulus read from the shards (with
their durations and start times when the shards have them), the AOI page's per-observer table and its OpenDP
release (eyedp_core.aoi). The rows of one stimulus are held in memory: the table is one row per observer and AOI,
so an AOI output's memory grows with its observers (the heatmaps' pass stays flat)."""
from __future__ import annotations

import io
import os
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from eyedp_core.aoi.metrics import check_supported
from eyedp_core.aoi.observers import START_COLUMNS, ObserverTable, observer_table
from eyedp_core.aoi.release import release_aois
from eyedp_core.batch.sources import CHUNK_ROWS
from eyedp_core.io.errors import DataError
from eyedp_core.plan import AoiOutput
from eyedp_core.plan.schema import shape_record

__all__ = ["aoi_fixations", "aoi_table", "release_aoi_files"]

_COLUMNS = ("observer", "stimulus", "x", "y", "duration_ms", *START_COLUMNS)


def aoi_fixations(files: list[str], stimulus: str | None, chunk_rows: int = CHUNK_ROWS) -> pd.DataFrame:
    """Shards and a stimulus in, that stimulus' fixation rows (observer, x, y[, duration_ms, start]) out; every
    row when the stimulus is None (the shards then may hold one stimulus only) or a shard has no stimulus column.
    DataError naming an unreadable shard."""
    parts: list[pd.DataFrame] = []
    seen: set[str] = set()
    for path in files:
        name = os.path.basename(path)
        try:
            if path.lower().endswith((".parquet", ".pq", ".parq")):
                pf = pq.ParquetFile(path)
                cols = [c for c in _COLUMNS if c in pf.schema_arrow.names]
                frames = (b.to_pandas() for b in pf.iter_batches(batch_size=chunk_rows, columns=cols))
            else:
                frames = pd.read_csv(path, sep="\t" if ".tsv" in path.lower() else ",",
                                     usecols=lambda c: c in _COLUMNS, dtype={"observer": str, "stimulus": str},
                                     chunksize=chunk_rows, skip_blank_lines=True, on_bad_lines="skip")
            for df in frames:
                if "stimulus" in df.columns:
                    if stimulus is None:
                        seen.update(df["stimulus"].dropna().astype(str).unique())
                    else:
                        df = df[df["stimulus"].astype(str) == stimulus]
                if len(df):
                    parts.append(df.drop(columns=["stimulus"], errors="ignore"))
        except (OSError, ValueError, UnicodeDecodeError) as err:
            raise DataError(f"cannot read its fixations for the AOI metrics ({err})", file=name) from None
    if len(seen) > 1:  # AOIs are drawn on one image: pooling stimuli would mix their outlines
        raise DataError(f"the AOI output names no stimulus but the shards hold {len(seen)} ("
                        f"{', '.join(sorted(seen)[:5])}{', …' if len(seen) > 5 else ''})",
                        file=files[0], expected="the AOI output's 'stimulus'")
    if not parts:
        raise DataError(f"no fixation on stimulus '{stimulus}' for the AOI metrics", file=files[0] if files else None,
                        expected=f"rows with stimulus = '{stimulus}'")
    return pd.concat(parts, ignore_index=True)


def aoi_table(files: list[str], output: AoiOutput) -> ObserverTable:
    """Shards and an AOI output with shapes in, the per-observer clipped table out; ValueError (before any noise)
    when a metric needs columns the shards do not have (dwell without durations)."""
    fix = aoi_fixations(files, output.stimulus)
    fix["observer"] = fix["observer"].astype(str)
    table = observer_table(fix, output.shapes, output.bounds, file=f"shards of '{output.stimulus}'")
    check_supported(table, output.metrics)
    return table


def release_aoi_files(output: AoiOutput, table: ObserverTable, epsilon: float, stem: str) -> tuple[dict[str, bytes],
                                                                                                 dict[str, Any]]:
    """An AOI output, its table, its allotted ε and a file stem in, ({file name: bytes}, its manifest) out (OpenDP
    noise, no seed)."""
    rel = release_aois(table, output.metrics, epsilon, output.stimulus or "", [shape_record(a) for a in
                                                                                 output.shapes])
    files = {f"{stem}.csv": rel.table.to_csv(lineterminator="\n").encode("utf-8"),
             f"{stem}.json": (rel.manifest_json() + "\n").encode("utf-8")}
    if rel.transitions is not None:
        buf = io.StringIO()
        rel.transitions.to_csv(buf, lineterminator="\n")
        files[f"{stem}_transitions.csv"] = buf.getvalue().encode("utf-8")
    return files, rel.manifest
