"""AOI metrics of a plan on the batch path: the fixations of the outputs' stimuli read from the shards (with
their durations and start times when the shards have them), the AOI page's clipped per-observer contributions
(eyedp_core.aoi.observers) and its OpenDP release (eyedp_core.aoi.release).

`aoi_sums` streams: one pass writes the rows to observer-hashed partition files (numpy_engine.partition_rows, so
an observer's fixations are all in one file), then each partition's observers are clipped by the AOI page's
`observer_table` and only their column sums are kept. Memory is bounded by the largest partition and the kept
state is O(AOIs × metrics), whatever the number of observers. `aoi_table` reads one stimulus' rows into memory
(the per-observer table, one row per observer: the reference the streamed sums equal)."""
from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from eyedp_core.aoi.metrics import check_supported
from eyedp_core.aoi.observers import START_COLUMNS, ObserverTable, observer_table
from eyedp_core.aoi.release import release_aois
from eyedp_core.batch.numpy_engine import DEFAULT_PARTITIONS, partition_rows
from eyedp_core.batch.sources import CHUNK_ROWS
from eyedp_core.io.errors import DataError
from eyedp_core.plan.schema import AoiOutput, shape_record

__all__ = ["ObserverSums", "aoi_fixations", "aoi_sums", "aoi_table", "release_aoi_files"]

_COLUMNS = ("observer", "stimulus", "x", "y", "duration_ms", *START_COLUMNS)
_TIMES = ("duration_ms", *START_COLUMNS)
# Where a stimulus' rows start when the shards give no start: each fixation where the previous one of the
# stimulus' rows (in reading order) ended, as observer_table counts them for the whole table in memory.
_SEQUENCE = "sequence_s"
_SCHEMA = pa.schema([("stimulus", pa.int32()), ("observer", pa.string()), ("x", pa.float64()), ("y", pa.float64()),
                     *[(c, pa.float64()) for c in (*_TIMES, _SEQUENCE)]])


def _frames(path: str, chunk_rows: int) -> Iterator[pd.DataFrame]:
    """One shard in, its chunks (the AOI columns it has) out; DataError naming an unreadable shard."""
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
        yield from frames
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise DataError(f"cannot read its fixations for the AOI metrics ({err})", file=name) from None


def _of_stimulus(df: pd.DataFrame, stimulus: str | None, seen: set[str]) -> pd.DataFrame:
    """A chunk, a stimulus (None: every row) and the stimuli seen so far in, the chunk's rows of it out."""
    if "stimulus" not in df.columns:
        return df
    if stimulus is None:
        seen.update(df["stimulus"].dropna().astype(str).unique())
        return df.drop(columns=["stimulus"])
    return df[df["stimulus"].astype(str) == stimulus].drop(columns=["stimulus"])


def _check_found(files: list[str], stimulus: str | None, seen: set[str], rows: int) -> None:
    """DataError when an output without a stimulus meets several, or its stimulus has no fixation."""
    if len(seen) > 1:  # AOIs are drawn on one image: pooling stimuli would mix their outlines
        raise DataError(f"the AOI output names no stimulus but the shards hold {len(seen)} ("
                        f"{', '.join(sorted(seen)[:5])}{', …' if len(seen) > 5 else ''})",
                        file=files[0], expected="the AOI output's 'stimulus'")
    if not rows:
        raise DataError(f"no fixation on stimulus '{stimulus}' for the AOI metrics", file=files[0] if files else None,
                        expected=f"rows with stimulus = '{stimulus}'")


def aoi_fixations(files: list[str], stimulus: str | None, chunk_rows: int = CHUNK_ROWS) -> pd.DataFrame:
    """Shards and a stimulus in, that stimulus' fixation rows (observer, x, y[, duration_ms, start]) out; every
    row when the stimulus is None (the shards then may hold one stimulus only) or a shard has no stimulus column.
    DataError naming an unreadable shard."""
    parts: list[pd.DataFrame] = []
    seen: set[str] = set()
    for path in files:
        for df in _frames(path, chunk_rows):
            df = _of_stimulus(df, stimulus, seen)
            if len(df):
                parts.append(df)
    _check_found(files, stimulus, seen, len(parts))
    return pd.concat(parts, ignore_index=True)


def aoi_table(files: list[str], output: AoiOutput) -> ObserverTable:
    """Shards and an AOI output with shapes in, the per-observer clipped table out; ValueError (before any noise)
    when a metric needs columns the shards do not have (dwell without durations)."""
    fix = aoi_fixations(files, output.stimulus)
    fix["observer"] = fix["observer"].astype(str)
    table = observer_table(fix, output.shapes, output.bounds, file=f"shards of '{output.stimulus}'")
    check_supported(table, output.metrics)
    return table


@dataclass(frozen=True, eq=False)
class ObserverSums(ObserverTable):
    """An ObserverTable whose arrays hold one row: the column sums of every observer's clipped contributions
    (all the release reads), with the number of observers in `count` instead of a roster."""

    count: int = 0

    @property
    def n(self) -> int:
        """Number of observers (public under the replace-one relation)."""
        return self.count


@dataclass
class _Running:
    """One AOI output's running sums over the partitions (the O(AOIs × metrics) state)."""

    output: AoiOutput
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    count: int = 0
    names: tuple[str, ...] = ()

    def add(self, table: ObserverTable) -> None:
        """Add one partition's observers' clipped contributions."""
        self.count += table.n
        self.names = table.aoi_names
        for name in _SUMMED:
            part = getattr(table, name).sum(axis=0)
            self.arrays[name] = part if name not in self.arrays else self.arrays[name] + part

    def sums(self, has_durations: bool, has_starts: bool) -> ObserverSums:
        """The totals as a one-row table."""
        rows = {name: np.asarray(v, dtype=float)[None, ...] for name, v in self.arrays.items()}
        return ObserverSums(observers=(), aoi_names=self.names, bounds=self.output.bounds,
                            has_durations=has_durations, has_starts=has_starts, count=self.count, **rows)


_SUMMED = ("hit", "fixations", "dwell_s", "ttff_s", "revisits", "transitions", "elsewhere_fixations")


@dataclass
class _StimulusRows:
    """What the one pass learns of one stimulus' rows: which time columns hold a value, rows kept, where the
    next row would start without start times, and the stimuli an output without one saw."""

    present: set[str] = field(default_factory=set)
    holds: set[str] = field(default_factory=set)
    rows: int = 0
    next_start: float = 0.0
    seen: set[str] = field(default_factory=set)

    def frame(self, df: pd.DataFrame, key: int) -> dict[str, np.ndarray]:
        """A chunk's rows of this stimulus in, the partition files' columns out (NaN for a missing time)."""
        self.rows += len(df)
        self.present.update(c for c in _TIMES if c in df.columns)
        self.holds.update(c for c in _TIMES if c in df.columns and bool(df[c].notna().any()))
        out = {"stimulus": np.full(len(df), key, dtype=np.int32), "observer": df["observer"].astype(str).to_numpy()}
        for c in ("x", "y", *_TIMES):
            out[c] = (pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
                      if c in df.columns else np.full(len(df), np.nan))
        step = np.nan_to_num(out["duration_ms"]) / 1000.0
        # A running sum continued across chunks adds in the same order as one cumsum over all the rows.
        seq = np.cumsum(np.r_[self.next_start, step])
        out[_SEQUENCE], self.next_start = seq[:-1], float(seq[-1])
        return out

    def fixations(self, part: pd.DataFrame) -> pd.DataFrame:
        """A partition's rows of this stimulus in, the columns the in-memory table would have had out."""
        cols = {"observer": part["observer"], "x": part["x"], "y": part["y"]}
        if "duration_ms" in self.present:
            cols["duration_ms"] = part["duration_ms"]
        start = next((c for c in START_COLUMNS if c in self.present), None)
        cols[START_COLUMNS[0]] = part[start] if start is not None else part[_SEQUENCE]
        return pd.DataFrame(cols)

    @property
    def timing(self) -> tuple[bool, bool]:
        """(has durations, has start times) of all the rows, as observers.timing reads the whole table."""
        return "duration_ms" in self.holds, any(c in self.holds for c in START_COLUMNS)


def aoi_sums(files: list[str], outputs: Sequence[AoiOutput], *, partitions: int = DEFAULT_PARTITIONS,
             chunk_rows: int = CHUNK_ROWS, tmp_dir: str | None = None) -> dict[str, ObserverSums]:
    """Shards and AOI outputs with shapes in, {label: the sums of its observers' clipped contributions} out, in
    memory bounded by the largest of `partitions` observer-hashed partitions; equal to summing `aoi_table`'s
    columns. ValueError (before any noise) when a metric needs columns the shards do not have; DataError on bad
    input."""
    stimuli = list(dict.fromkeys(o.stimulus for o in outputs))
    state = [_StimulusRows() for _ in stimuli]
    running = {o.label: _Running(o) for o in outputs}
    with tempfile.TemporaryDirectory(prefix="eyedp-aoi-", dir=tmp_dir) as tmp:
        files_of = _Partitions(tmp, partitions, chunk_rows)
        try:
            for path in files:
                for df in _frames(path, chunk_rows):
                    for key, stim in enumerate(stimuli):
                        rows = _of_stimulus(df, stim, state[key].seen)
                        if len(rows):
                            files_of.add(state[key].frame(rows, key))
        finally:
            files_of.close()
        for key, stim in enumerate(stimuli):
            _check_found(files, stim, state[key].seen, state[key].rows)
        for path in files_of.written():
            part = pq.read_table(path).to_pandas()
            for key, rows in part.groupby("stimulus", sort=False):
                fix = state[int(key)].fixations(rows.reset_index(drop=True))
                for o in outputs:
                    if stimuli.index(o.stimulus) == int(key):
                        running[o.label].add(observer_table(fix, o.shapes, o.bounds,
                                                            file=f"shards of '{o.stimulus}'"))
            del part
    out = {}
    for o in outputs:
        out[o.label] = running[o.label].sums(*state[stimuli.index(o.stimulus)].timing)
        check_supported(out[o.label], o.metrics)
    return out


class _Partitions:
    """Observer-hashed partition files in a folder: rows are buffered per partition and appended once a chunk's
    worth is held (few large row groups, read back fast), so the buffers never hold more than `chunk_rows` rows."""

    def __init__(self, folder: str, partitions: int, chunk_rows: int) -> None:
        """Folder, number of partitions and the rows buffered at most."""
        self.paths = [os.path.join(folder, f"part-{i:04d}.parquet") for i in range(partitions)]
        self.chunk_rows = chunk_rows
        self.writers: dict[int, pq.ParquetWriter] = {}
        self.buffers: dict[int, list[pa.Table]] = {}
        self.held = 0

    def add(self, columns: dict[str, np.ndarray]) -> None:
        """Split a chunk's rows by observer partition (numpy_engine.partition_rows) into the buffers."""
        table = pa.table(columns, schema=_SCHEMA)
        for p, idx in partition_rows(columns["observer"], len(self.paths)):
            self.buffers.setdefault(p, []).append(table.take(idx))
        self.held += table.num_rows
        if self.held >= self.chunk_rows:
            self.flush()

    def flush(self) -> None:
        """Append every buffer to its partition's file."""
        for p, pieces in self.buffers.items():
            if p not in self.writers:
                self.writers[p] = pq.ParquetWriter(self.paths[p], _SCHEMA, compression="lz4")
            self.writers[p].write_table(pa.concat_tables(pieces))
        self.buffers, self.held = {}, 0

    def close(self) -> None:
        """Write what is buffered and close the files."""
        try:
            self.flush()
        finally:
            for wr in self.writers.values():
                wr.close()

    def written(self) -> list[str]:
        """The partition files that hold rows, in partition order."""
        return [self.paths[p] for p in sorted(self.writers)]


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
