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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import CHUNK_ROWS, read_chunks
from eyedp_core.io.errors import DataError

__all__ = ["PdpRelease", "pdp_bounds", "release_pipelinedp"]


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


def _local_rows(files: list[str], settings: HeatmapSettings, seen: set[str], chunk_rows: int) -> Iterator[tuple]:
    s = settings
    rows, cols = s.grid_shape
    for ch in read_chunks(files, s.stimulus, s.width, s.height, chunk_rows):
        seen.update(ch.observer.tolist())
        ok = (ch.x < s.width) & (ch.y < s.height)  # the far edge is off the grid, as in gaze_maps
        cell = (ch.y[ok] // s.cell_px).astype(np.int64) * cols + (ch.x[ok] // s.cell_px).astype(np.int64)
        yield from zip(ch.observer[ok].tolist(), cell.tolist())


def _spark_rows(files: list[str], settings: HeatmapSettings, master: str) -> tuple[Any, Any, int]:
    """Shards in, (Spark session, RDD of (observer, cell), n) out; Spark reads the shards itself."""
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    s = settings
    builder = SparkSession.builder.master(master).appName("eyedp-batch-heatmap").config("spark.ui.enabled", "false")
    if master.startswith("local"):
        # Spark's 200 shuffle partitions cost more than they bring on one machine: one per core (a cluster keeps
        # its own settings).
        cores = master[len("local["):-1] if master.startswith("local[") else "1"
        par = str(os.cpu_count() or 2) if cores in ("*", "") else cores.split(",")[0]
        builder = builder.config("spark.sql.shuffle.partitions", par).config("spark.default.parallelism", par)
    spark = builder.getOrCreate()
    parquet = [f for f in files if f.lower().endswith((".parquet", ".pq", ".parq"))]
    text = [f for f in files if f not in parquet]
    frames = []
    if parquet:
        frames.append(spark.read.parquet(*parquet))
    if text:
        frames.append(spark.read.option("header", True).csv(text))
    cols = s.grid_shape[1]
    picked = []
    for df in frames:
        if "stimulus" in df.columns:
            df = df.filter(F.col("stimulus").cast("string") == s.stimulus)
        x, y = F.col("x").cast("double"), F.col("y").cast("double")
        df = df.select(F.col("observer").cast("string").alias("observer"), x.alias("x"), y.alias("y"))
        picked.append(df.filter(F.col("x").isNotNull() & F.col("y").isNotNull() & ~F.isnan("x") & ~F.isnan("y")))
    df = picked[0]
    for other in picked[1:]:
        df = df.unionByName(other)
    df = df.cache()
    n = df.select("observer").distinct().count()
    on_grid = df.filter((F.col("x") < s.width) & (F.col("y") < s.height))
    cell = (F.floor(F.col("y") / s.cell_px) * cols + F.floor(F.col("x") / s.cell_px)).cast("long")
    rdd = on_grid.select("observer", cell.alias("cell")).rdd.map(lambda r: (r[0], int(r[1])))
    return spark, rdd, n


def release_pipelinedp(files: list[str], settings: HeatmapSettings, engine: Engine, *, master: str = "local[*]",
                       chunk_rows: int = CHUNK_ROWS) -> PdpRelease:
    """Shards, settings and engine (pipelinedp | spark) in, the released mean map out (PipelineDP's noise)."""
    import pipeline_dp

    s, b = settings, pdp_bounds(settings)
    delta = s.delta if s.gaussian else 0.0
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=s.epsilon, total_delta=delta)
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda row: row[0],
                                            partition_extractor=lambda row: row[1], value_extractor=lambda row: 1.0)
    public = list(range(s.n_cells))
    spark = None
    if engine is Engine.SPARK:
        # Checked by EyeDP's reader first, so bad input is a DataError naming the file before Spark starts.
        for _ in read_chunks(files, s.stimulus, s.width, s.height, chunk_rows):
            pass
        spark, rows, n = _spark_rows(files, s, master)
        backend = pipeline_dp.SparkRDDBackend(spark.sparkContext)
    else:
        seen: set[str] = set()
        rows, backend = _local_rows(files, s, seen, chunk_rows), pipeline_dp.LocalBackend()
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
