"""Every stimulus of a plan streamed in one pass: each shard chunk is read once and checked for every stimulus of
the plan (the batch reader's own checks, on each stimulus' canvas), its rows written to observer-hashed partition
files with their stimulus; each partition is then capped per heatmap output by eyedp_core.heatmaps, as the numpy
engine does for one stimulus. Memory is bounded by the largest partition, whatever the number of observers."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from eyedp_core.batch.numpy_engine import DEFAULT_PARTITIONS, CleanAggregate, partition_rows
from eyedp_core.batch.settings import HeatmapSettings

# The reader's per-shard frames and its per-stimulus checks: one reading of each chunk serves every stimulus.
from eyedp_core.batch.sources import CHUNK_ROWS, RowReport, _check_frame, _csv_frames, _is_parquet, _parquet_frames
from eyedp_core.heatmaps.maps import cap_matrix, gaze_maps
from eyedp_core.io.errors import DataError

__all__ = ["clean_aggregates"]

_SCHEMA = pa.schema([("stimulus", pa.string()), ("observer", pa.string()), ("x", pa.float64()),
                     ("y", pa.float64())])


def _canvases(settings: Sequence[HeatmapSettings]) -> dict[str, tuple[int, int]]:
    """-> {stimulus: (width, height)}; ValueError when two outputs give one stimulus different canvases."""
    out: dict[str, tuple[int, int]] = {}
    for s in settings:
        size = (s.width, s.height)
        if out.setdefault(s.stimulus, size) != size:
            raise ValueError(f"the plan gives stimulus '{s.stimulus}' two canvases ({out[s.stimulus]} and {size}); "
                             "a stimulus has one public size")
    return out


def clean_aggregates(files: list[str], settings: Sequence[HeatmapSettings], *,
                     partitions: int = DEFAULT_PARTITIONS, chunk_rows: int = CHUNK_ROWS, tmp_dir: str | None = None,
                     reports: dict[str, RowReport] | None = None) -> list[CleanAggregate]:
    """Shards and one HeatmapSettings per heatmap output in, each output's clean capped mean map and observers out
    (equal to `numpy_engine.clean_aggregate` per output), reading the shards once. Row fates are counted per
    stimulus in `reports`. DataError on bad input or a stimulus without fixations."""
    canv = _canvases(settings)
    reports = {} if reports is None else reports
    for stim in canv:
        reports.setdefault(stim, RowReport())
    totals = [np.zeros(s.n_cells, dtype=np.float64) for s in settings]
    observers: list[list[np.ndarray]] = [[] for _ in settings]
    first = next(iter(canv))
    with tempfile.TemporaryDirectory(prefix="eyedp-plan-", dir=tmp_dir) as tmp:
        paths = [os.path.join(tmp, f"part-{i:04d}.parquet") for i in range(partitions)]
        writers: dict[int, pq.ParquetWriter] = {}
        try:
            for path in files:
                name = os.path.basename(path)
                if _is_parquet(path):
                    frames = _parquet_frames(path, name, chunk_rows)
                elif path.lower().endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt", ".txt.gz")):
                    frames = _csv_frames(path, name, chunk_rows, reports[first])  # line-level fates counted once
                else:
                    raise DataError("unknown file type", file=name, expected="a .parquet, .csv or .csv.gz file")
                for df, lines in frames:
                    for stim, (w, h) in canv.items():
                        chunk = _check_frame(df, lines, name, stim, w, h, reports[stim])
                        if chunk is not None:
                            _write(chunk, stim, partitions, paths, writers)
        finally:
            for wr in writers.values():
                wr.close()
        for p in sorted(writers):
            df = pq.read_table(paths[p]).to_pandas()
            groups = dict(tuple(df.groupby("stimulus", sort=False)))
            for i, s in enumerate(settings):
                sub = groups.get(s.stimulus)
                if sub is None:
                    continue
                maps = gaze_maps(sub, s.width, s.height, s.cell_px, "count", observer_col="observer")
                totals[i] += np.asarray(cap_matrix(maps, s.cap_m, s.cap_total).sum(axis=0)).ravel()
                observers[i].append(np.asarray(maps.observers, dtype=object))
            del df, groups
    out = []
    for i, s in enumerate(settings):
        ids = np.concatenate(observers[i]) if observers[i] else np.array([], dtype=object)
        if ids.size < 2:
            raise DataError(f"only {ids.size} observer(s) looked at '{s.stimulus}' in {len(files)} file(s); a "
                            "private heatmap of the mean map needs at least 2 observers (n is public).",
                            file=files[0] if files else None, expected=f"rows with stimulus = '{s.stimulus}'")
        out.append(CleanAggregate((totals[i] / ids.size).reshape(s.grid_shape), tuple(str(o) for o in ids)))
    return out


def _write(chunk, stimulus: str, partitions: int, paths: list[str], writers: dict[int, pq.ParquetWriter]) -> None:  # noqa: ANN001
    """Append one checked chunk's rows to the observer-hashed partition files, tagged with their stimulus."""
    for p, idx in partition_rows(chunk.observer, partitions):
        table = pa.table({"stimulus": np.full(idx.size, stimulus, dtype=object), "observer": chunk.observer[idx],
                          "x": chunk.x[idx], "y": chunk.y[idx]}, schema=_SCHEMA)
        if p not in writers:
            writers[p] = pq.ParquetWriter(paths[p], _SCHEMA, compression="lz4")
        writers[p].write_table(table)
