"""PipelineDP engines (LocalBackend and Spark's SparkRDDBackend): the same heatmap with PipelineDP's contribution
bounding (m fixations per observer and cell, k = ⌊C/m⌋ random cells per observer) and its noise, calibrated so that
the guarantee is EyeDP's replace-one observer with public n (docs/PRIVACY_MODEL.md §6.8).

PipelineDP's relation is add/remove one observer; the released sums are counts, and for non-negative maps with
at most k cells of at most m, replacing one observer moves the counts by at most m·√min(r, 2k) in L2 and
m·min(r, 2k) in L1, against PipelineDP's add/remove m·√k and m·k. Each fixation has the value 1 and the declared
per-contribution bound [0, v] with v ≥ 1 (so nothing is clipped) scales PipelineDP's sensitivities up to the
replace-one ones: v = √(min(r, 2k)/k) for Gaussian noise, min(r, 2k)/k for Laplace. Parameter tuning is never
used (it draws from numpy)."""
from __future__ import annotations

import importlib.metadata
import math
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import CHUNK_ROWS, RowReport, read_chunks
from eyedp_core.io.errors import DataError

__all__ = ["PdpRelease", "engine_noise_std", "pdp_bounds", "release_pipelinedp"]

_SCHEMA = pa.schema([("observer", pa.string()), ("x", pa.float64()), ("y", pa.float64())])


@dataclass(frozen=True)
class PdpBounds:
    """PipelineDP's contribution bounds and the declared value bound v that makes its calibration replace-one."""

    m: int
    k: int
    v: float
    l1: float  # replace-one sensitivities of the counts (before dividing by n)
    l2: float


@dataclass(frozen=True, eq=False)
class PdpRelease:
    """Released mean map, the per-cell noise std on it, n, the bounds and the engine's versions."""

    values: np.ndarray
    std: float
    n_observers: int
    bounds: PdpBounds
    versions: dict[str, str]


def pdp_bounds(settings: HeatmapSettings) -> PdpBounds:
    """Settings in, PdpBounds out; ValueError when m is not a whole number (PipelineDP counts contributions)."""
    m = settings.cap_m
    if not float(m).is_integer():
        raise ValueError(f"PipelineDP bounds whole contributions: the cap m must be a whole number, got {m:g}")
    m, r, k = int(m), settings.n_cells, settings.cells_per_observer
    span = min(r, 2 * k)
    v = math.sqrt(span / k) if settings.gaussian else span / k
    return PdpBounds(m=m, k=k, v=v, l1=m * span, l2=m * math.sqrt(span))


def _versions(engine: Engine) -> dict[str, str]:
    out = {"pipeline-dp": importlib.metadata.version("pipeline-dp"),
           "python-dp": importlib.metadata.version("python-dp")}
    if engine is Engine.SPARK:
        out["pyspark"] = importlib.metadata.version("pyspark")
    return out


def _params(settings: HeatmapSettings, b: PdpBounds) -> Any:
    import pipeline_dp

    kind = pipeline_dp.NoiseKind.GAUSSIAN if settings.gaussian else pipeline_dp.NoiseKind.LAPLACE
    return pipeline_dp.AggregateParams(metrics=[pipeline_dp.Metrics.SUM], noise_kind=kind,
                                       max_partitions_contributed=b.k, max_contributions_per_partition=b.m,
                                       min_value=0.0, max_value=b.v, output_noise_stddev=True)


def _local_rows(files: list[str], settings: HeatmapSettings, seen: set[str], chunk_rows: int,
                report: RowReport | None) -> Iterator[tuple]:
    s = settings
    rows, cols = s.grid_shape
    for ch in read_chunks(files, s.stimulus, s.width, s.height, chunk_rows, report):
        seen.update(ch.observer.tolist())
        ok = ch.on_grid
        cell = (ch.y[ok] // s.cell_px).astype(np.int64) * cols + (ch.x[ok] // s.cell_px).astype(np.int64)
        yield from zip(ch.observer[ok].tolist(), cell.tolist())


def _spark_session(master: str) -> Any:
    """Master URL in, a Spark session out, its Python workers running this interpreter unless the user chose one."""
    from pyspark.sql import SparkSession

    # Spark starts its workers with `python3` from PATH unless told otherwise; that may be another interpreter
    # (or none), without pyspark or at another version.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName("eyedp-batch-heatmap").config("spark.ui.enabled", "false")
    if master.startswith("local"):
        # Spark's 200 shuffle partitions cost more than they bring on one machine: one per core (a cluster keeps
        # its own settings).
        cores = master[len("local["):-1] if master.startswith("local[") else "1"
        par = str(os.cpu_count() or 2) if cores in ("*", "") else cores.split(",")[0]
        builder = builder.config("spark.sql.shuffle.partitions", par).config("spark.default.parallelism", par)
    return builder.getOrCreate()


def _spark_rows(files: list[str], settings: HeatmapSettings, master: str, folder: str, chunk_rows: int,
                report: RowReport | None) -> tuple[Any, Any, int]:
    """Shards in, (Spark session, RDD of (observer, cell), n) out.

    EyeDP's reader checks the shards and writes the rows it keeps (one Parquet file per chunk) into `folder`,
    which Spark then reads: every engine uses the same rows, counts the same observers and drops the same rows
    (on a cluster, `folder` must be one its workers can read)."""
    from pyspark.sql import functions as F

    s = settings
    written = 0
    for ch in read_chunks(files, s.stimulus, s.width, s.height, chunk_rows, report):
        pq.write_table(pa.table({"observer": ch.observer, "x": ch.x, "y": ch.y}, schema=_SCHEMA),
                       os.path.join(folder, f"chunk-{written:06d}.parquet"))
        written += 1
    if not written:
        raise DataError(f"no fixation on stimulus '{s.stimulus}' in {len(files)} file(s)", file=files[0],
                        expected=f"rows with stimulus = '{s.stimulus}' (or no stimulus column)")
    spark = _spark_session(master)
    df = spark.read.parquet(folder).cache()
    n = df.select("observer").distinct().count()
    cols = s.grid_shape[1]
    on_grid = df.filter(~F.isnan("x") & ~F.isnan("y"))
    cell = (F.floor(F.col("y") / s.cell_px) * cols + F.floor(F.col("x") / s.cell_px)).cast("long")
    rdd = on_grid.select("observer", cell.alias("cell")).rdd.map(lambda r: (r[0], int(r[1])))
    return spark, rdd, n


def engine_noise_std(settings: HeatmapSettings) -> float:
    """Settings in, the noise std PipelineDP adds to one cell's count with them out (a run on one made-up row: it
    reads no data and its output is discarded), so a setting PipelineDP calibrates wrongly is refused before any
    work."""
    import pipeline_dp

    s, b = settings, pdp_bounds(settings)
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=s.epsilon, total_delta=s.delta if s.gaussian else 0.0)
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda row: row[0],
                                            partition_extractor=lambda row: row[1], value_extractor=lambda row: 1.0)
    result = engine.aggregate([("", 0)], _params(s, b), extractors, public_partitions=[0])
    accountant.compute_budgets()
    return float(list(result)[0][1].sum_noise_stddev)


def release_pipelinedp(files: list[str], settings: HeatmapSettings, engine: Engine, *, master: str = "local[*]",
                       chunk_rows: int = CHUNK_ROWS, tmp_dir: str | None = None,
                       report: RowReport | None = None) -> PdpRelease:
    """Shards, settings and engine (pipelinedp | spark) in, the released mean map out (PipelineDP's noise); every
    row's fate is counted in `report`. Spark reads the checked rows from a temporary folder in `tmp_dir`."""
    import pipeline_dp

    s, b = settings, pdp_bounds(settings)
    delta = s.delta if s.gaussian else 0.0
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=s.epsilon, total_delta=delta)
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda row: row[0],
                                            partition_extractor=lambda row: row[1], value_extractor=lambda row: 1.0)
    public = list(range(s.n_cells))
    with tempfile.TemporaryDirectory(prefix="eyedp-spark-", dir=tmp_dir) as folder:
        spark = None
        if engine is Engine.SPARK:
            spark, rows, n = _spark_rows(files, s, master, folder, chunk_rows, report)
            backend = pipeline_dp.SparkRDDBackend(spark.sparkContext)
        else:
            seen: set[str] = set()
            rows, backend = _local_rows(files, s, seen, chunk_rows, report), pipeline_dp.LocalBackend()
        dp_engine = pipeline_dp.DPEngine(accountant, backend)
        result = dp_engine.aggregate(rows, _params(s, b), extractors, public_partitions=public)
        accountant.compute_budgets()
        out = result.collect() if spark is not None else list(result)
    if spark is None:
        n = len(seen)
    if n < 2:
        raise DataError(f"only {n} observer looked at '{s.stimulus}'; a private heatmap of the mean map needs at "
                        "least 2 observers (n is public).", file=files[0])
    sums = np.zeros(s.n_cells)
    stds = set()
    for cell, metrics in out:
        sums[int(cell)] = metrics.sum
        stds.add(float(metrics.sum_noise_stddev))
    if len(stds) != 1 or len(out) != s.n_cells:
        raise RuntimeError(f"PipelineDP returned {len(out)} of {s.n_cells} cells with noise stds {sorted(stds)}")
    return PdpRelease(values=(sums / n).reshape(s.grid_shape), std=stds.pop() / n, n_observers=int(n), bounds=b,
                      versions=_versions(engine))
