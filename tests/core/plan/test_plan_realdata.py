"""A study plan on a real fixation table (OSIE: 15 observers, three 800 × 600 stimuli): three heatmaps and an AOI
dwell table under cap ε = 10, allocated in one table, and the same plan.json released by the batch command on the
numpy and PipelineDP engines."""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from eyedp_core.batch.cli import main
from eyedp_core.plan import Accountant, Cap, StudyPlan, allocate, inputs_from_fixations

OSIE = Path(__file__).resolve().parents[3].parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"
STIMULI = ("1001.jpg", "1002.jpg", "1003.jpg")
PLAN = {"study": "osie three stimuli", "cap": {"epsilon": 10}, "outputs": [
    {"kind": "heatmap", "stimulus": "*", "width": 800, "height": 600, "target": {"hot_spots_kept": 0.5}},
    {"kind": "aoi", "stimulus": "1001.jpg", "metrics": ["dwell"], "target": {"dwell_s": 0.5},
     "shapes": [{"name": f"q{i}{j}", "kind": "rect", "x0": 400 * i, "y0": 300 * j, "x1": 400 * (i + 1),
                 "y1": 300 * (j + 1)} for i in (0, 1) for j in (0, 1)]}]}


@pytest.fixture(scope="module")
def osie() -> pd.DataFrame:
    if not OSIE.is_file():
        pytest.skip(f"real data not available at {OSIE}")
    d = pd.read_csv(OSIE).rename(columns={"image": "stimulus", "subject": "observer"})
    d = d[d["stimulus"].isin(STIMULI)].copy()
    d["observer"] = "s" + d["observer"].astype(str)
    return d[["observer", "stimulus", "x", "y", "duration_ms"]]


def test_one_table_says_what_each_output_gets_and_needs(osie):
    plan, inputs = inputs_from_fixations(osie, StudyPlan.from_dict(PLAN))
    a = allocate(plan, None, inputs)
    rows = a.table()
    assert [r["output"] for r in rows] == ["heatmap_1001-jpg", "heatmap_1002-jpg", "heatmap_1003-jpg",
                                           "aoi_dwell_1001-jpg"]
    assert all(r["n"] == 15 for r in rows)
    assert sum(r["epsilon"] for r in rows) <= 10.0 and a.within_cap
    for r in rows[:3]:  # hot spots of 15 observers are out of reach under this cap: an honest "needs"
        assert r["target_met"] is False and r["epsilon_needed"] > 10 and r["people_needed"] > 15
        lo, hi = r["band_10_90"]
        assert lo <= r["expected"] <= hi
    assert rows[3]["target_met"] is True and rows[3]["expected"] <= 0.5
    assert "No allocation under the cap ε = 10" in a.sentence and "recruit about" in a.sentence
    z = allocate(plan, Cap(10.0, 1e-5, Accountant.ZCDP), inputs)
    assert z.total.epsilon <= min(10.0, z.total.basic_epsilon) * (1 + 1e-12)


@pytest.mark.parametrize("engine", ["numpy", "pipelinedp"])
def test_the_same_plan_file_runs_through_the_batch_command(osie, tmp_path, engine, capsys):
    shards = tmp_path / "in"
    shards.mkdir()
    half = len(osie) // 2
    osie.iloc[:half].to_parquet(shards / "a.parquet", index=False)
    osie.iloc[half:].to_csv(shards / "b.csv", index=False)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN), encoding="utf-8")
    out = tmp_path / "bundle"
    assert main(["plan", "--plan", str(plan), "--input", str(shards / "*"), "--engine", engine,
                 "--out", str(out)]) == 0
    capsys.readouterr()
    man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert man["total_per_person"]["epsilon"] <= 10.0 and man["engine"] == engine
    files = [f for o in man["outputs"] for f in o["files"]]
    assert len(files) == 11 and sum(f["name"].startswith("heatmap_100") for f in files) == 9
    for f in files:
        assert hashlib.sha256((out / f["name"]).read_bytes()).hexdigest() == f["sha256"]
    aoi = man["outputs"][3]
    dwell = next(q for q in aoi["queries"] if q["query"] == "dwell time sum")
    assert dwell["scale_formula"] * math.log(20) / 15 == pytest.approx(aoi["expected"], rel=1e-9)
    assert aoi["target_met"] is True and aoi["expected"] <= 0.5
