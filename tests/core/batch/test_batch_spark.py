"""The Spark engine (PipelineDP's SparkRDDBackend on local[2]): the same calibration as the local engines and noise of
the manifest's law around the independently computed clean map, on 10³ observers. Slow (Spark starts a JVM)."""
from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from scipy import stats

from eyedp_core.batch.run import RunOptions, reference_calibration, release_batch
from eyedp_core.batch.settings import Engine
from eyedp_core.batch.sources import expand_inputs
from tests.core.batch.test_batch import N_OBS, clean_mean_map, light_fixations, settings, write_shards

pytest.importorskip("pyspark")
pytestmark = pytest.mark.slow


def test_spark_engine_matches_the_local_engines(tmp_path):
    df = light_fixations(np.random.default_rng(11))
    files = expand_inputs(write_shards(df, tmp_path / "in"))
    s = settings()
    rel = release_batch(files, s, RunOptions(Engine.SPARK, master="local[2]"))
    man = rel.manifest
    assert man["n_observers"] == N_OBS and man["engine"]["versions"]["pyspark"]
    _, ref = reference_calibration(s, N_OBS, Engine.NUMPY)
    std = man["calibration"]["noise_std"]
    assert ref.scale <= std <= ref.scale * 1.001
    assert man["calibration"]["l2_sensitivity"] == pytest.approx(2 * math.sqrt(40) / N_OBS)
    z = ((rel.values - clean_mean_map(df)) / std).ravel()
    # Fresh noise (no seed): bounds that fail a correct release at most about once in 16,000 runs.
    assert stats.kstest(z, "norm").pvalue > 1e-6
    assert abs(z.std() - 1) < 6 / math.sqrt(2 * z.size)
    assert abs(z.mean()) < 4 / math.sqrt(z.size)


def test_spark_cli_reads_the_rows_of_the_other_engines_with_no_python_on_path(tmp_path):
    # One observer's only fixation is at x = +inf, a CSV line has an extra field and one a missing field: Spark
    # counts the same n and the same rows as the numpy engine (one rule for every engine), and runs its workers
    # with this interpreter though PATH holds none with pyspark.
    from tests.core.batch.test_batch_rows import _with_observer, canvas_args, cli

    folder = tmp_path / "in"
    folder.mkdir()
    text = _with_observer(math.inf).assign(stimulus="img").to_csv(index=False)
    (folder / "a.csv").write_text(text + "p1,5,5,img,extra\np2,5,img\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_")}
    env["PATH"] = "/usr/bin:/bin"
    runs = {}
    for engine in ("numpy", "spark"):
        done = cli("--input", str(folder / "*.csv"), "--engine", engine, *canvas_args("img", epsilon="50"),
                   "--master", "local[1]", "--out", str(tmp_path / engine), env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        runs[engine] = json.loads(done.stdout)
    assert runs["spark"]["n_observers"] == runs["numpy"]["n_observers"] == 5
    assert runs["spark"]["input_rows"] == runs["numpy"]["input_rows"]
    counts = runs["spark"]["input_rows"]["counts"]
    assert (counts["used"], counts["non_finite"], counts["field_count"], sum(counts.values())) == (24, 1, 2, 27)
