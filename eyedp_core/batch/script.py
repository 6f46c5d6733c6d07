"""A short stand-alone PipelineDP script for given settings: the pipeline of the `pipelinedp`/`spark` engines for
users who embed it in their own jobs (rows of (observer, x, y) in, the released mean map out)."""
from __future__ import annotations

from eyedp_core.batch.pdp_engine import pdp_bounds
from eyedp_core.batch.run import reference_calibration
from eyedp_core.batch.settings import Engine, HeatmapSettings

__all__ = ["pipelinedp_script"]


def pipelinedp_script(settings: HeatmapSettings) -> str:
    """Settings in, the text of a Python script that releases the heatmap with PipelineDP (LocalBackend; Spark in a
    comment) out. Same bounds and replace-one calibration as `python -m eyedp_core.batch` (PRIVACY_MODEL §6.8); the
    script refuses to return a map whose noise PipelineDP drew below EyeDP's calibrated std (as the batch does)."""
    s, b = settings, pdp_bounds(settings)
    calibrated = reference_calibration(s, 1, Engine.PIPELINEDP)[1].std
    rows, cols = s.grid_shape
    kind = "GAUSSIAN" if s.gaussian else "LAPLACE"
    delta = repr(float(s.delta)) if s.gaussian else "0.0"
    return f'''"""EyeDP heatmap of '{s.stimulus}' with PipelineDP: {"(ε, δ) = (" + repr(s.epsilon) + ", " + delta + ")"
    if s.gaussian else "ε = " + repr(s.epsilon)} per observer, neighbours = replace one observer (n public).
m = {b.m} fixations per observer and cell, k = {b.k} cells per observer; the declared value bound v = {b.v!r} makes
PipelineDP's add/remove calibration cover replace-one (EyeDP docs/PRIVACY_MODEL.md §6.8). Never use PipelineDP's
parameter tuning. `fixations`: an iterable (or Spark RDD) of (observer, x, y) on a {s.width} x {s.height} px canvas."""
import numpy as np
import pipeline_dp

W, H, CELL, ROWS, COLS = {s.width}, {s.height}, {s.cell_px}, {rows}, {cols}
# EyeDP's calibrated noise std of each cell's count for these settings: PipelineDP's may not be lower (its Gaussian
# returns no noise at all for ε of several hundred).
CALIBRATED_STD = {calibrated!r}


def release(fixations, n_observers, backend=None):
    """(observer, x, y) rows and the public number of observers in, the released mean map (ROWS x COLS) out."""
    backend = backend or pipeline_dp.LocalBackend()  # Spark: pipeline_dp.SparkRDDBackend(spark_context)
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon={s.epsilon!r}, total_delta={delta})
    engine = pipeline_dp.DPEngine(accountant, backend)
    params = pipeline_dp.AggregateParams(
        metrics=[pipeline_dp.Metrics.SUM], noise_kind=pipeline_dp.NoiseKind.{kind},
        max_partitions_contributed={b.k}, max_contributions_per_partition={b.m},
        min_value=0.0, max_value={b.v!r}, output_noise_stddev=True)
    extractors = pipeline_dp.DataExtractors(
        privacy_id_extractor=lambda r: r[0],
        partition_extractor=lambda r: int(r[2] // CELL) * COLS + int(r[1] // CELL),
        value_extractor=lambda r: 1.0)
    on_grid = (backend.filter(fixations, lambda r: 0 <= r[1] < W and 0 <= r[2] < H, "on the canvas")
               if hasattr(backend, "filter") else fixations)
    result = engine.aggregate(on_grid, params, extractors, public_partitions=list(range(ROWS * COLS)))
    accountant.compute_budgets()
    out = np.zeros(ROWS * COLS)
    for cell, metrics in (result.collect() if hasattr(result, "collect") else result):
        if not metrics.sum_noise_stddev >= CALIBRATED_STD * (1 - 1e-9):
            raise RuntimeError(f"PipelineDP's noise std {{metrics.sum_noise_stddev:.3g}} is below the calibrated "
                               f"{{CALIBRATED_STD:.3g}}: the map would not be private and is not returned")
        out[cell] = metrics.sum
    return (out / n_observers).reshape(ROWS, COLS)
'''
