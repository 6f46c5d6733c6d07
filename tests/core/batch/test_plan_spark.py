"""`python -m eyedp_core.batch plan --engine spark` on sharded files (local[1]): the bundle's manifest lists every
output's ε, δ and files with their SHA-256, its clean parts (allocation, observers, sensitivities, AOI calibration,
file names, plan) are the numpy engine's on the same shards, and each released map is the clean map plus noise of
its manifest's law. Slow (Spark starts a JVM): one run of each engine."""
from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.batch.plan_run import heatmap_settings
from eyedp_core.batch.run import reference_calibration
from eyedp_core.batch.settings import Engine
from eyedp_core.plan.schema import HeatmapOutput, StudyPlan
from tests.core.batch.test_batch import CELL, H, W, clean_mean_map, light_fixations, write_shards

pytest.importorskip("pyspark")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
N = 300
SHAPES = [{"name": "left", "kind": "rect", "x0": 0, "y0": 0, "x1": 640, "y1": 800},
          {"name": "middle", "kind": "polygon", "points": [[500, 100], [800, 100], [650, 700]]}]
PLAN = {"study": "spark", "cap": {"epsilon": 6.0}, "outputs": [
    {"kind": "heatmap", "stimulus": "*", "width": W, "height": H, "cell_px": CELL, "cap_m": 2, "cap_total": 40,
     "target": {"hot_spots_kept": 0.5}},
    {"kind": "aoi", "stimulus": "1001.jpg", "shapes": SHAPES, "metrics": ["hit_ratio", "fixations"],
     "target": {"hit_ratio_points": 5}}]}
# What differs between two runs by design: the engine's name, its library versions and the noise drawn.
NOISY = {"noise_std", "guarantee", "files", "sha256"}


def _plan_run(engine: str, plan: Path, glob: str, out: Path) -> dict:
    """Run the CLI in a fresh interpreter; its manifest out."""
    done = subprocess.run([sys.executable, "-m", "eyedp_core.batch", "plan", "--plan", str(plan), "--input", glob,
                           "--engine", engine, "--master", "local[1]", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def test_spark_plan_bundle_has_the_numpy_bundles_clean_parts(tmp_path):
    a = light_fixations(np.random.default_rng(11), n=N).assign(stimulus="1001.jpg")
    b = light_fixations(np.random.default_rng(12), n=N).assign(stimulus="2002.jpg")
    df = pd.concat([a, b], ignore_index=True).sample(frac=1.0, random_state=3)
    glob = write_shards(df, tmp_path / "in")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    spark = _plan_run("spark", plan, glob, tmp_path / "spark")
    numpy = _plan_run("numpy", plan, glob, tmp_path / "numpy")

    assert spark["engine"] == "spark" and numpy["engine"] == "numpy"
    assert spark["total_per_person"] == numpy["total_per_person"]
    assert spark["total_per_person"]["epsilon"] <= 6.0 + 1e-12
    assert spark["files"] == numpy["files"]  # plan.json, byte for byte
    assert len(spark["outputs"]) == 3
    heat = [o for o in StudyPlan.from_dict(PLAN).expanded(("1001.jpg", "2002.jpg")).outputs
            if isinstance(o, HeatmapOutput)]
    for s, n in zip(spark["outputs"], numpy["outputs"]):
        assert s["released"] is True and s["epsilon"] > 0
        assert {k: v for k, v in s.items() if k not in NOISY} == {k: v for k, v in n.items() if k not in NOISY}
        assert [f["name"] for f in s["files"]] == [f["name"] for f in n["files"]]
        for f in s["files"]:
            assert hashlib.sha256((tmp_path / "spark" / f["name"]).read_bytes()).hexdigest() == f["sha256"]
        if s["kind"] != "heatmap":
            continue
        own = {f["name"].rsplit(".", 1)[1]: tmp_path / "spark" / f["name"] for f in s["files"]}
        per = json.loads(own["json"].read_text(encoding="utf-8"))
        ref = json.loads((tmp_path / "numpy" / own["json"].name).read_text(encoding="utf-8"))
        assert per["n_observers"] == ref["n_observers"] == N
        assert per["calibration"]["l2_sensitivity"] == pytest.approx(ref["calibration"]["l2_sensitivity"], rel=1e-12)
        assert per["calibration"]["epsilon_charged"] <= s["epsilon"] * (1 + 1e-9)
        # PipelineDP calibrates its own σ: the analytic one of its bounding (within 0.1 %), while the numpy engine
        # draws OpenDP's zCDP-certified σ, never smaller.
        out = next(o for o in heat if o.stimulus == s["stimulus"])
        _, analytic = reference_calibration(heatmap_settings(out, s["epsilon"]), N, Engine.SPARK)
        assert analytic.scale <= s["noise_std"] <= analytic.scale * 1.001 and s["noise_std"] <= n["noise_std"]
        table = pd.read_csv(own["csv"]).sort_values(["row", "col"])
        z = (table["value"].to_numpy(float) - clean_mean_map(df[df["stimulus"] == s["stimulus"]]).ravel())
        z /= s["noise_std"]
        # Fresh noise (no seed): KS at 10⁻⁶, sd within 6 and mean within 4 standard errors (< 1 failure in 10⁴).
        assert stats.kstest(z, "norm").pvalue > 1e-6
        assert abs(z.std() - 1) < 6 / math.sqrt(2 * z.size)
        assert abs(z.mean()) < 4 / math.sqrt(z.size)
