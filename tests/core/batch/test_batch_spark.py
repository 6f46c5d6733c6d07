"""The Spark engine (PipelineDP's SparkRDDBackend on local[2]): the same calibration as the local engines and noise of
the manifest's law around the independently computed clean map, on 10³ observers. Slow (Spark starts a JVM)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from eyedp_core.batch.run import reference_calibration, release_batch
from eyedp_core.batch.settings import Engine
from eyedp_core.batch.sources import expand_inputs
from tests.core.batch.test_batch import N_OBS, clean_mean_map, light_fixations, settings, write_shards

pytest.importorskip("pyspark")
pytestmark = pytest.mark.slow


def test_spark_engine_matches_the_local_engines(tmp_path):
    df = light_fixations(np.random.default_rng(11))
    files = expand_inputs(write_shards(df, tmp_path / "in"))
    s = settings()
    rel = release_batch(files, s, Engine.SPARK, master="local[2]")
    man = rel.manifest
    assert man["n_observers"] == N_OBS and man["engine"]["versions"]["pyspark"]
    _, ref = reference_calibration(s, N_OBS, Engine.NUMPY)
    std = man["calibration"]["noise_std"]
    assert ref.scale <= std <= ref.scale * 1.001
    assert man["calibration"]["l2_sensitivity"] == pytest.approx(2 * math.sqrt(40) / N_OBS)
    z = ((rel.values - clean_mean_map(df)) / std).ravel()
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert abs(z.mean()) < 4 / math.sqrt(z.size)
