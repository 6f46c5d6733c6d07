"""The embedded engine: observers hashed into partition files on disk (pyarrow), then each partition's gaze maps
built and capped by eyedp_core.heatmaps (the Heatmaps page's own functions), so memory is bounded by the largest
partition, not by the input. The capped column sums add up to the same clean map as the in-memory path."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from eyedp_core.batch.settings import HeatmapSettings
from eyedp_core.batch.sources import CHUNK_ROWS, RowReport, read_chunks
from eyedp_core.heatmaps.maps import cap_matrix, gaze_maps
from eyedp_core.io.errors import DataError

__all__ = ["DEFAULT_PARTITIONS", "CleanAggregate", "clean_aggregate"]

DEFAULT_PARTITIONS = 64
_SCHEMA = pa.schema([("observer", pa.string()), ("x", pa.float64()), ("y", pa.float64())])


@dataclass(frozen=True, eq=False)
class CleanAggregate:
    """The clean capped mean map on the cell grid (private: released only with noise) and the public roster."""

    aggregate: np.ndarray
    observers: tuple[str, ...]

    @property
    def n_observers(self) -> int:
        """n, public under replace-one neighbours."""
        return len(self.observers)


def _partition_of(observer: np.ndarray, partitions: int) -> np.ndarray:
    return (pd.util.hash_array(np.asarray(observer, dtype=object)) % np.uint64(partitions)).astype(np.int64)


def partition_rows(observer: np.ndarray, partitions: int) -> Iterator[tuple[int, np.ndarray]]:
    """Observer ids of a chunk -> (partition, the chunk's row indices in it) for each non-empty partition: every
    row of one observer lands in the same partition, so a partition's maps are whole observers' maps."""
    part = _partition_of(observer, partitions)
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(partitions + 1))
    for p in range(partitions):
        idx = order[bounds[p]:bounds[p + 1]]
        if idx.size:
            yield p, idx


def clean_aggregate(files: list[str], settings: HeatmapSettings, *, partitions: int = DEFAULT_PARTITIONS,
                    chunk_rows: int = CHUNK_ROWS, tmp_dir: str | None = None,
                    report: RowReport | None = None) -> CleanAggregate:
    """Shards and settings in, the clean capped mean map and the observers out, streamed in bounded memory.

    Pass 1 checks every chunk and appends its rows to one of `partitions` Parquet files by a hash of the
    observer id (all of an observer's fixations land in the same file); pass 2 caps each partition with
    eyedp_core.heatmaps.maps.cap_matrix and adds its column sums. Every row's fate is counted in `report`.
    DataError on bad input (nothing kept)."""
    s = settings
    total = np.zeros(s.n_cells, dtype=np.float64)
    observers: list[np.ndarray] = []
    with tempfile.TemporaryDirectory(prefix="eyedp-batch-", dir=tmp_dir) as tmp:
        paths = [os.path.join(tmp, f"part-{i:04d}.parquet") for i in range(partitions)]
        writers: dict[int, pq.ParquetWriter] = {}
        try:
            for chunk in read_chunks(files, s.stimulus, s.width, s.height, chunk_rows, report):
                for p, idx in partition_rows(chunk.observer, partitions):
                    table = pa.table({"observer": chunk.observer[idx], "x": chunk.x[idx], "y": chunk.y[idx]},
                                     schema=_SCHEMA)
                    if p not in writers:
                        writers[p] = pq.ParquetWriter(paths[p], _SCHEMA, compression="lz4")
                    writers[p].write_table(table)
        finally:
            for w in writers.values():
                w.close()
        if not writers:
            raise DataError(f"no fixation on stimulus '{s.stimulus}' in {len(files)} file(s)", file=files[0] if files
                            else None, expected=f"rows with stimulus = '{s.stimulus}' (or no stimulus column)")
        for p in sorted(writers):
            df = pq.read_table(paths[p]).to_pandas()
            maps = gaze_maps(df, s.width, s.height, s.cell_px, "count", observer_col="observer")
            mat = cap_matrix(maps, s.cap_m, s.cap_total)
            total += np.asarray(mat.sum(axis=0)).ravel()
            observers.append(np.asarray(maps.observers, dtype=object))
            del df, maps, mat
    ids = np.concatenate(observers)
    n = ids.size
    if n < 2:
        raise DataError(f"only {n} observer looked at '{s.stimulus}'; a private heatmap of the mean map needs at "
                        "least 2 observers (n is public).", file=files[0])
    return CleanAggregate((total / n).reshape(s.grid_shape), tuple(str(o) for o in ids))
